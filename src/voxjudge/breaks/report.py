"""The LMRE HTML report, a view of a ``breaks score`` result: coverage first when partial, every
metric asked for, multi-reference beside the single-reference baseline (acceptance, correlations
with human scores, acceptance by human-score group), a score-vs-human scatter per metric, the
theta sweep, the hypotheses (sortable, filterable, with the consensus agreement under the words),
the hypotheses that could not be scored, and the inputs and settings."""

from __future__ import annotations

from typing import Any

from voxjudge.breaks.report_items import hypothesis_table
from voxjudge.breaks.result import LmreResult
from voxjudge.breaks.summary import coverage_lines
from voxjudge.report import build_report, charts, figure, section, table
from voxjudge.report.document import Report
from voxjudge.report.html import correlation_text


def _level(summary: dict[str, Any]) -> str:
    return f"{100 * (summary.get('bootstrap') or {}).get('confidence', 0.95):g}%"


def _summary_section(summary: dict[str, Any]) -> str:
    cover = summary["coverage"]
    rated = cover.get("rated")
    rows = []
    for m in summary["metrics"].values():
        rows.append(
            [m["similarity"], "multi", summary["n"], rated, f"> {m['theta']:g}", m["acceptance"],
             correlation_text(m["pearson"] or {}), correlation_text(m["spearman"] or {})]
        )  # fmt: skip
        rows.append(
            ["", "single", summary["single_n"], None, "", m["single_acceptance"],
             correlation_text(m["single_pearson"] or {}), correlation_text(m["single_spearman"] or {})]
        )  # fmt: skip
    level = _level(summary)
    head = ["metric", "references", "n scored", "n with human score", "theta", "acceptance"]
    head += [f"Pearson ({level} CI)", f"Spearman ({level} CI)"]
    covers = cover["covers"]
    note = (
        f"acceptance covers {covers['acceptance']}"
        + (f"; correlations cover {covers['agreement']}" if "agreement" in covers else "")
        + "; accepted when score > theta (em/f1: best score over the text's references; consensus: "
        f"count-weighted per-juncture agreement with all of them); the single reference covers "
        f"{summary['single_covers']}"
    )
    # a metric without correlations says why, as in the terminal
    note += "".join(f"; {m['similarity']}: {m['agreement_undefined']}" for m in summary["metrics"].values()
                    if m.get("agreement_undefined"))  # fmt: skip
    return section("Summary", table(head, rows), note=note)


def _groups_section(summary: dict[str, Any]) -> tuple[str, charts.Chart] | None:
    metrics = summary["metrics"]
    first = next(iter(metrics.values()), None)
    if not first or not first.get("acceptance_by_group"):
        return None
    labels = [_group(g["group"]) for g in first["acceptance_by_group"] if g["group"] != "all"]
    series: dict[str, list[float | None]] = {}
    intervals: dict[str, list[tuple[float, float] | None]] = {}
    for name, m in metrics.items():
        rows = [g for g in m["acceptance_by_group"] if g["group"] != "all"]
        series[f"{name} multi"] = [g["rate"] for g in rows]
        intervals[f"{name} multi"] = [(g["ci_low"], g["ci_high"]) for g in rows]
        series[f"{name} single"] = [g["single_rate"] for g in rows]
    level = _level(summary)
    head = ["human score", "n", "n single"]
    for name in metrics:
        head += [f"{name} multi", f"{level} CI", f"{name} single"]
    body = []
    for k, g in enumerate(first["acceptance_by_group"]):
        row = [_group(g["group"]), g["n"], g["single_n"]]
        for m in metrics.values():
            r = m["acceptance_by_group"][k]
            row += [r["rate"], f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]", r["single_rate"]]
        body.append(row)
    chart = charts.grouped_bars(
        "acceptance-by-human-score",
        labels,
        series,
        intervals=intervals,
        title="Acceptance rate per human-score group",
        x_label="human score",
        y_label="accepted",
    )
    note = f"error bars: {level} bootstrap CI of the multi-reference rate"
    return section("Acceptance by human score", figure(chart), table(head, body), note=note), chart


def _group(value: Any) -> str:
    return f"{value:.0f}" if isinstance(value, float) and value.is_integer() else str(value)


def lmre_report(result: LmreResult) -> Report:
    """The report of a ``breaks score`` result (``voxjudge.breaks.result.scored``)."""
    summary, records, human = result.summary, result.scored, result.human
    parts = [_summary_section(summary)]
    drawn: list[charts.Chart] = []
    groups = _groups_section(summary)
    if groups:
        parts.append(groups[0])
        drawn.append(groups[1])
    scored = [r for r in records if r.error is None]
    if human and scored:
        plots = []
        with_human = [r for r in scored if r.id in human]
        for k, metric in enumerate(scored[0].metrics):
            chart = charts.scatter(
                f"{metric.kind}-vs-human",
                [human[r.id] for r in with_human],
                [r.scores[k].score for r in with_human],
                title=f"{metric.similarity.name} (multi-reference) vs human score",
                x_label="human score",
                y_label=metric.similarity.name,
                jitter=0.12,
            )
            drawn.append(chart)
            plots.append(figure(chart))
        parts.append(section("Scores against human scores", *plots))
    names = list(summary["metrics"])
    sweeps = [m["theta_sweep"] for m in summary["metrics"].values()]
    if sweeps:
        head = ["theta"] + [f"{n} {ref}" for n in names for ref in ("multi", "single")]
        body = [
            [row["theta"], *(v for s in sweeps for v in (s[i]["acceptance"], s[i]["single_acceptance"]))]
            for i, row in enumerate(sweeps[0])
        ]
        sweep = charts.lines(
            "theta-sweep",
            [row["theta"] for row in sweeps[0]],
            {f"{n} {ref}": [r[key] for r in s] for n, s in zip(names, sweeps)
             for ref, key in (("multi", "acceptance"), ("single", "single_acceptance"))},
            title="Acceptance as theta varies",
            x_label="theta (accepted when score > theta)",
            y_label="accepted",
            marker_x=summary["theta"] if len(names) == 1 else None,
        )  # fmt: skip
        drawn.append(sweep)
        parts.append(section("Theta sweep (acceptance)", figure(sweep), table(head, body)))
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
    s = result.settings
    return build_report(
        "Phrase-break evaluation (LMRE)",
        "breaks score",
        parts,
        charts=drawn,
        inputs={"refs": s.get("refs"), "hyps": s.get("hyps"), "single": s.get("single"), "human": s.get("human")},
        settings={**s, "bootstrap": summary.get("bootstrap"), "normalization": summary.get("normalization")},
        coverage=coverage_lines(summary["coverage"]),
    )
