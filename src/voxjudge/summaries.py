"""How a summary names what made it, said alike by the terminal views and the HTML reports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def embedder_named(summary: Mapping[str, Any]) -> str:
    """The embedder of a summary, with the server its vectors came from when it is one."""
    server = summary.get("embedder_server")
    return f"{summary['embedder']} at {server}" if server else str(summary["embedder"])
