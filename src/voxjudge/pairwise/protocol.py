"""The Live-ProsodyJudge protocol: both presentation orders, several samples, swap-back, means.

Each pair is judged with clip A first in half of the samples and clip B first in the other half
(an odd sample goes to A-first). A deterministic judge (``judge.deterministic``) is asked once per
order: its samples would be identical, so one record stands for them (``stands_for``). Every
judgment becomes one record that keeps the raw slot scores *and* the scores mapped back to the
physical clips. Per clip and dimension the scores
are averaged over all samples that did not abstain; a dimension's verdict is the sign of the
mean difference (a zero difference is a tie) and the overall verdict is
``V_w = sgn(sum_d w_d (s_A - s_B))`` over the dimensions with scores (the external aggregation of
the dimension-wise judge; zero is a tie). Every record carries the same verdict of its own scores.

Dimensions a judge never measures (the acoustic judge's C3, L1, L3) are absent: not in a record's
scores nor its abstentions, not in a pair's verdicts, so they are neither lost nor counted as
abstentions or errors.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from voxjudge.pairwise.data import Pair
from voxjudge.pairwise.rubric import Rubric
from voxjudge.pairwise.slots import PairJudge, SlotJudgment, orders


def plan_orders(judge: PairJudge, samples: int) -> list[tuple[str, int, int]]:
    """(clip presented first, judgments to ask, samples each stands for) for the orders asked."""
    deterministic = getattr(judge, "deterministic", False)
    return [(first, 1, n) if deterministic else (first, n, 1) for first, n in orders(samples) if n]


def measured_dimensions(judge: PairJudge, rubric: Rubric) -> list[str]:
    """The rubric's dimensions the judge can score at all (a missing one of these is an abstention)."""
    measures = getattr(judge, "measures", None)
    return [d for d in rubric.ids if measures is None or d in measures]


def weighted_verdict(scores: dict[str, dict[str, float]], weights: dict[str, float]) -> tuple[str, float | None]:
    """``V_w`` of per-dimension clip scores and its margin ``sum_d w_d (s_A - s_B)`` over the
    weighted dimensions present; ("abstain", None) when none is."""
    used = [d for d in scores if d in weights]
    if not used:
        return "abstain", None
    margin = sum(weights[d] * (scores[d]["A"] - scores[d]["B"]) for d in used)
    return sign_verdict(margin), margin


def to_record(
    pair: Pair, first: str, index: int, j: SlotJudgment, rubric: Rubric, judge: PairJudge, stands_for: int = 1
) -> dict[str, Any]:
    second = "B" if first == "A" else "A"
    scores = {d: {first: j.first[d], second: j.second[d]} for d in rubric.ids if d in j.first and d in j.second}
    own = {"first": first, "second": second, "tie": "tie"}.get(j.verdict or "")
    verdict, margin = weighted_verdict(scores, rubric.weights)
    return {
        "pair_id": pair.pair_id,
        "first": first,  # the physical clip in the first slot
        "sample": index,
        "raw": {"first": {d: j.first[d] for d in scores}, "second": {d: j.second[d] for d in scores}},
        "scores": scores,  # mapped back to the physical clips
        "abstained": [d for d in measured_dimensions(judge, rubric) if d not in scores],
        "verdict": verdict,  # V_w of this judgment's scores with the rubric's weights; "abstain" without any
        "margin": margin,  # sum_d w_d (s_A - s_B), None when abstained
        "judge_verdict": own,  # the judge's own overall verdict, mapped back (coupled mode only)
        "rationale": j.rationale,
        "error": j.error,
        "flag": j.flag,  # decided without rating (one clip holds no speech), and why
        "stands_for": stands_for,  # identical samples this judgment stands for (deterministic judge)
        "judge": judge.name,
        "mode": judge.mode,
        "rubric": rubric.sha256,
    }


