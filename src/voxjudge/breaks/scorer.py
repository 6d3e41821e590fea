"""Scoring hypotheses against a reference table (multi-reference), beside a single reference.

One run scores every hypothesis under one or more metrics, each with its own threshold theta:

* ``em`` / ``f1``: the best similarity to any reference of the text (the paper's LMRE);
* ``consensus``: the count-weighted per-juncture agreement with all references of the text
  (see ``consensus``).

A hypothesis is accepted under a metric when its score exceeds theta. The single-reference
baseline scores the same metric against one reference per text: the table's most frequent one
(ties: the first seen), or the text's annotation in a given single-reference file. It *covers* the
hypotheses that have such a reference: all of them with the table's, those whose text is in the
file otherwise; every baseline number is computed over the covered hypotheses only. Hypotheses
whose text is not in the table, or whose words differ from it, are reported as errors and never
scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from voxjudge._gc import gc_paused
from voxjudge.breaks import consensus
from voxjudge.breaks.annotation import Annotation
from voxjudge.breaks.labels import LabelSet
from voxjudge.breaks.similarity import Similarity
from voxjudge.breaks.table import Reference, ReferenceTable
from voxjudge.errors import InputError

# consensus: chosen on the shipped examples (see README, "Which metric"); em/f1 as in the paper
DEFAULT_THETA = {"em": 0.5, "f1": 0.8, "consensus": 0.78}


@dataclass(frozen=True)
class Metric:
    """A similarity and its acceptance threshold."""

    similarity: Similarity
    theta: float

    @property
    def kind(self) -> str:
        return self.similarity.metric


def metrics_for(similarity: Similarity | Sequence[Similarity], theta: float | Sequence[float] | None) -> list[Metric]:
    """Pair similarities with thresholds (None: each metric's default)."""
    sims = [similarity] if isinstance(similarity, Similarity) else list(similarity)
    if not sims:
        raise InputError("choose at least one metric")
    kinds = [s.metric for s in sims]
    if len(set(kinds)) != len(kinds):
        raise InputError(f"each metric may be asked for once, got {', '.join(kinds)}")
    if theta is None:
        thetas = [DEFAULT_THETA[k] for k in kinds]
    elif isinstance(theta, (int, float)):
        thetas = [float(theta)] * len(sims)
    else:
        theta = list(theta)
        if len(theta) != len(sims):
            raise InputError(f"{len(theta)} thresholds for {len(sims)} metrics")
        thetas = [DEFAULT_THETA[k] if t is None else float(t) for k, t in zip(kinds, theta)]
    for k, t in zip(kinds, thetas):
        # scores lie in [0, 1]; outside it (or nan) every hypothesis is accepted, or none is
        if not 0 <= t <= 1:
            raise InputError(f"{{theta}} for {k} must be between 0 and 1, not {t!r}", options={"theta": "theta"})
    return [Metric(s, t) for s, t in zip(sims, thetas)]


_THETA = {"theta": "theta", "metric": "the metric list"}


def parse_metrics(
    metric_spec: str, theta_spec: str | None, f1_mode: str = "typed", hierarchy: bool = False, n_levels: int = 4
) -> list[Metric]:
    """Metrics from command-line text: ``em,f1,consensus``; thresholds as one value per metric in
    the same order (``0.5,0.8,0.78``), as ``name=value`` pairs (``consensus=0.75``; the others keep
    their defaults), or one bare value when one metric is asked for."""
    kinds = [k.strip() for k in metric_spec.split(",") if k.strip()]
    sims = [Similarity(k, f1_mode if k != "em" else "typed", hierarchy, n_levels) for k in kinds]
    if theta_spec is None:
        return metrics_for(sims, None)
    parts = [p.strip() for p in theta_spec.split(",") if p.strip()]
    named = all("=" in p for p in parts)
    if not named and (any("=" in p for p in parts) or len(parts) != len(kinds)):
        raise InputError(
            f"{{theta}} {theta_spec!r}: give one value per metric ({len(kinds)}: {', '.join(kinds)}) "
            "or name=value pairs such as f1=0.8",
            options=_THETA,
        )
    try:  # numbers only here: metrics_for's own InputError is a ValueError too
        if not named:
            values = [float(p) for p in parts]
        else:
            given = {name.strip(): float(value) for name, value in (p.split("=", 1) for p in parts)}
    except ValueError:
        raise InputError(f"{{theta}} {theta_spec!r}: thresholds must be numbers", options=_THETA) from None
    if not named:
        return metrics_for(sims, values)
    unknown = sorted(set(given) - set(kinds))
    if unknown:
        raise InputError(f"{{theta}} names {', '.join(unknown)}, which {{metric}} does not ask for", options=_THETA)
    return metrics_for(sims, [given.get(k) for k in kinds])


@dataclass(slots=True)
class MetricScore:
    score: float
    accepted: bool
    single_score: float | None  # None: no single reference for this text
    single_accepted: bool | None
    best: Reference | None = None  # em/f1: the best-matching reference (ties: the more frequent)
    agreement: np.ndarray | None = None  # consensus: the agreement at each compared juncture


@dataclass(slots=True)
class ScoredHypothesis:
    id: str
    text: str
    n_references: int
    metrics: tuple[Metric, ...]  # shared by every record of a run
    scores: tuple[MetricScore | None, ...]  # one per metric; None when the hypothesis was not scored
    hypothesis: Annotation | None = None
    error: str | None = None
    labelset: LabelSet | None = None  # the table's (shared): how the hypothesis is written out

    @property
    def primary(self) -> MetricScore | None:
        """The first metric asked for: it decides ``score`` and ``accepted``."""
        return self.scores[0] if self.scores else None

    @property
    def score(self) -> float | None:
        return None if self.primary is None else self.primary.score

    @property
    def accepted(self) -> bool | None:
        return None if self.primary is None else self.primary.accepted

    @property
    def single_score(self) -> float | None:
        return None if self.primary is None else self.primary.single_score

    @property
    def single_accepted(self) -> bool | None:
        return None if self.primary is None else self.primary.single_accepted

    @property
    def best_score(self) -> float | None:
        """The primary metric's best score over the references (em/f1; consensus has none)."""
        return None if self.best is None else self.score

    @property
    def best(self) -> Reference | None:
        """The primary metric's best-matching reference (em/f1; None for consensus): every
        unprefixed field belongs to the first metric, other metrics' are prefixed."""
        return None if self.primary is None else self.primary.best

    @property
    def best_reference(self) -> str | None:
        """The best-matching reference, inline (built on demand: most callers need only scores)."""
        best = self.best
        return None if best is None else best.inline()

    def as_dict(self) -> dict[str, Any]:
        """Flat record: the first metric's fields unprefixed (``best_score``/``best_reference`` are
        None when it is consensus), then every metric's prefixed by its name (``f1_score``,
        ``f1_best_reference``, ``consensus_agreement``, ...) with its similarity and theta."""
        first = self.metrics[0] if self.metrics else None
        out: dict[str, Any] = {
            "id": self.id,
            "text": self.text,
            "hypothesis": None if self.hypothesis is None else self.hypothesis.inline(self.labelset),
            "similarity": None if first is None else first.similarity.name,
            "theta": None if first is None else first.theta,
            "score": self.score,
            "accepted": self.accepted,
            "best_score": self.best_score,
            "best_reference": self.best_reference,
            "single_score": self.single_score,
            "single_accepted": self.single_accepted,
            "n_references": self.n_references,
            "error": self.error,
        }
        for m, s in zip(self.metrics, self.scores):
            k = m.kind
            out[f"{k}_similarity"] = m.similarity.name
            out[f"{k}_theta"] = m.theta
            out[f"{k}_score"] = None if s is None else s.score
            out[f"{k}_accepted"] = None if s is None else s.accepted
            out[f"{k}_single_score"] = None if s is None else s.single_score
            out[f"{k}_single_accepted"] = None if s is None else s.single_accepted
            if k != "consensus":  # em/f1 name the reference that gives their score
                out[f"{k}_best_score"] = None if s is None or s.best is None else s.score
                out[f"{k}_best_reference"] = None if s is None or s.best is None else s.best.inline()
            if k == "consensus":
                out["consensus_agreement"] = (
                    None if s is None or s.agreement is None else [round(float(a), 4) for a in s.agreement]
                )
        return out


def score_hypotheses(
    table: ReferenceTable,
    hypotheses: Sequence[tuple[str, Annotation]],
    similarity: Similarity | Sequence[Similarity],
    theta: float | Sequence[float] | None = None,
    single: dict[str, Annotation] | None = None,
    *,
    max_pairs: int = 1_000_000,
) -> list[ScoredHypothesis]:
    """One record per hypothesis, in input order, scored under every given similarity (the first
    decides ``score`` and ``accepted``). ``theta``: one for all, one per similarity, or None for
    the defaults. ``single``: single-reference annotations by text key (default: the table's most
    frequent reference of each text)."""
    metrics = tuple(metrics_for(similarity, theta))
    with gc_paused():
        return _score(table, hypotheses, metrics, single, max_pairs)


@dataclass
class _Layout:
    """Every text's references and every scorable hypothesis as zero-padded level arrays (padding
    is "no boundary": it changes no em/f1 score and is left out of consensus means)."""

    refs: np.ndarray  # all references, rows grouped by text, most frequent first
    weights: np.ndarray  # each reference row's count
    offsets: np.ndarray  # first row of each text
    counts: np.ndarray  # references per text
    hyps: np.ndarray  # scorable hypotheses
    text_of: np.ndarray  # each hypothesis's text
    n_junctures: np.ndarray  # compared junctures of each hypothesis
    single: np.ndarray  # each hypothesis's single reference
    has_single: np.ndarray  # whether it has one


def _layout(table, annotations, keys, single) -> _Layout:
    labelset = table.labelset
    used = list(dict.fromkeys(keys))
    slot = {key: n for n, key in enumerate(used)}
    entries = [table.entries[key] for key in used]
    blocks = [e.levels(labelset) for e in entries]
    width = max(1, max(b.shape[1] for b in blocks))
    counts = np.array([b.shape[0] for b in blocks])
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    refs = np.zeros((int(counts.sum()), width), dtype=np.int8)
    for off, b in zip(offsets, blocks):
        refs[off : off + b.shape[0], : b.shape[1]] = b
    weights = np.array([r.count for e in entries for r in e.ranked()], dtype=float)
    text_of = np.array([slot[key] for key in keys])
    hyps = _padded(annotations, labelset, width)
    if single is None:
        single_levels, has_single = refs[offsets[text_of]], np.ones(len(keys), dtype=bool)
    else:
        has_single = np.array([key in single for key in keys], dtype=bool)
        single_levels = np.zeros_like(hyps)
        rows = np.flatnonzero(has_single)
        if len(rows):
            single_levels[rows] = _padded([single[keys[n]] for n in rows], labelset, width)
    n_junctures = np.array([len(a.words) - 1 for a in annotations])
    return _Layout(refs, weights, offsets, counts, hyps, text_of, n_junctures, single_levels, has_single)


def _score(
    table: ReferenceTable,
    hypotheses: Sequence[tuple[str, Annotation]],
    metrics: tuple[Metric, ...],
    single: dict[str, Annotation] | None,
    max_pairs: int,
) -> list[ScoredHypothesis]:
    not_scored = (None,) * len(metrics)
    out: list[ScoredHypothesis | None] = [None] * len(hypotheses)
    valid: list[int] = []
    for k, (uid, ann) in enumerate(hypotheses):
        entry = table.entries.get(ann.text_key)
        reason = None
        if entry is None:
            reason = _missing_reason(table, ann.text_key)
        elif not entry.references:
            reason = "the table has no reference for this text"
        if reason is None:
            valid.append(k)
        else:
            out[k] = ScoredHypothesis(uid, ann.text_key, 0, metrics, not_scored, ann, reason, table.labelset)
    if not valid:
        return out  # type: ignore[return-value]

    keys = [hypotheses[k][1].text_key for k in valid]
    lay = _layout(table, [hypotheses[k][1] for k in valid], keys, single)
    ranked = [table.entries[key].ranked() for key in keys] if any(m.kind != "consensus" for m in metrics) else []
    columns = [_metric_scores(m, lay, max_pairs, ranked) for m in metrics]
    counts = lay.counts[lay.text_of].tolist()
    labelset = table.labelset
    for n, (k, key, scores) in enumerate(zip(valid, keys, zip(*columns))):
        uid, ann = hypotheses[k]
        out[k] = ScoredHypothesis(uid, key, counts[n], metrics, scores, ann, None, labelset)
    return out  # type: ignore[return-value]


def _metric_scores(metric: Metric, lay: _Layout, max_pairs: int, ranked: list[list[Reference]]) -> list[MetricScore]:
    sim, theta = metric.similarity, metric.theta
    agreement = None
    if sim.metric == "consensus":
        support = consensus.support_table(lay.refs, lay.offsets, lay.counts, lay.weights, sim)
        agreement = consensus.agreement_with_table(lay.hyps, lay.text_of, support)
        scores = consensus.mean_agreement(agreement, lay.n_junctures)
        one = consensus.agreement_with_one(lay.hyps, lay.single, sim)
        single_scores = consensus.mean_agreement(one, lay.n_junctures)
        best_rank = None
    else:
        scores, best_rank = _best_match(sim, lay, max_pairs)
        single_scores = sim.pairwise(lay.hyps, lay.single)
    single_scores = np.where(lay.has_single, single_scores, np.nan)
    # plain Python values once, not numpy scalars per record (this runs once per hypothesis)
    score_list, single_list = scores.tolist(), single_scores.tolist()
    accepted, single_accepted = (scores > theta).tolist(), (single_scores > theta).tolist()
    has_single = lay.has_single.tolist()
    if best_rank is not None:
        bests = [refs[r] for refs, r in zip(ranked, best_rank.tolist())]
        return [
            MetricScore(s, a, ss if h else None, sa if h else None, b)
            for s, a, ss, sa, h, b in zip(score_list, accepted, single_list, single_accepted, has_single, bests)
        ]
    rows = [agreement[n, :j] for n, j in enumerate(lay.n_junctures.tolist())]  # type: ignore[index]
    return [
        MetricScore(s, a, ss if h else None, sa if h else None, None, g)
        for s, a, ss, sa, h, g in zip(score_list, accepted, single_list, single_accepted, has_single, rows)
    ]


def _best_match(sim: Similarity, lay: _Layout, max_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """Best score over the text's references and the rank of the reference that gives it (ties:
    the more frequent). All (hypothesis, reference) pairs are gathered and scored in a few
    vectorised passes; chunks of hypotheses bound the memory of the pair arrays."""
    counts = lay.counts[lay.text_of]
    n = len(counts)
    best = np.empty(n)
    best_rank = np.empty(n, dtype=np.int64)
    start = 0
    while start < n:
        stop = start + 1
        budget = counts[start]
        while stop < n and budget + counts[stop] <= max_pairs:
            budget += counts[stop]
            stop += 1
        c = counts[start:stop]
        seg = np.concatenate([[0], np.cumsum(c)[:-1]])
        pair_h = np.repeat(np.arange(start, stop), c)
        local = np.arange(c.sum()) - np.repeat(seg, c)
        pair_r = np.repeat(lay.offsets[lay.text_of[start:stop]], c) + local
        scores = sim.pairwise(lay.hyps[pair_h], lay.refs[pair_r])
        top = np.maximum.reduceat(scores, seg)
        hits = np.flatnonzero(scores == np.repeat(top, c))
        best[start:stop] = top
        best_rank[start:stop] = local[hits[np.searchsorted(hits, seg)]]
        start = stop
    return best, best_rank


def _padded(annotations: Sequence[Annotation], labelset, width: int) -> np.ndarray:
    arr = np.zeros((len(annotations), width), dtype=np.int8)
    for row, ann in enumerate(annotations):
        lv = ann.levels(labelset)[:-1]
        arr[row, : len(lv)] = lv
    return arr


def _missing_reason(table: ReferenceTable, key: str) -> str:
    """Say whether the words were changed (a near-identical text exists) or the text is unknown."""
    from rapidfuzz import fuzz, process

    match = process.extractOne(key, table.entries.keys(), scorer=fuzz.ratio, score_cutoff=80)
    if match is not None:
        return f"words differ from the table text {match[0]!r}"
    return "text not in the reference table"
