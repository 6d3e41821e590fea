"""A command's processes, read from /proc: what a Ctrl-C test checks is left behind (shared by the
long-form and LASER worker interrupt tests)."""

from __future__ import annotations

from pathlib import Path


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return out


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting to be reaped."""
    try:
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
