"""One library call for each judging command: ``judge_pairs`` (``pairwise judge``) and
``select_among`` (``pairwise select``). Each runs its judge over the inputs, on the judge's own
engine (a model judge's runner, Ray, or a local event loop), and returns the summarised result."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from voxjudge.pairwise.data import CandidateSet, Pair
from voxjudge.pairwise.judges import judge_settings
from voxjudge.pairwise.protocol import run_judgments
from voxjudge.pairwise.result import PairwiseResult, judged, selected
from voxjudge.pairwise.rubric import Rubric
from voxjudge.pairwise.tournament import select_best

Progress = Callable[[int, int], None]


def judge_pairs(
    pairs: Sequence[Pair],
    judge: Any,
    rubric: Rubric,
    samples: int = 10,
    *,
    seed: int = 0,
    progress: Progress | None = None,
) -> PairwiseResult:
    """Every pair judged ``samples`` times over both orders (``run_judgments``), then summarised
    (``pairwise.result.judged``): the records, failures, abstentions, pairs decided without rating,
    the model usage, why a run stopped early, and where it ran."""
    llm = _model(judge)
    records = _run(run_judgments(pairs, judge, rubric, samples, progress), llm)
    return judged(
        records,
        pairs,
        rubric,
        judge_settings(judge, rubric, samples, seed),
        usage=llm.meter.as_dict() if llm else None,
        stopped=llm.stop_reason if llm else None,
        engine=getattr(judge, "engine", "local"),
    )


def select_among(
    sets: Sequence[CandidateSet],
    judge: Any,
    rubric: Rubric,
    samples: int = 10,
    *,
    seed: int = 0,
    progress: Progress | None = None,
) -> tuple[PairwiseResult, list[dict[str, Any]]]:
    """The best candidate of each set by round robin (``select_best``), summarised
    (``pairwise.result.selected``), and the judgment records it made."""
    llm = _model(judge)
    selections, records = _run(select_best(sets, judge, rubric, samples, progress), llm)
    settings = judge_settings(judge, rubric, samples, seed)
    return selected(selections, sets, rubric, settings, records, stopped=llm.stop_reason if llm else None), records


def _model(judge: Any):
    """The model judge behind an ``LLMPairJudge`` (its runner, meter and stop reason), else None."""
    return getattr(judge, "llm", None)


def _run(coro, llm):
    return llm.run(coro) if llm is not None else asyncio.run(coro)
