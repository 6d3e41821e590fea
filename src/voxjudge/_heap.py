"""Keep a worker process's freed heap instead of giving it back to the system after every chunk.

glibc returns freed memory at the top of the heap (and every block over its mmap threshold) to
the system at once; a worker that builds and frees a chunk's records and objects over and over
then faults the same pages in again, and a page fault is dear on a virtual machine (a 200k-
utterance LASER run: ~100,000 faults per worker, a tenth of its system time). Only for processes
we start: the settings are process-wide. Elsewhere than glibc nothing changes.
"""

from __future__ import annotations

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
TRIM = 256 << 20  # free memory kept at the top of the heap before it is given back
MMAP = 32 << 20  # blocks from the heap up to this size (glibc's own maximum for the setting)


def keep_freed_heap() -> bool:
    """Raise glibc's trim and mmap thresholds for this process; False where there is no glibc."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_TRIM_THRESHOLD, TRIM)) and bool(mallopt(_M_MMAP_THRESHOLD, MMAP))
