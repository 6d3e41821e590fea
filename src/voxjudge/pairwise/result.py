"""One result object per pairwise command: what was run (settings), the records it stands on, and
the summary computed from them. The terminal table, ``--json`` and any report are views of it, so
they cannot disagree.

``judged`` (``pairwise judge``), ``analysed`` (``analyze``), ``compared`` (``compare``) and
``selected`` (``select``) build them; none calls a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voxjudge.pairwise.analysis import accuracy_report, check_coverage, compare_judges, correctness, select_weights
from voxjudge.pairwise.data import CandidateSet, Pair
from voxjudge.pairwise.protocol import aggregate
from voxjudge.pairwise.rubric import Rubric
from voxjudge.pairwise.tournament import Selection, hit_rates
from voxjudge.pairwise.winrates import win_rates
from voxjudge.plural import counted


@dataclass
class PairwiseResult:
    kind: str  # "judge", "analyze", "compare" or "select"
    settings: dict[str, Any]
    records: list[dict[str, Any]]
    summary: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "settings": self.settings, "summary": self.summary, "records": self.records}

    def view(self) -> dict[str, Any]:
        """What ``--json`` prints: ``partial`` first (true when the judgments cover only part of
        the pairs or some failed), then the summary (its keys at the top, as before) and the settings."""
        return {"partial": self.partial, **self.summary, "settings": self.settings}

    @property
    def partial(self) -> bool:
        s = self.summary
        covers = [s] if "pairs_in_file" in s else [s[k] for k in ("coverage_a", "coverage_b") if k in s]
        return any(c["missing_pairs"] or c["unknown_pairs"] for c in covers) or bool(s.get("n_failed"))

    @classmethod
    def from_view(cls, kind: str, view: dict[str, Any], records: Sequence[dict[str, Any]] = ()) -> PairwiseResult:
        """The result back from its ``--json`` view (records come from the records file)."""
        summary = {k: v for k, v in view.items() if k != "settings"}
        return cls(kind, dict(view.get("settings") or {}), list(records), summary)


def t_stat_undefined(report: dict[str, Any]) -> str:
    """Why ``analyze``'s position-bias t statistic is undefined, in words."""
    if not report.get("n_bias_pairs", report["n_pairs"]) and report.get("n_one_order_pairs"):
        return "no pair judged in both orders"
    if report.get("delta_pos") is None:
        return "no scored judgment"
    if report.get("n_bias_pairs", report["n_pairs"]) < 2:
        return "needs two pairs judged in both orders"
    return "every pair has the same slot difference"


