"""One result object per LASER run: what was run (settings), the per-utterance records, and the
summary computed from them. The command line's table, its JSON and record files, and the HTML
report are views of it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from voxjudge.asr.laser.record_json import run_fields
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.scoring import UtteranceScore, agreement, summarize


@dataclass
class LaserResult:
    """What one LASER run gives (``run_laser``, ``score_files``): what was run, each utterance's
    scores, and the corpus summary computed from them.

    - ``settings``: what was run: ``judge``, ``mode``, ``lang`` and ``lang_decided`` (how the
      language was decided), ``engine``, ``embedder`` (``"none"`` without one) and, for the
      ``default`` and ``model:`` judges, ``calibration`` and ``laser_calibrated_model``.
    - ``utterances``: one ``UtteranceScore`` per utterance, in input order. Empty for a dry run,
      and for an offline judge's run that did not keep them (``run_laser(keep_utterances=False)``;
      ``score_files`` keeps them only when a report or figures are asked for): the records then
      went only to ``out``, and the summary is all there is.
    - ``summary``: the corpus figures (``n``, ``n_unscored``, ``laser_micro``, ``laser_macro``,
      ``wer``, ``labels``, ``error_types``, ``coverage`` ...), the settings again, an LLM judge's
      accounting (``llm``, ``usage``, ``stopped``) and, given human scores, ``agreement``
      (Pearson, Spearman and Kendall with bootstrap CIs for ``laser``, ``laser_calibrated``,
      ``one_minus_wer`` ...) and ``bootstrap``. Empty for a dry run.
    - ``human``: the human scores by id the run was given (None: none).
    - ``estimate``: a dry run's answer, what the run would send and cost; None for a real run.

    ``records`` gives the utterances as the per-utterance records are written, ``unscored`` how
    many utterances have no score, ``stopped`` why an LLM judge's run stopped early (None: it did
    not), and ``as_dict()`` the whole result as JSON-ready data.
    """

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
        """One record per kept utterance (``UtteranceScore.as_dict``), naming the run's judge and embedder."""
        run = self.run
        return [u.as_dict(run) for u in self.utterances]

    @property
    def unscored(self) -> int:
        """Utterances with no LASER score (an empty reference, or no valid answer from an LLM judge);
        0 for a dry run, which scores nothing."""
        return int(self.summary.get("n_unscored", 0))

    @property
    def stopped(self) -> str | None:
        """Why an LLM judge's run stopped early (e.g. its ``max_cost`` was reached); None: it did not."""
        return self.summary.get("stopped")

    def as_dict(self) -> dict[str, Any]:
        """``settings``, ``summary`` and ``records`` as one JSON-ready dict."""
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
