"""The LMRE summary: per metric, acceptance and (with human scores) acceptance by human-score
group and Pearson/Spearman with bootstrap CIs, multi-reference beside the single-reference
baseline. Computed from the records alone.

Partial is never a headline: ``coverage`` (the first key) says how many hypotheses were scored
and, with human scores, how many of those have one (``voxjudge.io.join``; ``allow_partial`` uses
the ones that do). Acceptance covers the scored hypotheses, correlations and the per-group rates
the scored ones with a human score; each metric says so in ``covers``.

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
from voxjudge.plural import counted

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
    "agreement_undefined",
    "single_agreement_undefined",
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
    allow_partial: bool = False,
    human_name: str = "the human file",
    hyp_name: str = "the run",
) -> dict[str, Any]:
    """Summary of a run. The metrics come from the records; ``theta`` and ``similarity`` (as given
    to ``score_hypotheses``) are only needed when there are no records to read them from.

    ``human``: scores by hypothesis id; every scored hypothesis needs one unless ``allow_partial``
    (ids of other hypotheses are ignored); ``human_name`` and ``hyp_name`` name the two files in
    messages.

    Keys: ``coverage``, ``n``, ``n_errors``, ``single_n``, ``single_covers``, ``normalization``, ``metrics`` (per
    metric name: ``similarity``, ``theta`` and the statistics), and the first metric's statistics
    repeated at the top level (``acceptance``, ``pearson``, ...)."""
    metrics: Sequence[Metric] = records[0].metrics if records else ()
    if not metrics and similarity is not None:
        metrics = metrics_for(similarity, theta)
    scored = [r for r in records if r.error is None]
    covered = [r for r in scored if r.single_score is not None]
    joined = _human_join(scored, human, allow_partial, (hyp_name, human_name))
    rated = joined.left if joined is not None else []
    summary: dict[str, Any] = {
        "coverage": _coverage(records, scored, joined),
        "n": len(scored),
        "n_errors": len(records) - len(scored),
        "single_n": len(covered),
        "single_covers": f"{len(covered)} of {len(scored)} scored hypotheses (those with a single reference)",
        "normalization": TEXT_NORMALIZATION,
        "metrics": {},
    }
    groups = None if joined is None else [float(v) for v in joined.right]
    covers = summary["coverage"]["covers"]
    for k, metric in enumerate(metrics):
        summary["metrics"][metric.kind] = {
            "similarity": metric.similarity.name,
            "theta": metric.theta,
            "covers": covers,
            **_metric_summary(scored, rated, k, metric, groups, (n_resamples, confidence, seed), primary=k == 0),
        }
    first = next(iter(summary["metrics"].values()), None)
    summary["similarity"] = first["similarity"] if first else None
    summary["theta"] = first["theta"] if first else None
    summary.update({key: first[key] if first else None for key in _PER_METRIC})
    return summary


def _human_join(
    scored: Sequence[ScoredHypothesis], human: dict[str, float] | None, allow_partial: bool, names: tuple[str, str]
):
    if human is None:
        return None
    from voxjudge.io.join import join_by_id

    return join_by_id(
        [(r.id, r) for r in scored],
        human,
        left_name=names[0],
        right_name=names[1],
        what="scored hypotheses",
        allow_partial=allow_partial,
        right_extra="ignore",  # a human file of the whole study beside a run of part of it
    )


def _coverage(records: Sequence[ScoredHypothesis], scored: Sequence[ScoredHypothesis], joined) -> dict[str, Any]:
    """What the numbers cover, for the summary's first key."""
    reasons: dict[str, int] = {}
    for r in records:
        if r.error is not None:
            key = "words differ from the table's text" if r.error.startswith("words differ") else r.error
            reasons[key] = reasons.get(key, 0) + 1
    out: dict[str, Any] = {
        "hypotheses": len(records),
        "scored": len(scored),
        "unscored": len(records) - len(scored),
        "unscored_reasons": reasons,
        "human": None if joined is None else joined.coverage(),
        "rated": None if joined is None else len(joined),
    }
    out["partial"] = bool(out["unscored"]) or bool(joined is not None and joined.left_partial)
    covers = {"acceptance": f"{len(scored)} of {counted(len(records), 'hypothesis')} (the scored ones)"}
    if joined is not None:
        covers["agreement"] = f"{len(joined)} of {counted(len(records), 'hypothesis')} (scored, with a human score)"
    out["covers"] = covers
    return out


