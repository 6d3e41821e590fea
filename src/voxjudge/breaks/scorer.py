"""Scoring hypotheses against a reference table (multi-reference), beside a single reference.

A hypothesis is accepted when its best similarity to any reference of its text exceeds theta.
The single-reference baseline uses one reference per text: the table's most frequent one, or a
given single-reference file. Hypotheses whose text is not in the table, or whose words differ
from it, are reported as errors and never scored.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from voxjudge.breaks.annotation import Annotation
from voxjudge.breaks.similarity import Similarity, levels
from voxjudge.breaks.table import ReferenceTable

DEFAULT_THETA = {"em": 0.5, "f1": 0.8}


@dataclass
class ScoredHypothesis:
    id: str
    text: str
    best_score: float | None
    best_reference: str | None
    accepted: bool | None
    single_score: float | None
    single_accepted: bool | None
    n_references: int
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def score_hypotheses(
    table: ReferenceTable,
    hypotheses: Sequence[tuple[str, Annotation]],
    similarity: Similarity,
    theta: float,
    single: dict[str, Annotation] | None = None,
) -> list[ScoredHypothesis]:
    """One record per hypothesis, in input order. Hypotheses of the same text are scored together."""
    labelset = table.labelset
    groups: dict[str, list[int]] = defaultdict(list)
    out: list[ScoredHypothesis | None] = [None] * len(hypotheses)
    for k, (uid, ann) in enumerate(hypotheses):
        key = ann.text_key
        entry = table.entries.get(key)
        if entry is None:
            out[k] = ScoredHypothesis(uid, key, None, None, None, None, None, 0, _missing_reason(table, key))
        elif not entry.references:
            out[k] = ScoredHypothesis(
                uid, key, None, None, None, None, None, 0, "the table has no reference for this text"
            )
        else:
            groups[key].append(k)
    for key, idx in groups.items():
        entry = table.entries[key]
        refs = entry.levels(labelset)
        hyps = np.stack([levels(hypotheses[k][1], labelset) for k in idx])
        scores = similarity.matrix(hyps, refs)
        best = scores.argmax(axis=1)
        if single is not None and key in single:
            single_levels = levels(single[key], labelset)[None, :]
            single_scores = similarity.matrix(hyps, single_levels)[:, 0]
        elif single is None:
            single_scores = scores[:, 0]  # ranked(): the most frequent reference comes first
        else:
            single_scores = np.full(len(idx), np.nan)
        ranked = entry.ranked()
        for row, k in enumerate(idx):
            b = float(scores[row, best[row]])
            s = float(single_scores[row])
            has_single = not np.isnan(s)
            out[k] = ScoredHypothesis(
                hypotheses[k][0],
                key,
                b,
                ranked[best[row]].annotation.inline(labelset),
                b > theta,
                s if has_single else None,
                (s > theta) if has_single else None,
                len(ranked),
            )
    return out  # type: ignore[return-value]


def _missing_reason(table: ReferenceTable, key: str) -> str:
    """Say whether the words were changed (a near-identical text exists) or the text is unknown."""
    from rapidfuzz import fuzz, process

    match = process.extractOne(key, table.entries.keys(), scorer=fuzz.ratio, score_cutoff=80)
    if match is not None:
        return f"words differ from the table text {match[0]!r}"
    return "text not in the reference table"


def summarize(
    records: Sequence[ScoredHypothesis],
    human: dict[str, float] | None,
    theta: float,
    similarity: Similarity,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> dict[str, Any]:
    from voxjudge.stats import acceptance_table, correlate

    scored = [r for r in records if r.error is None]
    summary: dict[str, Any] = {
        "n": len(scored),
        "n_errors": len(records) - len(scored),
        "similarity": similarity.name,
        "theta": theta,
        "acceptance": float(np.mean([r.accepted for r in scored])) if scored else None,
        "single_acceptance": _mean([r.single_accepted for r in scored if r.single_accepted is not None]),
        "theta_sweep": [
            {
                "theta": round(t, 2),
                "acceptance": _mean([r.best_score > t for r in scored]),
                "single_acceptance": _mean([r.single_score > t for r in scored if r.single_score is not None]),
            }
            for t in np.linspace(0.0, 0.9, 10)
        ],
    }
    keys = ("acceptance_by_group", "pearson", "spearman", "single_pearson", "single_spearman")
    summary.update({k: None for k in keys})
    if human is None:
        return summary
    missing = [r.id for r in scored if r.id not in human]
    if missing:
        from voxjudge.errors import InputError

        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise InputError(f"human scores missing for {len(missing)} hypotheses: {shown}")
    with_human = scored
    groups = [human[r.id] for r in with_human]
    multi_rows = acceptance_table([r.accepted for r in with_human], groups)
    single_rows = {row["group"]: row for row in acceptance_table([bool(r.single_accepted) for r in with_human], groups)}
    summary["acceptance_by_group"] = [{**row, "single_rate": single_rows[row["group"]]["rate"]} for row in multi_rows]
    xs = [r.best_score for r in with_human]
    if len(with_human) >= 3 and len(set(xs)) > 1 and len(set(groups)) > 1:
        for prefix, values in (
            ("", xs),
            ("single_", [r.single_score if r.single_score is not None else 0.0 for r in with_human]),
        ):
            if len(set(values)) < 2:
                continue
            res = {
                c.method: c
                for c in correlate(values, groups, ("pearson", "spearman"), n_resamples=n_resamples, seed=seed)
            }
            summary[f"{prefix}pearson"] = res["pearson"].as_dict()
            summary[f"{prefix}spearman"] = res["spearman"].as_dict()
    return summary


def _mean(values: list) -> float | None:
    return float(np.mean(values)) if values else None
