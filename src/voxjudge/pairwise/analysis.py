"""Analysis of judgment records: accuracy against people, position bias, what sampling buys,
paired comparison of two judges, and weight selection for the weighted verdict.

Ties and abstentions count as errors in every accuracy. Judgments must cover exactly the pairs
of the pairs file: missing pairs, or judgments of pairs the file does not have, are an error
naming them, unless ``allow_partial`` is given, and then the coverage is reported beside every
number.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from voxjudge.errors import InputError
from voxjudge.pairwise.data import Pair
from voxjudge.pairwise.protocol import aggregate, margins_matrix, measured_in, sign_verdict
from voxjudge.pairwise.rubric import Rubric


def _mean(values: Sequence[bool]) -> float | None:
    return float(np.mean(values)) if len(values) else None


def position_bias(records: Sequence[dict[str, Any]], weights: dict[str, float]) -> dict[str, Any]:
    """Second-presented slot minus first: mean score gap, share of judgments favouring the second
    slot (ties left out and counted), and the t statistic over pair-level mean slot differences.

    Only pairs with scored judgments in both orders count: one order alone confounds the slot
    with the clip (``n_one_order_pairs`` says how many were left out)."""
    scored = [r for r in records if r["raw"]["first"]]
    orders: dict[str, set[str]] = {}
    for rec in scored:
        orders.setdefault(rec["pair_id"], set()).add(rec["first"])
    both = {pid for pid, o in orders.items() if len(o) == 2}
    cells: list[float] = []
    favours_second: list[bool] = []
    ties = 0
    per_pair: dict[str, list[float]] = {}
    for rec in scored:
        if rec["pair_id"] not in both:
            continue
        diffs = {d: rec["raw"]["second"][d] - rec["raw"]["first"][d] for d in rec["raw"]["first"]}
        cells.extend(diffs.values())
        gap = sum(weights.get(d, 0.0) * v for d, v in diffs.items())
        if gap == 0:  # a tie favours neither slot
            ties += 1
        else:
            favours_second.append(gap > 0)
        per_pair.setdefault(rec["pair_id"], []).append(float(np.mean(list(diffs.values()))))
    pair_means = [float(np.mean(v)) for v in per_pair.values()]
    t = None
    sd = float(np.std(pair_means, ddof=1)) if len(pair_means) >= 2 else 0.0
    if sd > 1e-9:  # one-sample t statistic of the pair-level slot differences against zero
        t = float(np.mean(pair_means) / (sd / np.sqrt(len(pair_means))))
    return {
        "delta_pos": _mean(cells),
        "second_slot_rate": _mean(favours_second),
        "t_stat": t,
        "n_judgments": len(favours_second) + ties,
        "n_slot_ties": ties,
        "n_bias_pairs": len(both),
        "n_one_order_pairs": len(orders) - len(both),
    }


def check_coverage(
    records: Sequence[dict[str, Any]],
    pairs: Sequence[Pair],
    *,
    source: str = "judgments",
    allow_partial: bool = False,
    pairs_name: str = "the pairs file",
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The records of the pairs file's pairs and the coverage: pairs judged, missing, and judged
    pairs the file does not have. The join is ``voxjudge.io.join`` (pairs file on the left, the
    judged pair ids on the right): anything but full coverage is an ``InputError`` naming the
    pairs unless ``allow_partial``; no judged pair in common is an error either way."""
    from voxjudge.io.join import join_by_id

    seen: set[tuple] = set()
    for r in records:  # a record given twice would count twice in every mean and share
        key = (r["pair_id"], r["first"], r["sample"])
        if key in seen:
            raise InputError(
                f"{source}: the judgment of pair {key[0]!r} with clip {key[1]} first, sample {key[2]}, "
                "appears twice; give each judgment once (were two runs concatenated?)"
            )
        seen.add(key)
    judged = dict.fromkeys(r["pair_id"] for r in records)
    joined = join_by_id(
        {p.pair_id: p for p in pairs},
        judged,
        left_name=pairs_name,
        right_name=source,
        what="pairs",
        allow_partial=allow_partial,
    )
    cover = {
        "pairs_in_file": len(pairs),
        "pairs_judged": len(joined),
        "coverage": len(joined) / len(pairs),
        "missing_pairs": joined.left_side.missing,
        "unknown_pairs": joined.right_side.missing,
    }
    known = set(joined.ids)
    return [r for r in records if r["pair_id"] in known], cover


