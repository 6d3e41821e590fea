"""Two ASR systems on the same references: deltas, confusion pairs and significance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from voxjudge.asr.alignment import align
from voxjudge.asr.confusions import Confusions, confusion_pairs
from voxjudge.asr.measures import MetricsResult, Normalizer, compute_metrics
from voxjudge.asr.significance import MapssweResult, mapsswe
from voxjudge.asr.tokenize import Split
from voxjudge.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    BootstrapDifference,
    paired_bootstrap,
)
from voxjudge.summaries import is_figure

FEW_DIFFERING = 10  # differing utterances below which the tests' figures come with a caution


@dataclass
class Comparison:
    """System A against system B. Differences are A minus B (negative WER delta: A is better)."""

    a: MetricsResult
    b: MetricsResult
    wer_bootstrap: BootstrapDifference
    mapsswe: MapssweResult
    a_better: int
    b_better: int
    ties: int
    confusions_a: Confusions
    confusions_b: Confusions
    semdist_bootstrap: BootstrapDifference | None = None  # when an embedder was given

    def summary(self) -> dict:
        sa, sb = self.a.summary(), self.b.summary()
        keys = ("wer", "cer", "mer", "wil", "wip")
        return {
            "a": {k: sa[k] for k in (*keys, "hits", "substitutions", "deletions", "insertions")},
            "b": {k: sb[k] for k in (*keys, "hits", "substitutions", "deletions", "insertions")},
            "delta": {k: sa[k] - sb[k] for k in keys},
            "utterances": {
                "count": len(self.a.ids),
                "a_better": self.a_better,
                "b_better": self.b_better,
                "ties": self.ties,
            },
            "significance": {
                "mapsswe": self._mapsswe(),
                "paired_bootstrap_wer": self.wer_bootstrap.as_dict(),
                **({"caution": caution} if (caution := self.caution()) else {}),
            },
            "confusions": {"a": self.confusions_a.as_dict(), "b": self.confusions_b.as_dict()},
            **self._semdist(),
            # what every figure above was computed on: a WER is only comparable under one normalisation
            **{k: sa[k] for k in ("normalize", "split", "cer_unit") if k in sa},
        }

    def _mapsswe(self) -> dict:
        """The test's figures; when every segment differs alike there is no spread for the normal
        approximation (z infinite: null in JSON) and the p-value is the exact sign test's: ``test`` says which."""
        out = self.mapsswe.as_dict()
        out["test"] = "normal approximation" if is_figure(self.mapsswe.z) else "exact sign test"
        return out

    def caution(self) -> str | None:
        """What the tests cannot say on this few differing utterances, or None. Resampling a
        handful of utterances gives narrow intervals and tiny p-values that mean nothing (one
        utterance gave p < 0.0002); an exact sign test over the differing ones bounds what any
        test could claim."""
        differing = self.a_better + self.b_better
        if differing >= FEW_DIFFERING:
            return None
        floor = min(1.0, 2 * 0.5**differing) if differing else 1.0
        return (
            f"only {differing} utterance(s) differ between the systems: below {FEW_DIFFERING}, the bootstrap's "
            f"interval and p-value say little (an exact sign test on them could not go below p = {floor:.3g})"
        )

    def _semdist(self) -> dict:
        """SemDist of both systems (mean over utterances), its difference and the paired bootstrap of it."""
        if self.semdist_bootstrap is None:
            return {}
        boot = self.semdist_bootstrap
        return {
            "semdist": {
                "a": boot.a,
                "b": boot.b,
                "delta": boot.difference,
                "embedder": self.a.semdist.embedder,
                **({"embedder_server": server} if (server := self.a.semdist.server) is not None else {}),
            },
            "significance_semdist": {"paired_bootstrap_semdist": boot.as_dict()},
            # one embedding call served both systems: its usage, once
            "embedder_usage": dict(self.a.semdist.usage),
        }


def compare_systems(
    references: Sequence[str],
    hypotheses_a: Sequence[str],
    hypotheses_b: Sequence[str],
    ids: Sequence[str] | None = None,
    *,
    normalizer: Normalizer | None = None,
    split: Split = "unicode",
    char_unit: str = "char",
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    top: int = 10,
    embedder: str | None = None,
    embedder_base_url: str | None = None,
    embed_options=None,
    embed_progress=None,
) -> Comparison:
    """A against B (``Comparison``); with ``embedder`` (a spec, as ``compute_metrics`` takes it),
    SemDist of both, each distinct text embedded once, and a paired bootstrap of its difference."""
    from voxjudge.asr.semdist import semdist_embedder

    embedder = semdist_embedder(embedder, embedder_base_url)  # "none": no embedder; checked before any work
    if not (len(references) == len(hypotheses_a) == len(hypotheses_b)):
        raise ValueError("references and both hypothesis lists must have the same length")
    kw = dict(normalizer=normalizer, split=split, char_unit=char_unit)
    ma = compute_metrics(references, hypotheses_a, ids, **kw)  # type: ignore[arg-type]
    mb = compute_metrics(references, hypotheses_b, ids, **kw)  # type: ignore[arg-type]
    align_a = [align(r, h, split=split, normalizer=normalizer) for r, h in zip(references, hypotheses_a)]
    align_b = [align(r, h, split=split, normalizer=normalizer) for r, h in zip(references, hypotheses_b)]
    errors_a = [c.errors for c in ma.word]
    errors_b = [c.errors for c in mb.word]
    boot = paired_bootstrap(
        errors_a,
        errors_b,
        denominator=[c.ref_len for c in ma.word],
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )
    semdist_boot = None
    if embedder:
        from voxjudge.asr.semdist import compute_semdist

        ma.semdist, mb.semdist = compute_semdist(
            embedder,
            references,
            [hypotheses_a, hypotheses_b],
            ma.ids,
            base_url=embedder_base_url,
            options=embed_options,
            progress=embed_progress,
        )
        semdist_boot = paired_bootstrap(
            ma.semdist.distances, mb.semdist.distances, n_resamples=n_resamples, confidence=confidence, seed=seed
        )
    a_better = sum(x < y for x, y in zip(errors_a, errors_b))
    b_better = sum(x > y for x, y in zip(errors_a, errors_b))
    return Comparison(
        a=ma,
        b=mb,
        wer_bootstrap=boot,
        mapsswe=mapsswe(align_a, align_b),
        a_better=a_better,
        b_better=b_better,
        ties=len(errors_a) - a_better - b_better,
        confusions_a=confusion_pairs(align_a, top),
        confusions_b=confusion_pairs(align_b, top),
        semdist_bootstrap=semdist_boot,
    )
