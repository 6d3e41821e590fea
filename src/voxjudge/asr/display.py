"""Alignment display that lines up in a terminal for any script.

Columns are padded by *display width* (wcwidth), not ``len()``: combining marks take no cell,
CJK ideographs take two, so Devanagari, Chinese and accented text line up. Colour is optional
and is plain ANSI so the caller decides (the CLI turns it on only for a terminal).
"""

from __future__ import annotations

from voxjudge.asr.alignment import Alignment

_COLORS = {"substitute": "\x1b[33m", "delete": "\x1b[31m", "insert": "\x1b[32m"}
_RESET = "\x1b[0m"
_MARK = {"equal": "", "substitute": "S", "delete": "D", "insert": "I"}


def display_width(text: str) -> int:
    """Terminal cells needed for ``text`` (falls back to code points for control characters)."""
    from wcwidth import wcswidth

    width = wcswidth(text)
    return width if width >= 0 else len(text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


def render_alignment(alignment: Alignment, uid: str | None = None, *, color: bool = False) -> str:
    """sclite-style REF/HYP/OPS lines; gaps are shown as asterisks as wide as the other side."""
    ref_cells: list[str] = []
    hyp_cells: list[str] = []
    op_cells: list[str] = []
    for pair in alignment.pairs():
        width = max(display_width(pair.ref), display_width(pair.hyp), 1)
        ref = pair.ref or "*" * width
        hyp = pair.hyp or "*" * width
        mark = _MARK[pair.op]
        cells = [_pad(ref, width), _pad(hyp, width), _pad(mark, width)]
        if color and pair.op != "equal":
            cells = [_COLORS[pair.op] + c + _RESET for c in cells]
        ref_cells.append(cells[0])
        hyp_cells.append(cells[1])
        op_cells.append(cells[2])
    c = alignment.counts
    head = f"{uid}: " if uid is not None else ""
    lines = [
        f"{head}hits={c.hits} S={c.substitutions} D={c.deletions} I={c.insertions} error_rate={c.error_rate:.4f}",
        "REF: " + " ".join(ref_cells),
        "HYP: " + " ".join(hyp_cells),
        "     " + " ".join(op_cells),
    ]
    return "\n".join(line.rstrip() for line in lines)