def coverage_lines(cover: dict[str, Any]) -> list[str]:
    """What a partial run covers, in words, before any number (nothing when it covers everything);
    the terminal summary and the report both say it this way."""
    from voxjudge.io.join import coverage_text

    lines = []
    if cover.get("unscored"):
        why = ", ".join(f"{n} {reason}" for reason, n in cover["unscored_reasons"].items())
        lines.append(
            f"partial: {cover['scored']} of {counted(cover['hypotheses'], 'hypothesis')} scored ({why}; each "
            f"record says why); acceptance covers only the {cover['scored']} scored"
        )
    if cover.get("human"):
        note = coverage_text(cover["human"], "scored hypotheses", "correlations and per-group rates cover")
        if note:
            lines.append(note)
    return lines


def _metric_summary(
    scored: Sequence[ScoredHypothesis],
    rated: Sequence[ScoredHypothesis],
    k: int,
    metric: Metric,
    groups: list[float] | None,
    boot: tuple[int, float, int],
    *,
    primary: bool,
) -> dict[str, Any]:
    """Acceptance over ``scored``; correlations and per-group rates over ``rated`` (the scored
    hypotheses with a human score, parallel to ``groups``)."""
    from voxjudge.stats import acceptance_table

    theta, name = metric.theta, metric.similarity.name

    multi = np.array([r.scores[k].score for r in scored], dtype=float)
    single = np.array([r.scores[k].single_score for r in scored if r.scores[k].single_score is not None], dtype=float)
    out: dict[str, Any] = {
        "acceptance": _mean(multi > theta),
        "single_acceptance": _mean(single > theta),
        "theta_sweep": [
            {"theta": float(t), "acceptance": _mean(multi > t), "single_acceptance": _mean(single > t)}
            for t in THETA_SWEEP
        ],
        "acceptance_by_group": None,
    }
    if groups is None:
        out.update(_correlations("", multi, None, boot, name, primary))
        out.update(_correlations("single_", single, None, boot, name, primary))
        return out
    rated_multi = np.array([r.scores[k].score for r in rated], dtype=float)
    rated_single_of = [r.scores[k].single_score for r in rated]
    covered_groups = [g for g, s in zip(groups, rated_single_of) if s is not None]
    rated_single = np.array([s for s in rated_single_of if s is not None], dtype=float)
    out.update(_correlations("", rated_multi, groups, boot, name, primary))
    out.update(_correlations("single_", rated_single, covered_groups, boot, name, primary))
    multi_rows = acceptance_table(list(rated_multi > theta), groups)
    single_rows = {row["group"]: row for row in acceptance_table(list(rated_single > theta), covered_groups)}
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
    prefix: str,
    values: np.ndarray,
    groups: list[float] | None,
    boot: tuple[int, float, int],
    metric: str,
    primary: bool,
) -> dict[str, Any]:
    """Pearson and Spearman with bootstrap CIs through ``voxjudge.stats.agreement``: where they are
    undefined (fewer than 3 items, a constant side) the first metric's multi-reference score stops
    the run with its message, as everywhere else; another metric, and every baseline column, keeps
    the message (``agreement_undefined``) instead of a correlation: one metric that cannot be
    correlated does not take the others down with it."""
    out: dict[str, Any] = {f"{prefix}pearson": None, f"{prefix}spearman": None}
    out[f"{prefix}agreement_undefined"] = None
    if groups is None:
        return out
    from voxjudge.stats import AgreementUndefined, agreement

    n_resamples, confidence, seed = boot
    # the baseline's message sits under its metric already; the multi-reference one may stop the run
    name = "single-reference" if prefix else f"{metric} multi-reference"
    try:
        found = agreement(
            values.tolist(),
            groups,
            ("pearson", "spearman"),
            metric_name=name,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        )
    except AgreementUndefined as e:
        if primary and not prefix:
            raise
        out[f"{prefix}agreement_undefined"] = str(e)
        return out
    for c in found:
        out[f"{prefix}{c.method}"] = c.as_dict()
    return out


def _mean(values: np.ndarray) -> float | None:
    return float(np.mean(values)) if len(values) else None
