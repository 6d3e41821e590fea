"""The LMRE HTML report: every metric asked for, multi-reference beside the single-reference
baseline (acceptance, correlations with human scores, acceptance by human-score group), a
score-vs-human scatter per metric, the theta sweep, the hypotheses (sortable, filterable, with the
consensus agreement under the words) and the hypotheses that could not be scored."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from voxjudge.breaks.report_items import hypothesis_table
from voxjudge.breaks.scorer import ScoredHypothesis
from voxjudge.report import grouped_bars, page, scatter, section, table


def _corr(c: dict[str, Any] | None) -> str:
    if not c:
        return "–"
    return f"{c['estimate']:.3f} [{c['ci_low']:.3f}, {c['ci_high']:.3f}]"


def _summary_section(summary: dict[str, Any]) -> str:
    rows = []
    for m in summary["metrics"].values():
        rows.append(
            [m["similarity"], "multi", summary["n"], f"> {m['theta']:g}", m["acceptance"],
             _corr(m["pearson"]), _corr(m["spearman"])]
        )  # fmt: skip
        rows.append(
            ["", "single", summary["single_n"], "", m["single_acceptance"],
             _corr(m["single_pearson"]), _corr(m["single_spearman"])]
        )  # fmt: skip
    return section(
        "Summary",
        table(["metric", "references", "n", "theta", "acceptance", "Pearson (95% CI)", "Spearman (95% CI)"], rows),
        note=f"accepted when score > theta (em/f1: best score over the text's references; consensus: "
        f"count-weighted per-juncture agreement with all of them); the single reference covers "
        f"{summary['single_covers']}; {summary['n_errors']} hypotheses could not be scored",
    )


def _groups_section(summary: dict[str, Any]) -> str | None:
    metrics = summary["metrics"]
    first = next(iter(metrics.values()), None)
    if not first or not first.get("acceptance_by_group"):
        return None
    labels = [str(g["group"]) for g in first["acceptance_by_group"] if g["group"] != "all"]
    series: dict[str, list[float | None]] = {}
    for name, m in metrics.items():
        rows = [g for g in m["acceptance_by_group"] if g["group"] != "all"]
        series[f"{name} multi"] = [g["rate"] for g in rows]
        series[f"{name} single"] = [g["single_rate"] for g in rows]
    head = ["human score", "n", "n single"]
    for name in metrics:
        head += [f"{name} multi", "95% CI", f"{name} single"]
    body = []
    for k, g in enumerate(first["acceptance_by_group"]):
        row = [g["group"], g["n"], g["single_n"]]
        for m in metrics.values():
            r = m["acceptance_by_group"][k]
            row += [r["rate"], f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]", r["single_rate"]]
        body.append(row)
    chart = grouped_bars(
        labels,
        series,
        title="Acceptance rate per human-score group",
        x_label="human score",
        y_label="accepted",
    )
    return section("Acceptance by human score", chart, table(head, body))


def lmre_report(summary: dict[str, Any], records: Sequence[ScoredHypothesis], human: dict[str, float] | None) -> str:
    parts = [_summary_section(summary)]
    groups = _groups_section(summary)
    if groups:
        parts.append(groups)
    scored = [r for r in records if r.error is None]
    if human and scored:
        plots = []
        for k, metric in enumerate(scored[0].metrics):
            with_human = [r for r in scored if r.id in human]
            plots.append(
                scatter(
                    [human[r.id] for r in with_human],
                    [r.scores[k].score for r in with_human],
                    title=f"{metric.similarity.name} (multi-reference) vs human score",
                    x_label="human score",
                    y_label=metric.similarity.name,
                    jitter=0.12,
                )
            )
        parts.append(section("Scores against human scores", *plots))
    names = list(summary["metrics"])
    sweeps = [m["theta_sweep"] for m in summary["metrics"].values()]
    if sweeps:
        head = ["theta"] + [f"{n} {ref}" for n in names for ref in ("multi", "single")]
        body = [
            [row["theta"], *(v for s in sweeps for v in (s[i]["acceptance"], s[i]["single_acceptance"]))]
            for i, row in enumerate(sweeps[0])
        ]
        parts.append(section("Theta sweep (acceptance)", table(head, body)))
    parts.append(
        section(
            "Hypotheses",
            hypothesis_table(records, human),
            note="the strip under the words (consensus only): the share of the text's reference mass that "
            "makes the same decision at the juncture after each word; hover for the value",
        )
    )
    errors = [r for r in records if r.error is not None]
    if errors:
        parts.append(
            section("Not scored", table(["id", "text", "reason"], [[r.id, r.text, r.error] for r in errors[:200]]))
        )
    return page("Phrase-break evaluation (LMRE)", *parts, subtitle="Generated by voxjudge breaks score")
