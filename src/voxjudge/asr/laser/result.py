"""One result object per LASER run: what was run (settings), the per-utterance records, and the
summary computed from them. The table, ``--json``, ``--out`` and the HTML report are views of it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from voxjudge.asr.laser.record_json import run_fields
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.scoring import UtteranceScore, agreement, summarize


@dataclass
class LaserResult:
    settings: dict[str, Any]
    utterances: list[UtteranceScore]
    summary: dict[str, Any]
    human: dict[str, float] | None = field(default=None, repr=False)
    estimate: dict[str, Any] | None = None  # a dry run: what the run would send and cost

    @property
    def run(self) -> dict[str, str]:
        """The judge and embedder of the run, and the calibration file given (its sha256; none: the
        shipped one), as every record names them."""
        return run_fields(self.settings)

    @property
    def records(self) -> list[dict[str, Any]]:
        run = self.run
        return [u.as_dict(run) for u in self.utterances]

    @property
    def unscored(self) -> int:
        return int(self.summary["n_unscored"])

    @property
    def stopped(self) -> str | None:
        return self.summary.get("stopped")

    def as_dict(self) -> dict[str, Any]:
        return {"settings": self.settings, "summary": self.summary, "records": self.records}


def laser_result(
    utterances: Sequence[UtteranceScore],
    rubric: LaserRubric,
    settings: dict[str, Any],
    llm: dict[str, Any] | None = None,
    *,
    human: dict[str, float] | None = None,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    summary: dict[str, Any] | None = None,
    figures: Sequence[Any] | None = None,
    allow_partial: bool = False,
) -> LaserResult:
    """The summary of scored utterances (with the LLM run's accounting and, given human scores,
    the agreement with them), kept with the settings that produced it. A streamed run passes its
    tallied ``summary`` and, for the agreement, per-utterance ``figures`` (id, laser, wer,
    laser_calibrated, semdist)."""
    summary = {**(summary if summary is not None else summarize(utterances, rubric)), **settings, **(llm or {})}
    if human is not None:
        summary["agreement"], joined = agreement(
            figures if figures is not None else utterances,
            human,
            allow_partial=allow_partial,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        )
        coverage = summary["coverage"] = dict(summary["coverage"])
        coverage["human"] = joined
        coverage["rated"] = joined["matched"]
        coverage["covers"] = {
            **coverage["covers"],
            "agreement": f"{joined['matched']} of {coverage['utterances']} utterances (scored, with a human score)",
        }
        summary["bootstrap"] = {"resamples": n_resamples, "confidence": confidence, "seed": seed}
    return LaserResult(dict(settings), list(utterances), summary, human)
