"""One result object per LMRE command: what was run (settings), the records, and the summary
computed from them. ``breaks build-refs`` and ``breaks score`` return one; the terminal table,
``--json`` and the HTML report are views of it, so they cannot disagree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from voxjudge.breaks.builder import BuildReport
from voxjudge.breaks.scorer import ScoredHypothesis
from voxjudge.breaks.summary import summarize
from voxjudge.breaks.table import ReferenceTable


@dataclass
class LmreResult:
    kind: str  # "build" or "score"
    settings: dict[str, Any]
    records: list[dict[str, Any]]
    summary: dict[str, Any]
    table: ReferenceTable | None = field(default=None, repr=False)  # build: the table to save
    scored: list[ScoredHypothesis] = field(default_factory=list, repr=False)  # score: for the report
    human: dict[str, float] | None = field(default=None, repr=False)

    @property
    def unscored(self) -> int:
        # a score summary counts them under "coverage"; a build summary at the top level
        cover = self.summary.get("coverage")
        return int((cover if isinstance(cover, dict) else self.summary).get("unscored", 0))

    @property
    def stopped(self) -> str | None:
        return self.summary.get("stopped")

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "settings": self.settings, "summary": self.summary, "records": self.records}

    def view(self) -> dict[str, Any]:
        """What ``--json`` prints: the summary (its keys at the top, as before) with the settings."""
        return {**self.summary, "settings": self.settings}


def built(table: ReferenceTable, report: BuildReport, usage: dict[str, Any] | None = None) -> LmreResult:
    """``breaks build-refs``: the table's entries as records (what is saved), the build's
    accounting as the summary (unscored annotations and why, kept references, usage)."""
    summary = {k: v for k, v in report.as_dict().items() if k != "settings"}
    reasons = dict(report.dropped)
    not_asked = report.unscored - sum(reasons.values())
    if not_asked:
        reasons["not asked"] = not_asked
    summary["unscored_reasons"] = reasons
    summary["annotations_wanted"] = report.texts * report.iterations
    if usage is not None:
        summary["usage"] = usage
    return LmreResult("build", dict(report.settings), list(table.records()), summary, table=table)


def scored(
    records: Sequence[ScoredHypothesis],
    settings: dict[str, Any],
    human: dict[str, float] | None = None,
    *,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    allow_partial: bool = False,
) -> LmreResult:
    """``breaks score``: one record per hypothesis and the summary computed from them (coverage
    first, acceptance, and with human scores, agreement with bootstrap CIs). ``allow_partial``:
    human scores for only some hypotheses are used for those (``voxjudge.io.join``)."""
    summary = summarize(
        records,
        human,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        allow_partial=allow_partial,
        human_name=str(settings.get("human") or "the human file"),
        hyp_name=str(settings.get("hyps") or "the run"),
    )
    summary["bootstrap"] = {"resamples": n_resamples, "confidence": confidence, "seed": seed}
    return LmreResult(
        "score", dict(settings), [r.as_dict() for r in records], summary, scored=list(records), human=human
    )


__all__ = ["LmreResult", "built", "scored"]
