"""Per-utterance counts of one unit, in input order: one ``ErrorCounts`` per utterance.

Each row comes from its edit script's length and matching blocks (fewer objects than listing the
edits), built in C by ``map``; identical pairs get their row without an alignment."""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter

from voxjudge.asr.error_counts import ErrorCounts, from_sums, total


class UtteranceRows:
    detail = True

    def __init__(self) -> None:
        self.rows: list[ErrorCounts] = []

    def add(
        self, refs: list, hyps: list, same: list[bool] | None = None, same_lengths: list[int] = (), long: bool = False
    ) -> None:
        """Token sequences of the pairs that differ, and the lengths of the identical ones;
        ``same`` (one flag per pair of the chunk, in order) says where the identical ones go.
        ``long``: the pairs may be long ones (``longform``: interruptible, same scripts)."""
        if long:
            from voxjudge.asr.longform import editops
        else:
            from rapidfuzz.distance.Levenshtein import editops

        differing = map(_counts_from_script, map(editops, refs, hyps), map(len, refs), map(len, hyps))
        if not same_lengths:
            self.rows += differing
            return
        identical = map(_new, repeat(ErrorCounts), zip(same_lengths, repeat(0), repeat(0), repeat(0)))
        # Interleave in input order, in C: a flag picks the iterator the next row comes from.
        self.rows += map(next, map((differing, identical).__getitem__, same))  # type: ignore[arg-type]

    def counts(self) -> ErrorCounts:
        return total(self.rows)

    def rate(self) -> tuple[int, int]:
        c = self.counts()
        return c.ref_len, c.errors


def _counts_from_script(ops, n_ref: int, n_hyp: int) -> ErrorCounts:
    """Hits, substitutions, deletions and insertions of one rapidfuzz edit script."""
    n_ops = len(ops)
    # With no more edits than the length difference there can be no substitution; otherwise the
    # matching blocks give the hits.
    hits = sum(map(_size, ops.as_matching_blocks())) if n_ops > abs(n_ref - n_hyp) else (n_ref + n_hyp - n_ops) // 2
    return from_sums(hits, n_ref, n_hyp, n_ops)


_new = tuple.__new__
_size = attrgetter("size")