def accuracy_report(
    records: Sequence[dict[str, Any]],
    pairs: Sequence[Pair],
    rubric: Rubric,
    weights: dict[str, float] | None = None,
    *,
    allow_partial: bool = False,
    source: str = "judgments",
) -> dict[str, Any]:
    weights = weights or rubric.weights
    records, cover = check_coverage(records, pairs, source=source, allow_partial=allow_partial)
    results = aggregate(records, rubric, weights)
    by_id = {p.pair_id: p for p in pairs}
    judged = [pid for pid in results if pid in by_id]
    overall = [results[pid].overall == by_id[pid].human["overall"] for pid in judged if "overall" in by_id[pid].human]
    measured = measured_in(records)
    by_dim = {  # a dimension the judge never measures has no accuracy (it is not a string of errors)
        d: _mean([results[pid].verdicts[d] == by_id[pid].human[d] for pid in judged if d in by_id[pid].human])
        for d in rubric.ids
        if d in measured
    }
    confident = [
        results[pid].verdicts[d] == by_id[pid].human[d]
        for pid in judged
        for d in by_id[pid].human_confident
        if d in by_id[pid].human and d in results[pid].verdicts
    ]
    bias = position_bias(records, weights)
    core = rubric.core
    non_unanimous = sum(1 for pid in judged if len({results[pid].verdicts.get(d) for d in core} & {"A", "B"}) > 1)
    # one call in the presented order (clip A first, first sample) against all samples, both orders
    single = aggregate([r for r in records if r["first"] == "A" and r["sample"] == 0], rubric, weights)
    single_acc = [
        single[pid].overall == by_id[pid].human["overall"]
        for pid in judged
        if pid in single and "overall" in by_id[pid].human
    ]
    return {
        "n_pairs": len(judged),
        "n_labelled": len(overall),
        "accuracy": _mean(overall),
        "accuracy_by_dimension": by_dim,
        "confident_agreement": _mean(confident),
        "n_confident": len(confident),
        "non_unanimous_pairs": non_unanimous,
        "single_sample_accuracy": _mean(single_acc),
        "aggregated_accuracy": _mean(overall),
        "n_abstained": sum(r.n_abstentions for r in results.values()),
        "n_abstained_pairs": sum(1 for r in results.values() if r.overall == "abstain"),
        **{k: v for k, v in bias.items() if k != "n_judgments"},
        "n_judgments": len(records),  # every judgment, abstained ones included
        "n_scored_judgments": sum(1 for r in records if r["raw"]["first"]),  # those with at least one score
        "weights": weights,
        "not_measured": [d for d in rubric.ids if d not in measured],
        **cover,
    }


def correctness(records: Sequence[dict[str, Any]], pairs: Sequence[Pair], rubric: Rubric) -> dict[str, bool]:
    results = aggregate(records, rubric)
    return {
        p.pair_id: results[p.pair_id].overall == p.human["overall"] if p.pair_id in results else False
        for p in pairs
        if "overall" in p.human
    }


