"""LASER scoring as one call: ``run_laser(references, hypotheses, ids, judge=..., options=...)``.

The judge is a spec: an offline judge (``default``, ``rules``, ``model:PATH``) labels pairs in
this process; an LLM spec (``openai/<model>``, ``fake/<script>`` ...) is built here from
``options.llm`` (a ``JudgeOptions``: cache, limits, retries, engine) and closed when the run
ends, or the caller passes a ready ``Judge`` (and closes it). Everything a run needs is in
``LaserOptions``; the answer is a ``LaserResult`` -- for a dry run, one whose ``estimate`` says
what an LLM run would send and cost, with nothing scored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from voxjudge.asr.laser.result import LaserResult, laser_result
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.llm.options import JudgeOptions

# progress("what is being done") -> a context yielding update(done, total) or None
Progress = Callable[[str], AbstractContextManager]


@dataclass(frozen=True)
class LaserOptions:
    lang: str | None = None  # None: detected per utterance from the script
    rubric: LaserRubric | None = None  # None: the shipped LASER rubric
    allow_rubric_mismatch: bool = False  # use a learned model trained under another rubric
    # LLM judges only
    mode: str = "pairs"  # pairs | sentence
    batch_size: int = 32  # pairs per request (pairs mode)
    prefilter: bool = True  # pairs the rules settle with certainty never reach the model
    dry_run: bool = False  # estimate requests, tokens and cost; send nothing
    llm: JudgeOptions = field(default_factory=JudgeOptions)
    # the bootstrap CIs of the agreement with human scores
    n_resamples: int = 10_000
    confidence: float = 0.95
    seed: int = 0


def _no_progress(_what: str) -> AbstractContextManager:
    return nullcontext(None)


def run_laser(
    references: Sequence[str],
    hypotheses: Sequence[str],
    ids: Sequence[str] | None = None,
    *,
    judge: Any = "default",
    options: LaserOptions | None = None,
    human: dict[str, float] | None = None,
    progress: Progress | None = None,
) -> LaserResult:
    """LASER for a corpus: per-utterance scores, the summary, and the agreement with ``human``
    scores by id when given. ``judge``: a spec string or a ``voxjudge.llm.Judge``."""
    from voxjudge.asr.laser.judges import is_offline, offline_labeler

    options = options or LaserOptions()
    progress = progress or _no_progress
    rubric = options.rubric or LaserRubric.load()
    ids = list(ids) if ids is not None else [str(k + 1) for k in range(len(references))]
    boot = {"n_resamples": options.n_resamples, "confidence": options.confidence, "seed": options.seed}
    spec = judge if isinstance(judge, str) else judge.spec.full_name
    settings: dict[str, Any] = {"judge": spec, "mode": "pairs", "lang": options.lang}
    if isinstance(judge, str) and is_offline(judge):
        from voxjudge.asr.laser.scoring import score

        labeler, _ = offline_labeler(judge, rubric, allow_rubric_mismatch=options.allow_rubric_mismatch)
        with progress(f"labelling word pairs ({judge})") as update:
            utterances = score(
                references, hypotheses, ids, lang=options.lang, rubric=rubric, labeler=labeler, progress=update
            )
        return laser_result(utterances, rubric, settings, {}, human=human, **boot)
    owned = isinstance(judge, str)
    llm = options.llm.judge(judge, dry_run=options.dry_run) if owned else judge
    # the model-judged run, its dry run and its recorded settings use the same options
    llm_options = {"mode": options.mode, "batch_size": options.batch_size, "prefilter": options.prefilter}
    try:
        if options.dry_run:
            from voxjudge.asr.laser.llm_judges import planned_laser_requests

            requests = planned_laser_requests(references, hypotheses, ids, rubric, lang=options.lang, **llm_options)
            return LaserResult(settings, [], {}, estimate=llm.estimate(requests))
        from voxjudge.asr.laser.llm_judges import score_with_llm

        settings.update(judge=llm.spec.full_name, **llm_options)
        with progress(f"asking {llm.spec.name}") as update:
            utterances, extra = llm.run(
                score_with_llm(
                    llm, references, hypotheses, ids, rubric, lang=options.lang, progress=update, **llm_options
                )
            )
        extra["usage"] = llm.meter.as_dict()
    finally:
        if owned:
            llm.close()
    return laser_result(utterances, rubric, settings, extra, human=human, **boot)