def bias_left_out(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(row, value) for what the position bias left out: ties and pairs judged in one order."""
    rows = []
    if report.get("n_slot_ties"):
        rows.append(("judgments tied between the slots (left out of the share above)", str(report["n_slot_ties"])))
    if report.get("n_one_order_pairs"):
        rows.append(("pairs left out of the position bias (one order judged)", str(report["n_one_order_pairs"])))
    return rows


def coverage_lines(cover: dict[str, Any], source: str) -> list[str]:
    """A partial coverage of the pairs file in words, before any number (nothing when full)."""
    missing, unknown = cover["missing_pairs"], cover["unknown_pairs"]
    lines = []
    if missing:
        lines.append(
            f"partial: {source} judges {cover['pairs_judged']} of the {cover['pairs_in_file']} pairs of the pairs "
            f"file ({100 * cover['coverage']:.2f}%); every number covers only those {cover['pairs_judged']}"
        )
    if unknown:
        lines.append(f"{source}: {counted(len(unknown), 'judged pair')} not in the pairs file ignored")
    return lines


def _rubric_settings(rubric: Rubric) -> dict[str, Any]:
    return {"rubric": rubric.name, "rubric_sha256": rubric.sha256, "dimensions": rubric.ids, "weights": rubric.weights}


def judged(
    records: Sequence[dict[str, Any]],
    pairs: Sequence[Pair],
    rubric: Rubric,
    settings: dict[str, Any],
    *,
    usage: dict[str, Any] | None = None,
    stopped: str | None = None,
    engine: str = "local",
) -> PairwiseResult:
    """``pairwise judge``: the judgment records, and how many failed (no usable answer, whatever
    the cause) or abstained (on a dimension the judge measures), the pairs decided without rating
    (``flagged``: one clip holds no speech), with the model usage and the reason a run stopped early;
    per pair (``pairs``) the winner of each measured dimension, the weighted verdict and whether
    the two orders agree, with their counts; ``engine``: where the judging ran ("local", "ray")."""
    from voxjudge.pairwise.pairtable import pair_rows, verdict_counts

    results = aggregate(records, rubric)
    rows = pair_rows(records, rubric)
    failed = [r for r in records if r["error"]]
    flagged: dict[str, str] = {}
    for r in records:
        if r.get("flag"):
            flagged.setdefault(r["pair_id"], r["flag"])
    summary: dict[str, Any] = {
        "n_pairs": len(pairs),
        "n_judgments": len(records),
        "n_failed": len(failed),
        "n_abstained": sum(r.n_abstentions for r in results.values()),
        "first_failure": {"pair_id": failed[0]["pair_id"], "error": failed[0]["error"]} if failed else None,
        "flagged": [{"pair_id": pid, "flag": why} for pid, why in flagged.items()],
        "stopped": stopped,
        "engine": engine,
        **verdict_counts(rows),
        "pairs": rows,
    }
    if usage is not None:
        summary["usage"] = {**usage, "failures": len(failed)}
    return PairwiseResult("judge", {**_rubric_settings(rubric), **settings}, list(records), summary)


def analysed(
    records: Sequence[dict[str, Any]],
    pairs: Sequence[Pair],
    rubric: Rubric,
    *,
    allow_partial: bool = False,
    source: str = "judgments",
    weights: dict[str, Any] | None = None,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairwiseResult:
    """``pairwise analyze``: accuracy against the human labels (with a percentile bootstrap CI over
    the labelled pairs), position bias and sampling gain over the judgments of the file's pairs,
    and, labels or not, the win rates of the systems that made the clips (``win_rates``, with
    intervals from the same seeded resamples of the pairs); with ``weights`` (``val_fraction``,
    ``seed``), the V_w weights picked on a validation split."""
    report = accuracy_report(records, pairs, rubric, allow_partial=allow_partial, source=source)
    known = {p.pair_id for p in pairs}
    used = [r for r in records if r["pair_id"] in known]
    judged_ids = {r["pair_id"] for r in used}
    right = correctness(used, [p for p in pairs if p.pair_id in judged_ids], rubric)
    report["accuracy_ci"] = accuracy_interval(list(right.values()), n_resamples, confidence, seed)
    verdicts = {pid: res.overall for pid, res in aggregate(used, rubric).items()}
    report["win_rates"] = win_rates(verdicts, pairs, n_resamples=n_resamples, confidence=confidence, seed=seed)
    if weights is not None:
        report["weight_selection"] = select_weights(
            used, pairs, rubric, val_fraction=weights["val_fraction"], seed=weights["seed"]
        )
    settings = {
        **_rubric_settings(rubric),
        "judgments": source,
        "allow_partial": allow_partial,
        "select_weights": weights,
        "bootstrap": {"resamples": n_resamples, "seed": seed, "confidence": confidence},
    }
    return PairwiseResult("analyze", settings, used, report)


def accuracy_interval(correct: Sequence[bool], n_resamples: int, confidence: float, seed: int) -> dict[str, Any]:
    """Percentile bootstrap CI of an accuracy, resampling the items (pairs); None bounds without items."""
    import numpy as np

    from voxjudge.stats import resample_chunks

    out: dict[str, Any] = {"low": None, "high": None, "confidence": confidence}
    if not correct:
        return out
    values = np.asarray(correct, dtype=float)
    means = np.concatenate([values[idx].mean(axis=1) for idx in resample_chunks(len(values), n_resamples, seed)])
    alpha = (1 - confidence) / 2
    out["low"], out["high"] = (float(v) for v in np.quantile(means, [alpha, 1 - alpha]))
    return out


def compared(
    records_a: Sequence[dict[str, Any]],
    records_b: Sequence[dict[str, Any]],
    pairs: Sequence[Pair],
    rubric: Rubric,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    allow_partial: bool = False,
    sources: tuple[str, str] = ("judgments A", "judgments B"),
) -> PairwiseResult:
    """``pairwise compare``: the paired bootstrap of the accuracy difference; one record per
    labelled pair both judged, saying whether each judge got it right."""
    summary = compare_judges(
        records_a,
        records_b,
        pairs,
        rubric,
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        allow_partial=allow_partial,
        sources=sources,
    )
    used_a, _ = check_coverage(records_a, pairs, source=sources[0], allow_partial=True)
    used_b, _ = check_coverage(records_b, pairs, source=sources[1], allow_partial=True)
    judged_a, judged_b = {r["pair_id"] for r in used_a}, {r["pair_id"] for r in used_b}
    labelled = [p for p in pairs if "overall" in p.human and p.pair_id in judged_a and p.pair_id in judged_b]
    ca, cb = correctness(used_a, labelled, rubric), correctness(used_b, labelled, rubric)
    rows = [
        {"pair_id": p.pair_id, "human": p.human["overall"], "correct_a": ca[p.pair_id], "correct_b": cb[p.pair_id]}
        for p in labelled
    ]
    settings = {
        **_rubric_settings(rubric),
        "judgments_a": sources[0],
        "judgments_b": sources[1],
        "allow_partial": allow_partial,
        "bootstrap": {"resamples": n_resamples, "seed": seed, "confidence": confidence},
    }
    return PairwiseResult("compare", settings, rows, summary)


def selected(
    selections: Sequence[Selection],
    sets: Sequence[CandidateSet],
    rubric: Rubric,
    settings: dict[str, Any],
    judgments: Sequence[dict[str, Any]],
    *,
    stopped: str | None = None,
) -> PairwiseResult:
    """``pairwise select``: one record per candidate set (its winner, wins and margins) and Hit@k
    against the human top-k."""
    rows = [
        {**s.as_dict(), "winner_path": None if s.winner is None else str(cs.candidates[s.winner])}
        for s, cs in zip(selections, sets)
    ]
    failed = [r for r in judgments if r["error"]]
    summary = {
        **hit_rates(selections, sets),
        "n_judgments": len(judgments),
        "n_failed": len(failed),
        "first_failure": {"pair_id": failed[0]["pair_id"], "error": failed[0]["error"]} if failed else None,
        "stopped": stopped,
    }
    return PairwiseResult("select", {**_rubric_settings(rubric), **settings}, rows, {**summary, "selections": rows})


__all__ = [
    "PairwiseResult",
    "accuracy_interval",
    "analysed",
    "bias_left_out",
    "compared",
    "coverage_lines",
    "judged",
    "selected",
    "t_stat_undefined",
]