def compare_judges(
    records_a: Sequence[dict[str, Any]],
    records_b: Sequence[dict[str, Any]],
    pairs: Sequence[Pair],
    rubric: Rubric,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    allow_partial: bool = False,
    sources: tuple[str, str] = ("judgments A", "judgments B"),
) -> dict[str, Any]:
    """Paired bootstrap of the accuracy difference (A - B): the same resampled pair indices for both,
    over the labelled pairs both judged (every pair of the file unless ``allow_partial``)."""
    from voxjudge.stats import paired_bootstrap

    records_a, cover_a = check_coverage(records_a, pairs, source=sources[0], allow_partial=allow_partial)
    records_b, cover_b = check_coverage(records_b, pairs, source=sources[1], allow_partial=allow_partial)
    judged_a = {r["pair_id"] for r in records_a}
    judged_b = {r["pair_id"] for r in records_b}
    labelled = [p for p in pairs if "overall" in p.human and p.pair_id in judged_a and p.pair_id in judged_b]
    if not labelled:
        raise InputError("no pair with a human overall label was judged by both")
    ca, cb = correctness(records_a, labelled, rubric), correctness(records_b, labelled, rubric)
    ids = [p.pair_id for p in labelled]
    res = paired_bootstrap(
        [float(ca[i]) for i in ids],
        [float(cb[i]) for i in ids],
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
    )
    return {
        "n_pairs": len(ids),
        "accuracy_a": res.a,
        "accuracy_b": res.b,
        **res.as_dict(),
        "coverage_a": cover_a,
        "coverage_b": cover_b,
    }


def split_ids(ids: Sequence[str], val_fraction: float, seed: int) -> tuple[list[str], list[str]]:
    order = list(ids)
    np.random.default_rng(seed).shuffle(order)
    cut = int(round(len(order) * val_fraction))
    return sorted(order[:cut]), sorted(order[cut:])


def select_weights(
    records: Sequence[dict[str, Any]],
    pairs: Sequence[Pair],
    rubric: Rubric,
    *,
    val_fraction: float = 0.5,
    seed: int = 0,
    grid: Sequence[float] = (0.5, 1.0, 2.0, 3.0),
    dims: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Grid search of the weights of ``V_w`` on a validation split, reported on the test split
    beside uniform weights. Dimensions default to the core ones the judge measures (a
    never-measured one has no margin to weigh; the grid grows 4x per dimension, and so does the
    room to overfit a half split), else every measured one."""
    measured = measured_in(records)
    dims = list(dims or [d for d in rubric.core if d in measured] or [d for d in rubric.ids if d in measured])
    ids, m = margins_matrix(records, dims)
    human = {p.pair_id: p.human.get("overall") for p in pairs}
    keep = [i for i, pid in enumerate(ids) if human.get(pid) in ("A", "B", "tie")]
    ids, m = [ids[i] for i in keep], np.nan_to_num(m[keep])
    val, test = split_ids(ids, val_fraction, seed)
    index = {pid: i for i, pid in enumerate(ids)}
    target = np.array([{"A": 1, "B": -1, "tie": 0}[human[pid]] for pid in ids])

    def accuracy(weights: np.ndarray, subset: list[str]) -> float | None:
        rows = [index[pid] for pid in subset]
        if not rows:
            return None
        pred = np.sign(m[rows] @ weights)
        return float(np.mean((pred == target[rows]) & (pred != 0)))

    best, best_acc = None, -1.0
    for combo in itertools.product(grid, repeat=len(dims)):
        w = np.array(combo)
        acc = accuracy(w, val)
        if acc is not None and acc > best_acc:
            best, best_acc = w, acc
    uniform = np.ones(len(dims))
    return {
        "dimensions": dims,
        "weights": dict(zip(dims, best.tolist())) if best is not None else None,
        "validation_pairs": len(val),
        "test_pairs": len(test),
        "validation_accuracy": best_acc if best is not None else None,
        "test_accuracy": accuracy(best, test) if best is not None else None,
        "test_accuracy_uniform": accuracy(uniform, test),
        "validation_accuracy_uniform": accuracy(uniform, val),
    }


__all__ = ["accuracy_report", "check_coverage", "compare_judges", "position_bias", "select_weights", "sign_verdict"]
