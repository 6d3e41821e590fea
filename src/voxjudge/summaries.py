"""How a summary names what made it, said alike by the terminal views and the HTML reports."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def embedder_named(summary: Mapping[str, Any]) -> str:
    """The embedder of a summary, with the server its vectors came from when it is one."""
    server = summary.get("embedder_server")
    return f"{summary['embedder']} at {server}" if server else str(summary["embedder"])


def is_figure(value: float | None) -> bool:
    """A number a view can show: not None (JSON's NaN) and finite (an infinite z, a NaN ratio is
    said in words instead)."""
    return value is not None and math.isfinite(value)
