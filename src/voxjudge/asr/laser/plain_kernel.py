"""Which path scores LASER's plain lines: the compiled one (``_plain.c``, an optional extension
built by ``setup.py``) when it was built from the source beside it, else the Python loops of
``stream.py`` (its reference). ``stream.ChunkScorer`` builds the kernel's settings; this module
only finds it."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path


def plain_kernel():
    """The compiled path for plain lines (``_plain.c``), or None: when the install could not
    compile it (no C compiler), when it was built from another version of its source than the one
    beside it (a checkout edited since it was built), or when ``VOXJUDGE_KERNEL=python`` asks for
    the Python path (the reference). Records and summary are the same either way; only the time
    differs."""
    if os.environ.get("VOXJUDGE_KERNEL") == "python":
        return None
    try:
        from voxjudge.asr.laser import _plain
    except ImportError:
        return None
    return _plain if _built_from_source(_plain) else None


@lru_cache(maxsize=1)
def _built_from_source(module) -> bool:
    """Whether the module was built from the source beside it (an install has none: it was)."""
    source = Path(__file__).with_name("_plain.c")
    if not source.exists():
        return True
    return hashlib.sha256(source.read_bytes()).hexdigest() == getattr(module, "source_sha256", "")


def kernel_name() -> str:
    """Which path scores plain lines in this process: "compiled" or "python"."""
    return "python" if plain_kernel() is None else "compiled"
