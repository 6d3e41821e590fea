"""The counts an error rate is made of (hits, substitutions, deletions, insertions) and the rates
derived from them, for one utterance or summed over a corpus."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple


class ErrorCounts(NamedTuple):
    """Alignment counts for one utterance or summed over a corpus, with the derived rates.

    Rates follow jiwer's conventions, including the empty reference: WER is then the number of
    inserted units (0 when the hypothesis is empty too), MER is 0 or 1, WIP is 1 or 0.
    A NamedTuple because the counting loop builds one per utterance and tuples are cheapest.
    """

    hits: int = 0
    substitutions: int = 0
    deletions: int = 0
    insertions: int = 0

    @property
    def ref_len(self) -> int:
        return self.hits + self.substitutions + self.deletions

    @property
    def hyp_len(self) -> int:
        return self.hits + self.substitutions + self.insertions

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def error_rate(self) -> float:
        """WER for word units, CER for character units."""
        if self.ref_len == 0:
            return float(self.insertions)
        return float(self.errors) / float(self.ref_len)

    wer = error_rate

    @property
    def mer(self) -> float:
        if self.ref_len == 0:
            return 0.0 if self.hyp_len == 0 else 1.0
        return float(self.errors) / float(self.ref_len + self.insertions)

    @property
    def wip(self) -> float:
        if self.ref_len == 0:
            return 1.0 if self.hyp_len == 0 else 0.0
        if self.hyp_len == 0:
            return 0.0
        # Same operation order as jiwer, so the floats agree bit for bit.
        return (float(self.hits) / self.ref_len) * (float(self.hits) / self.hyp_len)

    @property
    def wil(self) -> float:
        return 1 - self.wip

    def __add__(self, other: ErrorCounts) -> ErrorCounts:  # type: ignore[override]
        return ErrorCounts(
            self.hits + other.hits,
            self.substitutions + other.substitutions,
            self.deletions + other.deletions,
            self.insertions + other.insertions,
        )

    def counts(self) -> dict[str, int]:
        return {
            "hits": self.hits,
            "substitutions": self.substitutions,
            "deletions": self.deletions,
            "insertions": self.insertions,
        }


def total(counts: Iterable[ErrorCounts]) -> ErrorCounts:
    """Corpus-level counts: errors summed over utterances (as jiwer and sclite do)."""
    h = s = d = i = 0
    for c in counts:
        h += c.hits
        s += c.substitutions
        d += c.deletions
        i += c.insertions
    return ErrorCounts(h, s, d, i)


def from_sums(hits: int, n_ref: int, n_hyp: int, n_ops: int) -> ErrorCounts:
    """The counts of an edit script with ``hits`` matches and ``n_ops`` edits between sequences
    of ``n_ref`` and ``n_hyp`` units: n_ref + n_hyp - 2H - n_ops substitutions, and the deletions
    and insertions from D + I = n_ops - S and D - I = n_ref - n_hyp. All linear, so the same
    formula gives a corpus's counts from its summed lengths, hits and edits."""
    subs = n_ref + n_hyp - 2 * hits - n_ops
    dels = (n_ops - subs + n_ref - n_hyp) // 2
    return _new(ErrorCounts, (hits, subs, dels, n_ops - subs - dels))


_new = tuple.__new__  # builds the NamedTuple without its Python-level __new__
