"""``breaks score`` and ``breaks build-refs`` as one call each, for the command line and for
scripts alike: a reference table and hypothesis annotations in, an ``LmreResult`` out (records,
summary, settings); texts to annotate and a few-shot pool in, a built table out (``build_table``;
``build_estimate`` says what it would send)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from voxjudge.breaks.annotation import Annotation
from voxjudge.breaks.builder import BuildConfig, build_references, planned_build_requests, prepare_texts
from voxjudge.breaks.files import read_annotations, read_human_scores
from voxjudge.breaks.labels import LabelMap, LabelSet
from voxjudge.breaks.result import LmreResult, built, scored
from voxjudge.breaks.scorer import parse_metrics, score_hypotheses
from voxjudge.breaks.table import ReferenceTable


def score_breaks(
    refs: str | Path,
    hyps: str | Path,
    *,
    metric: str = "f1",
    theta: str | None = None,
    f1_mode: str = "typed",
    hierarchy: bool = False,
    labels: str | None = None,
    label_map: str | Path | None = None,
    fmt: str = "inline",
    single: str | Path | None = None,
    human: str | Path | None = None,
    human_col: str = "score",
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    allow_partial: bool = False,
) -> LmreResult:
    """Score the annotations in ``hyps`` against the reference table ``refs``.

    ``metric``: ``em``, ``f1``, ``consensus`` or a list (``em,f1,consensus``; the first decides
    ``score`` and ``accepted``); ``theta``: one threshold per metric or ``name=value`` pairs
    (defaults: ``DEFAULT_THETA``). ``labels``: a label set other than the table's; ``label_map``: a
    JSON map of other labels; ``fmt``: the convention of ``hyps`` and ``single``. ``single``: one
    annotation per text for the single-reference baseline (default: the table's most frequent
    reference). ``human``: id/score file (column ``human_col``) for agreement with bootstrap CIs;
    ``allow_partial``: human scores for only some hypotheses. Hypotheses that cannot be scored
    (text not in the table, other words) are records with their reason (``LmreResult.unscored``)."""
    table = ReferenceTable.load(refs, LabelSet.parse(labels) if labels else None)
    mapping = LabelMap.load(label_map) if label_map else None
    metrics = parse_metrics(metric, theta, f1_mode, hierarchy, len(table.labelset.labels))
    annotations = read_annotations(hyps, fmt=fmt, labelset=table.labelset, label_map=mapping)
    baseline = None
    if single:
        found = read_annotations(single, fmt=fmt, labelset=table.labelset, label_map=mapping, one_per_text=True)
        baseline = {a.text_key: a for _, a in found}
    scores = read_human_scores(human, human_col) if human else None
    thetas = [m.theta for m in metrics]
    records = score_hypotheses(table, annotations, [m.similarity for m in metrics], thetas, baseline)
    settings = {
        "refs": str(refs),
        "hyps": str(hyps),
        "metrics": [m.kind for m in metrics],
        "theta": {m.kind: m.theta for m in metrics},
        "f1": f1_mode,
        "hierarchy": hierarchy,
        "single": None if single is None else str(single),
        "human": None if human is None else str(human),
        "allow_partial": allow_partial,
    }
    return scored(
        records,
        settings,
        scores,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        allow_partial=allow_partial,
    )


def build_table(
    judge: Any,
    texts: Sequence[tuple[str, str]],
    pool: Sequence[Annotation],
    config: BuildConfig,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> LmreResult:
    """A reference table of valid phrasings for ``texts`` (``(id, text)``, as ``read_plain_texts``
    gives them), LMRE's builder: ``judge`` (a ``voxjudge.llm.Judge``) annotates each text
    ``config.n_iter`` times, few-shot prompted from the annotated ``pool``; phrasings seen at least
    ``config.min_count`` times are kept. The result's ``table`` is the built table, its summary the
    build's accounting (annotations not obtained and why, usage)."""
    table, report = judge.run(build_references(judge, texts, pool, config, LabelSet(), progress))
    return built(table, report, judge.meter.as_dict())


def build_estimate(
    judge: Any, texts: Sequence[tuple[str, str]], pool: Sequence[Annotation], config: BuildConfig
) -> dict[str, Any]:
    """What ``build_table`` would send in its first round: requests, tokens and cost, from the
    judge's price table; nothing is sent."""
    labelset = LabelSet()
    pinned = judge.capabilities.constrained
    return judge.estimate(planned_build_requests(prepare_texts(texts, labelset), pool, labelset, config, pinned))


__all__ = ["build_estimate", "build_table", "score_breaks"]
