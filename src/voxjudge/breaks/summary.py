"""The LMRE summary: per metric, acceptance and (with human scores) acceptance by human-score
group and Pearson/Spearman with bootstrap CIs, multi-reference beside the single-reference
baseline. Computed from the records alone.

The baseline covers the hypotheses that have a single reference (see ``scorer``); its acceptance,
its per-group rates and its correlations are all over those hypotheses (``single_n`` of them,
``n`` in each group row), never with the uncovered ones counted as rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from voxjudge.breaks.annotation import TEXT_NORMALIZATION
from voxjudge.breaks.scorer import Metric, ScoredHypothesis, metrics_for
from voxjudge.breaks.similarity import Similarity
from voxjudge.errors import InputError

THETA_SWEEP = np.round(np.linspace(0.0, 0.9, 10), 2)
_PER_METRIC = (
    "acceptance",
    "single_acceptance",
    "theta_sweep",
    "acceptance_by_group",
    "pearson",
    "spearman",
    "single_pearson",
    "single_spearman",
)


def summarize(
    records: Sequence[ScoredHypothesis],
    human: dict[str, float] | None = None,
    theta: float | Sequence[float] | None = None,
    similarity: Similarity | Sequence[Similarity] | None = None,
    *,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Summary of a run. The metrics come from the records; ``theta`` and ``similarity`` (as given
    to ``score_hypotheses``) are only needed when there are no records to read them from.

    Keys: ``n``, ``n_errors``, ``single_n``, ``single_covers``, ``normalization``, ``metrics`` (per
    metric name: ``similarity``, ``theta`` and the statistics), and the first metric's statistics
    repeated at the top level (``acceptance``, ``pearson``, ...)."""
    metrics: Sequence[Metric] = records[0].metrics if records else ()
    if not metrics and similarity is not None:
        metrics = metrics_for(similarity, theta)
    scored = [r for r in records if r.error is None]
    covered = [r for r in scored if r.single_score is not None]
    summary: dict[str, Any] = {
        "n": len(scored),
        "n_errors": len(records) - len(scored),
        "single_n": len(covered),
        "single_covers": f"{len(covered)} of {len(scored)} scored hypotheses (those with a single reference)",
        "normalization": TEXT_NORMALIZATION,
        "metrics": {},
    }
    groups = _human_groups(scored, human)
    for k, metric in enumerate(metrics):
        summary["metrics"][metric.kind] = {
            "similarity": metric.similarity.name,
            "theta": metric.theta,
            **_metric_summary(scored, k, metric.theta, groups, (n_resamples, confidence, seed)),
        }
    first = next(iter(summary["metrics"].values()), None)
    summary["similarity"] = first["similarity"] if first else None
    summary["theta"] = first["theta"] if first else None
    summary.update({key: first[key] if first else None for key in _PER_METRIC})
    return summary


def _human_groups(scored: Sequence[ScoredHypothesis], human: dict[str, float] | None) -> list[float] | None:
    if human is None:
        return None
    missing = [r.id for r in scored if r.id not in human]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise InputError(f"human scores missing for {len(missing)} hypotheses: {shown}")
    return [human[r.id] for r in scored]


def _metric_summary(
    scored: Sequence[ScoredHypothesis], k: int, theta: float, groups: list[float] | None, boot: tuple[int, float, int]
) -> dict[str, Any]:
    from voxjudge.stats import acceptance_table

    multi = np.array([r.scores[k].score for r in scored], dtype=float)
    single_of = [r.scores[k].single_score for r in scored]
    covered = np.array([s is not None for s in single_of], dtype=bool)
    single = np.array([s for s in single_of if s is not None], dtype=float)
    out: dict[str, Any] = {
        "acceptance": _mean(multi > theta),
        "single_acceptance": _mean(single > theta),
        "theta_sweep": [
            {"theta": float(t), "acceptance": _mean(multi > t), "single_acceptance": _mean(single > t)}
            for t in THETA_SWEEP
        ],
        "acceptance_by_group": None,
    }
    out.update(_correlations("", multi, groups, boot))
    if groups is None:
        out.update(_correlations("single_", single, None, boot))
        return out
    covered_groups = [g for g, c in zip(groups, covered) if c]
    out.update(_correlations("single_", single, covered_groups, boot))
    multi_rows = acceptance_table(list(multi > theta), groups)
    single_rows = {row["group"]: row for row in acceptance_table(list(single > theta), covered_groups)}
    out["acceptance_by_group"] = []
    for row in multi_rows:
        single_row = single_rows.get(row["group"], {"n": 0, "accepted": 0})
        out["acceptance_by_group"].append(
            {
                **row,
                "single_n": single_row["n"],
                "single_accepted": single_row["accepted"],
                "single_rate": single_row["rate"] if single_row["n"] else None,  # no covered hypothesis
            }
        )
    return out


def _correlations(
    prefix: str, values: np.ndarray, groups: list[float] | None, boot: tuple[int, float, int]
) -> dict[str, Any]:
    """Pearson and Spearman with bootstrap CIs; None when there are fewer than 3 items or either
    side is constant (a correlation is undefined there)."""
    out: dict[str, Any] = {f"{prefix}pearson": None, f"{prefix}spearman": None}
    if groups is None or len(values) < 3 or len(set(values.tolist())) < 2 or len(set(groups)) < 2:
        return out
    from voxjudge.stats import correlate

    n_resamples, confidence, seed = boot
    methods = ("pearson", "spearman")
    for c in correlate(values.tolist(), groups, methods, n_resamples=n_resamples, confidence=confidence, seed=seed):
        out[f"{prefix}{c.method}"] = c.as_dict()
    return out


def _mean(values: np.ndarray) -> float | None:
    return float(np.mean(values)) if len(values) else None