async def run_judgments(
    pairs: Sequence[Pair],
    judge: PairJudge,
    rubric: Rubric,
    samples: int = 10,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """All sampled judgments as records, pair by pair in input order, A-first before B-first."""
    if getattr(judge, "batched", False):
        return await _run_batched(pairs, judge, rubric, samples, progress)
    done = 0

    async def one(pair: Pair) -> list[dict[str, Any]]:
        nonlocal done
        plan = plan_orders(judge, samples)
        results = await asyncio.gather(*(judge.judge(pair, first, n) for first, n, _ in plan))
        out = [
            to_record(pair, first, k, j, rubric, judge, stands_for)
            for (first, _, stands_for), judgments in zip(plan, results)
            for k, j in enumerate(judgments)
        ]
        done += 1
        if progress is not None:
            progress(done, len(pairs))
        return out

    batches = await asyncio.gather(*(one(p) for p in pairs))
    return [r for batch in batches for r in batch]


async def _run_batched(pairs, judge, rubric, samples, progress) -> list[dict[str, Any]]:
    """The same records through one ``judge_many`` (a cluster engine runs it as one job)."""
    planned = [(pair, first, n, stands_for) for pair in pairs for first, n, stands_for in plan_orders(judge, samples)]
    plan = [(pair, first, n) for pair, first, n, _ in planned]

    def pairs_done(done: int, total: int) -> None:  # items asked -> pairs, for the progress bar
        if progress is not None and total:
            progress(done * len(pairs) // total, len(pairs))

    judged = await judge.judge_many(plan, pairs_done)
    return [
        to_record(pair, first, k, j, rubric, judge, stands_for)
        for (pair, first, _, stands_for), judgments in zip(planned, judged)
        for k, j in enumerate(judgments)
    ]


@dataclass
class PairResult:
    pair_id: str
    means: dict[str, dict[str, float]] = field(default_factory=dict)  # dim -> {"A": mean, "B": mean}
    # measured dim -> "A" | "B" | "tie" | "abstain"; a dimension the judge never measures is absent
    verdicts: dict[str, str] = field(default_factory=dict)
    overall: str = "abstain"
    margin: float = 0.0  # sum_d w_d (mean_A - mean_B)
    n_judgments: int = 0
    n_abstentions: int = 0  # (judgment, dimension) cells without a score

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def sign_verdict(diff: float) -> str:
    return "A" if diff > 0 else "B" if diff < 0 else "tie"


def measured_in(records: Sequence[dict[str, Any]]) -> set[str]:
    """The dimensions the records' judge measures: scored or abstained on in some record (a judge
    never lists a dimension it never measures among its abstentions)."""
    return {d for r in records for d in (*r["scores"], *r["abstained"])}


def aggregate(
    records: Sequence[dict[str, Any]], rubric: Rubric, weights: dict[str, float] | None = None
) -> dict[str, PairResult]:
    """Per pair: mean score per clip and dimension, dimension verdicts (the measured dimensions
    only) and the weighted verdict."""
    weights = weights or rubric.weights
    measured = measured_in(records)
    sums: dict[str, dict[str, list[float]]] = {}
    results: dict[str, PairResult] = {}
    for rec in records:
        res = results.setdefault(rec["pair_id"], PairResult(rec["pair_id"]))
        res.n_judgments += 1
        res.n_abstentions += len(rec["abstained"])
        acc = sums.setdefault(rec["pair_id"], {})
        for dim, s in rec["scores"].items():
            cell = acc.setdefault(dim, [0.0, 0.0, 0.0])
            cell[0] += s["A"]
            cell[1] += s["B"]
            cell[2] += 1
    for pid, res in results.items():
        acc = sums.get(pid, {})
        margin, used = 0.0, False
        for dim in rubric.ids:
            if dim not in measured:
                continue
            if dim not in acc:
                res.verdicts[dim] = "abstain"
                continue
            a, b, n = acc[dim]
            res.means[dim] = {"A": a / n, "B": b / n}
            diff = a / n - b / n
            res.verdicts[dim] = sign_verdict(diff)
            if dim in weights:
                margin += weights[dim] * diff
                used = True
        res.margin = margin
        res.overall = sign_verdict(margin) if used else "abstain"
    return results


def margins_matrix(records: Sequence[dict[str, Any]], dims: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Pair ids and their per-dimension mean differences (A - B), NaN where every sample abstained."""
    agg: dict[str, dict[str, list[float]]] = {}
    for rec in records:
        acc = agg.setdefault(rec["pair_id"], {})
        for dim, s in rec["scores"].items():
            cell = acc.setdefault(dim, [0.0, 0])
            cell[0] += s["A"] - s["B"]
            cell[1] += 1
    ids = list(agg)
    m = np.full((len(ids), len(dims)), np.nan)
    for i, pid in enumerate(ids):
        for k, dim in enumerate(dims):
            if dim in agg[pid]:
                total, n = agg[pid][dim]
                m[i, k] = total / n
    return ids, m
