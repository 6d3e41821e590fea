"""The records of a line-aligned text file (ids are line numbers), built only when asked.

Reading builds one ``TextRecord`` and one id string per line; for line-aligned files they hold
nothing the lines do not, and a whole-corpus command (``asr metrics``) needs only the texts of
both files and the ids of one. ``LineRecords`` is a read-only sequence of records over the lines
(same records, same order, built in C when iterated); ``pair_texts`` takes the lines as they are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import count, repeat

from voxjudge.io.text_record import TextRecord

_new_tuple = tuple.__new__  # a record without the NamedTuple's Python-level __new__


class LineRecords(Sequence):
    __slots__ = ("lines",)

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[n] for n in range(len(self.lines))[k]]
        n = range(len(self.lines))[k]  # (negative indexes and IndexError as a list's)
        return TextRecord(str(n + 1), self.lines[n], n + 1)

    def __iter__(self) -> Iterator[TextRecord]:
        fields = zip(map(str, count(1)), self.lines, count(1), repeat(None))
        return map(_new_tuple, repeat(TextRecord), fields)

    def __eq__(self, other) -> bool:
        return list(self) == (list(other) if isinstance(other, (LineRecords, list)) else other)

    def __repr__(self) -> str:
        return f"LineRecords({len(self.lines)} lines)"


def line_ids(n: int) -> list[str]:
    """The ids of ``n`` line-aligned utterances: their line numbers."""
    return list(map(str, range(1, n + 1)))
