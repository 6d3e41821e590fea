"""Corpus totals of one unit, accumulated chunk by chunk without any per-utterance Python work.

Only sums are kept: the reference and hypothesis lengths, the number of edits and the hits
(matching blocks of rapidfuzz's edit script, the one jiwer uses); ``from_sums`` turns them into
hits, substitutions, deletions and insertions. ``detail=False`` keeps only the edit distance:
the error rate, not its split into S/D/I, at half the cost."""

from __future__ import annotations

from itertools import chain
from operator import attrgetter, methodcaller

from voxjudge.asr.error_counts import ErrorCounts, from_sums


class CorpusTotals:
    def __init__(self, detail: bool) -> None:
        self.detail = detail
        self.hits = self.n_ref = self.n_hyp = self.n_ops = 0

    def add(
        self, refs: list, hyps: list, same: list[bool] | None = None, same_lengths: list[int] = (), long: bool = False
    ) -> None:
        """Token sequences of the pairs that differ, and the lengths of the identical ones (their
        alignment is all hits; ``same`` says which pairs they were, for ``UtteranceRows``).
        ``long``: the pairs may be long ones (``longform``: interruptible, same counts)."""
        if long:
            from voxjudge.asr.longform import distance, editops
        else:
            from rapidfuzz.distance.Levenshtein import distance, editops

        n_same = sum(same_lengths)
        self.n_ref += sum(map(len, refs)) + n_same
        if not self.detail:
            self.n_ops += sum(map(distance, refs, hyps))
            return
        scripts = list(map(editops, refs, hyps))
        self.n_hyp += sum(map(len, hyps)) + n_same
        self.n_ops += sum(map(len, scripts))
        self.hits += sum(map(_size, chain.from_iterable(map(_blocks, scripts)))) + n_same

    def counts(self) -> ErrorCounts:
        """The corpus counts (needs ``detail``)."""
        return from_sums(self.hits, self.n_ref, self.n_hyp, self.n_ops)

    def rate(self) -> tuple[int, int]:
        """Reference length and errors, summed over the corpus."""
        if self.detail:
            c = self.counts()
            return c.ref_len, c.errors
        return self.n_ref, self.n_ops


_size = attrgetter("size")
_blocks = methodcaller("as_matching_blocks")  # called from C by map: no Python frame per script
