"""Scoring hypotheses against a reference table (multi-reference), beside a single reference.

A hypothesis is accepted when its best similarity to any reference of its text exceeds theta.
The single-reference baseline uses one reference per text: the table's most frequent one, or a
given single-reference file. Hypotheses whose text is not in the table, or whose words differ
from it, are reported as errors and never scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from voxjudge._gc import gc_paused
from voxjudge.breaks.annotation import TEXT_NORMALIZATION, Annotation
from voxjudge.breaks.similarity import Similarity
from voxjudge.breaks.table import Reference, ReferenceTable

DEFAULT_THETA = {"em": 0.5, "f1": 0.8}


@dataclass(slots=True)
class ScoredHypothesis:
    id: str
    text: str
    best_score: float | None
    best: Reference | None  # the best-matching reference (ties: the more frequent one)
    accepted: bool | None
    single_score: float | None
    single_accepted: bool | None
    n_references: int
    error: str | None = None

    @property
    def best_reference(self) -> str | None:
        """The best-matching reference, inline (built on demand: most callers need only scores)."""
        return None if self.best is None else self.best.inline()

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "best_score": self.best_score,
            "best_reference": self.best_reference,
            "accepted": self.accepted,
            "single_score": self.single_score,
            "single_accepted": self.single_accepted,
            "n_references": self.n_references,
            "error": self.error,
        }


def score_hypotheses(
    table: ReferenceTable,
    hypotheses: Sequence[tuple[str, Annotation]],
    similarity: Similarity,
    theta: float,
    single: dict[str, Annotation] | None = None,
    *,
    max_pairs: int = 1_000_000,
) -> list[ScoredHypothesis]:
    """One record per hypothesis, in input order (see ``_score`` for how)."""
    with gc_paused():
        return _score(table, hypotheses, similarity, theta, single, max_pairs)


def _score(
    table: ReferenceTable,
    hypotheses: Sequence[tuple[str, Annotation]],
    similarity: Similarity,
    theta: float,
    single: dict[str, Annotation] | None,
    max_pairs: int,
) -> list[ScoredHypothesis]:
    """All (hypothesis, reference-of-its-text) pairs are scored in a few vectorised passes: level
    arrays are zero-padded to a common width (padding is "no boundary" and changes no score),
    gathered pair by pair, scored, and reduced to the best reference per hypothesis (ties go to
    the more frequent reference).
    """
    labelset = table.labelset
    out: list[ScoredHypothesis | None] = [None] * len(hypotheses)
    valid: list[int] = []
    for k, (uid, ann) in enumerate(hypotheses):
        entry = table.entries.get(ann.text_key)
        if entry is None:
            out[k] = _error(uid, ann.text_key, _missing_reason(table, ann.text_key))
        elif not entry.references:
            out[k] = _error(uid, ann.text_key, "the table has no reference for this text")
        else:
            valid.append(k)
    if not valid:
        return out  # type: ignore[return-value]

    keys = [hypotheses[k][1].text_key for k in valid]
    used = list(dict.fromkeys(keys))
    slot = {key: n for n, key in enumerate(used)}
    ref_blocks = [table.entries[key].levels(labelset) for key in used]
    width = max(1, max(b.shape[1] for b in ref_blocks))
    counts_per_text = np.array([b.shape[0] for b in ref_blocks])
    offsets_per_text = np.concatenate([[0], np.cumsum(counts_per_text)[:-1]])
    refs = np.zeros((int(counts_per_text.sum()), width), dtype=np.int8)
    for off, b in zip(offsets_per_text, ref_blocks):
        refs[off : off + b.shape[0], : b.shape[1]] = b
    hyp_levels = _padded([hypotheses[k][1] for k in valid], labelset, width)

    text_of = np.array([slot[key] for key in keys])
    counts = counts_per_text[text_of]
    best = np.empty(len(valid))
    best_rank = np.empty(len(valid), dtype=np.int64)
    first_ref = np.empty(len(valid))
    start = 0
    while start < len(valid):  # chunks of hypotheses bound the memory of the pair arrays
        stop = start + 1
        budget = counts[start]
        while stop < len(valid) and budget + counts[stop] <= max_pairs:
            budget += counts[stop]
            stop += 1
        c = counts[start:stop]
        seg = np.concatenate([[0], np.cumsum(c)[:-1]])
        pair_h = np.repeat(np.arange(start, stop), c)
        local = np.arange(c.sum()) - np.repeat(seg, c)
        pair_r = np.repeat(offsets_per_text[text_of[start:stop]], c) + local
        scores = similarity.pairwise(hyp_levels[pair_h], refs[pair_r])
        top = np.maximum.reduceat(scores, seg)
        hits = np.flatnonzero(scores == np.repeat(top, c))
        best[start:stop] = top
        best_rank[start:stop] = local[hits[np.searchsorted(hits, seg)]]
        first_ref[start:stop] = scores[seg]  # rank 0: the most frequent reference
        start = stop

    if single is None:
        single_scores = first_ref
    else:
        single_scores = np.full(len(valid), np.nan)
        rows = [n for n, key in enumerate(keys) if key in single]
        if rows:
            given = _padded([single[keys[n]] for n in rows], labelset, width)
            single_scores[rows] = similarity.pairwise(hyp_levels[rows], given)

    for n, k in enumerate(valid):
        key = keys[n]
        ref = table.entries[key].ranked()[int(best_rank[n])]
        b, sc = float(best[n]), float(single_scores[n])
        has_single = not np.isnan(sc)
        out[k] = ScoredHypothesis(
            hypotheses[k][0],
            key,
            b,
            ref,
            b > theta,
            sc if has_single else None,
            (sc > theta) if has_single else None,
            int(counts[n]),
        )
    return out  # type: ignore[return-value]


def _padded(annotations: Sequence[Annotation], labelset, width: int) -> np.ndarray:
    arr = np.zeros((len(annotations), width), dtype=np.int8)
    for row, ann in enumerate(annotations):
        lv = ann.levels(labelset)[:-1]
        arr[row, : len(lv)] = lv
    return arr


def _error(uid: str, key: str, reason: str) -> ScoredHypothesis:
    return ScoredHypothesis(uid, key, None, None, None, None, None, 0, reason)


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
    from voxjudge.stats import AgreementUndefined, acceptance_table, agreement

    scored = [r for r in records if r.error is None]
    best = np.array([r.best_score for r in scored], dtype=float)
    single = np.array([r.single_score for r in scored if r.single_score is not None], dtype=float)
    summary: dict[str, Any] = {
        "n": len(scored),
        "n_errors": len(records) - len(scored),
        "similarity": similarity.name,
        "theta": theta,
        "normalization": TEXT_NORMALIZATION,
        "acceptance": _mean(best > theta),
        "single_acceptance": _mean(single > theta),
        "theta_sweep": [
            {"theta": round(float(t), 2), "acceptance": _mean(best > t), "single_acceptance": _mean(single > t)}
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
    for prefix, name, values in (
        ("", "multi-reference", [r.best_score for r in with_human]),
        ("single_", "single-reference", [r.single_score if r.single_score is not None else 0.0 for r in with_human]),
    ):
        try:
            res = agreement(
                values, groups, ("pearson", "spearman"), metric_name=name, n_resamples=n_resamples, seed=seed
            )
        except AgreementUndefined as e:
            if not prefix:
                raise
            # The baseline is a comparison column: without a correlation it shows why, not NaN.
            summary["single_agreement_undefined"] = str(e)
            continue
        summary[f"{prefix}pearson"] = res[0].as_dict()
        summary[f"{prefix}spearman"] = res[1].as_dict()
    return summary


def _mean(values: np.ndarray) -> float | None:
    return float(np.mean(values)) if len(values) else None
