"""Most frequent substitutions, deletions and insertions over a corpus (sclite's confusion pairs)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from voxjudge.asr.alignment import Alignment


@dataclass(frozen=True)
class Confusions:
    substitutions: list[tuple[str, str, int]]
    deletions: list[tuple[str, int]]
    insertions: list[tuple[str, int]]

    def as_dict(self) -> dict:
        return {
            "substitutions": [{"ref": r, "hyp": h, "count": n} for r, h, n in self.substitutions],
            "deletions": [{"ref": r, "count": n} for r, n in self.deletions],
            "insertions": [{"hyp": h, "count": n} for h, n in self.insertions],
        }


def _top(counter: Counter, top: int | None) -> list:
    # Most frequent first; ties in first-seen order, so output is stable.
    return counter.most_common(top)


def confusion_pairs(alignments: Iterable[Alignment], top: int | None = 20) -> Confusions:
    """The most frequent substitutions (ref, hyp, count), deletions (ref, count) and insertions
    (hyp, count) over ``alignments`` (``align`` results, one per utterance), most frequent first,
    ties in the order first seen. ``top``: how many of each to keep (None: all)."""
    subs: Counter = Counter()
    dels: Counter = Counter()
    ins: Counter = Counter()
    for alignment in alignments:
        for pair in alignment.pairs():
            if pair.op == "substitute":
                subs[(pair.ref, pair.hyp)] += 1
            elif pair.op == "delete":
                dels[pair.ref] += 1
            elif pair.op == "insert":
                ins[pair.hyp] += 1
    return Confusions(
        substitutions=[(r, h, n) for (r, h), n in _top(subs, top)],
        deletions=_top(dels, top),
        insertions=_top(ins, top),
    )
