"""Best-of-N selection by round robin: every pair of candidates, both orders, several samples.

The winner has the most pairwise wins (by the weighted verdict); ties are broken by the summed
score margin over its comparisons, then by candidate order. With human top-k rankings, Hit@k is
whether the winner is in the human top k, over the sets whose human ranking labels k candidates
or more (a set with only its winner labelled has Hit@1 and no Hit@2: who is second is not
known); the random baseline is the chance that a random pick lands there, k / N.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from voxjudge.pairwise.data import CandidateSet, Pair
from voxjudge.pairwise.protocol import aggregate, run_judgments
from voxjudge.pairwise.rubric import Rubric
from voxjudge.pairwise.slots import PairJudge


@dataclass
class Selection:
    set_id: str
    winner: int | None  # None: every comparison of the set abstained, so nothing was chosen
    wins: list[int]
    margins: list[float]
    comparisons: int
    hits: dict[int, bool | None]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def candidate_pairs(cset: CandidateSet) -> list[Pair]:
    return [
        Pair(f"{cset.set_id}:{i}-{j}", cset.text, cset.candidates[i], cset.candidates[j])
        for i, j in itertools.combinations(range(len(cset.candidates)), 2)
    ]


def rank(cset: CandidateSet, results: dict[str, Any], ks: Sequence[int] = (1, 2, 3)) -> Selection:
    n = len(cset.candidates)
    wins, margins = [0] * n, [0.0] * n
    usable = 0
    for i, j in itertools.combinations(range(n), 2):
        res = results[f"{cset.set_id}:{i}-{j}"]
        usable += res.overall != "abstain"
        if res.overall == "A":
            wins[i] += 1
        elif res.overall == "B":
            wins[j] += 1
        margins[i] += res.margin
        margins[j] -= res.margin
    # candidate order is no judgment: without a usable comparison there is no winner, and no hit
    # or miss (candidates that came level are a judgment: the order breaks that tie, as documented)
    if not usable:
        return Selection(cset.set_id, None, wins, margins, n * (n - 1) // 2, {k: None for k in ks})
    winner = min(range(n), key=lambda c: (-wins[c], -margins[c], c))
    hits = {k: (winner in cset.human_topk[:k]) if len(cset.human_topk) >= k else None for k in ks}
    return Selection(cset.set_id, winner, wins, margins, n * (n - 1) // 2, hits)


async def select_best(
    sets: Sequence[CandidateSet],
    judge: PairJudge,
    rubric: Rubric,
    samples: int = 10,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[Selection], list[dict[str, Any]]]:
    pairs = [p for s in sets for p in candidate_pairs(s)]
    records = await run_judgments(pairs, judge, rubric, samples, progress)
    results = aggregate(records, rubric)
    return [rank(s, results) for s in sets], records


def hit_rates(
    selections: Sequence[Selection], sets: Sequence[CandidateSet], ks: Sequence[int] = (1, 2, 3)
) -> dict[str, Any]:
    """Hit@k over the sets with k or more labelled candidates (None without any), beside random@k,
    and how many sets each stands on (``n_rated@k``); ``n_rated``: sets with a winner and any human
    ranking. A set without a winner (every comparison abstained) is left out of both and counted
    (``n_no_winner``)."""
    chosen = [(sel, s) for sel, s in zip(selections, sets) if sel.winner is not None]
    out: dict[str, Any] = {
        "n_sets": len(selections),
        "n_rated": sum(1 for _, s in chosen if s.human_topk),
        "n_no_winner": len(selections) - len(chosen),
    }
    for k in ks:
        rated = [(sel, s) for sel, s in chosen if len(s.human_topk) >= k]
        out[f"n_rated@{k}"] = len(rated)
        out[f"hit@{k}"] = (sum(sel.hits[k] for sel, _ in rated) / len(rated)) if rated else None
        out[f"random@{k}"] = (sum(k / len(s.candidates) for _, s in rated) / len(rated)) if rated else None
    return out
