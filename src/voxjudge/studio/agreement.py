"""Inter-annotator agreement per dimension, and a metric's agreement with the humans.

Krippendorff's alpha (``krippendorff`` package) at the dimension's level of measurement: nominal
for error types and chosen candidates, ordinal for 1-5 ratings, error tiers and A/tie/B
preferences, interval for LASER scores. Fleiss' kappa (statsmodels) over the items that have the
usual number of ratings, and the mean Cohen's kappa over annotator pairs (linearly weighted for
ordinal data). Every interval is a percentile bootstrap over items.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from typing import Any

import numpy as np

from voxjudge.studio.export import per_annotator_values, plurality, votes_by_item

LEVELS = {
    "asr-sentence": {"laser": "interval"},
    "asr-pairs": {"error_type": "nominal", "tier": "ordinal"},
    "breaks": {"score": "ordinal"},
    "mos": {"score": "ordinal"},
    "pairwise": {"C1": "ordinal", "C2": "ordinal", "C3": "ordinal", "C4": "ordinal", "overall": "ordinal"},
    "rank": {"top1": "nominal", "top3": "nominal"},
}
ORDINAL_CODES = {
    "pairwise": {"A": 0, "tie": 1, "B": 2},
    "asr-pairs": {"match": 0, "no_penalty": 1, "minor": 2, "major": 3},
}


def _codes(task: str, dim: str, values: list[Any]) -> dict[Any, float]:
    known = ORDINAL_CODES.get(task, {})
    if task == "pairwise" or (task == "asr-pairs" and dim == "tier"):
        return {v: float(known[v]) for v in values}
    if all(isinstance(v, (int, float)) for v in values):
        return {v: float(v) for v in values}
    return {v: float(i) for i, v in enumerate(sorted(set(map(str, values))))}


def matrices(task: str, answers: list[dict], payloads: dict[str, dict], config) -> dict[str, tuple]:
    """Per dimension: (annotators x items matrix with NaN for missing, annotator names, item ids)."""
    votes = votes_by_item(answers)
    names = sorted({a["annotator"] for v in votes.values() for a in v})
    item_ids = sorted(votes)
    cells: dict[str, dict[tuple[str, str], Any]] = defaultdict(dict)
    for uid in item_ids:
        for a in votes[uid]:
            for dim, value in per_annotator_values(task, a["answer"], payloads[uid], config).items():
                if value is not None:
                    cells[dim][(a["annotator"], uid)] = value
    out = {}
    for dim in LEVELS[task]:
        got = cells.get(dim, {})
        code = _codes(task, dim, list(got.values()))
        m = np.full((len(names), len(item_ids)), np.nan)
        for (name, uid), value in got.items():
            m[names.index(name), item_ids.index(uid)] = code[value]
        out[dim] = (m, names, item_ids)
    return out


def _alpha(m: np.ndarray, level: str) -> float | None:
    import krippendorff

    pairable = m[:, (~np.isnan(m)).sum(axis=0) >= 2]
    if pairable.shape[1] < 2 or len(np.unique(pairable[~np.isnan(pairable)])) < 2:
        return None
    try:
        value = float(krippendorff.alpha(reliability_data=pairable, level_of_measurement=level))
    except (ValueError, ZeroDivisionError):
        return None
    return value if math.isfinite(value) else None


def _fleiss(m: np.ndarray) -> float | None:
    from statsmodels.stats.inter_rater import fleiss_kappa

    counts = (~np.isnan(m)).sum(axis=0)
    if not len(counts) or counts.max() < 2:
        return None
    usual = int(np.bincount(counts[counts >= 2]).argmax())
    cols = m[:, counts == usual]
    if cols.shape[1] < 2:
        return None
    cats = np.unique(cols[~np.isnan(cols)])
    table = np.stack([(cols == c).sum(axis=0) for c in cats], axis=1)  # items x categories
    with np.errstate(invalid="ignore", divide="ignore"):
        value = float(fleiss_kappa(table, method="fleiss"))
    return value if math.isfinite(value) else None


def cohen_kappa(x: np.ndarray, y: np.ndarray, weighted: bool = False) -> float | None:
    """Cohen's kappa of two raters' category codes; linear weights by category rank when ``weighted``.

    Written out (a few array operations) because the admin page bootstraps it over every pair of
    annotators; the tests check it against statsmodels.
    """
    cats, inv = np.unique(np.concatenate([x, y]), return_inverse=True)
    k = len(cats)
    if k < 2:
        return None
    n = len(x)
    table = np.zeros((k, k))
    np.add.at(table, (inv[:n], inv[n:]), 1)
    table /= n
    expected = np.outer(table.sum(axis=1), table.sum(axis=0))
    idx = np.arange(k)
    w = np.abs(idx[:, None] - idx[None, :]) / (k - 1) if weighted else (idx[:, None] != idx[None, :]).astype(float)
    denom = (w * expected).sum()
    return None if denom == 0 else float(1 - (w * table).sum() / denom)


def _cohen(m: np.ndarray, level: str) -> float | None:
    kappas = []
    for i, j in itertools.combinations(range(m.shape[0]), 2):
        both = ~np.isnan(m[i]) & ~np.isnan(m[j])
        if both.sum() < 2:
            continue
        value = cohen_kappa(m[i][both], m[j][both], weighted=level == "ordinal")
        if value is not None:
            kappas.append(value)
    return float(np.mean(kappas)) if kappas else None


def _ci(m: np.ndarray, fn, n_resamples: int, seed: int) -> tuple[float | None, float | None]:
    rng = np.random.default_rng(seed)
    n = m.shape[1]
    vals = []
    for _ in range(n_resamples):
        v = fn(m[:, rng.integers(0, n, n)])
        if v is not None:
            vals.append(v)
    if len(vals) < max(10, n_resamples // 4):
        return None, None
    return float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5))


def agreement(
    task: str, answers: list[dict], payloads: dict[str, dict], config, *, n_resamples: int = 200, seed: int = 0
) -> list[dict[str, Any]]:
    """One row per dimension: level, items with two or more ratings, alpha, Fleiss, Cohen, each with a CI."""
    rows = []
    for dim, (m, names, _ids) in matrices(task, answers, payloads, config).items():
        level = LEVELS[task][dim]
        row: dict[str, Any] = {
            "dimension": dim,
            "level": level,
            "annotators": len(names),
            "n_items": int(((~np.isnan(m)).sum(axis=0) >= 2).sum()) if m.size else 0,
        }
        stats = {"alpha": lambda x, lv=level: _alpha(x, lv)}
        if level != "interval":
            stats["fleiss"] = _fleiss
            stats["cohen"] = lambda x, lv=level: _cohen(x, lv)
        for name, fn in stats.items():
            value = fn(m) if m.size else None
            lo, hi = _ci(m, fn, n_resamples, seed) if value is not None else (None, None)
            row[name], row[f"{name}_ci"] = value, (lo, hi)
        rows.append(row)
    return rows


def human_consensus(task: str, answers: list[dict], payloads: dict[str, dict], config) -> dict[str, dict]:
    """Per item the humans' mean score (numeric dimensions) or plurality label (the others)."""
    out: dict[str, dict] = {}
    for uid, got in votes_by_item(answers).items():
        vals = [per_annotator_values(task, a["answer"], payloads[uid], config) for a in got]
        merged: dict[str, Any] = {}
        for dim, level in LEVELS[task].items():
            xs = [v[dim] for v in vals if v.get(dim) is not None]
            if not xs:
                continue
            merged[dim] = float(np.mean(xs)) if level in ("interval",) or task in ("breaks", "mos") else plurality(xs)
        out[uid] = merged
    return out
