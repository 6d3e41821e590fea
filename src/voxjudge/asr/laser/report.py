"""The LASER HTML report, a view of a LASER result: coverage first when partial, the summary,
the error-type breakdown, LASER against WER per utterance, LASER and 1-WER against human scores,
every utterance's word pairs coloured by tier, and the inputs and settings."""

from __future__ import annotations

from html import escape
from typing import Any

from voxjudge.asr.laser.scoring import UtteranceScore
from voxjudge.report import build_report, charts, figure, section, table
from voxjudge.report.document import Report
from voxjudge.report.html import correlation_text

COLORS = {"match": "#ffffff", "no_penalty": "#e3f2e1", "minor": "#fff1c2", "major": "#f9d0cc"}


def _pairs_html(u: UtteranceScore) -> str:
    cells = []
    for p in u.pairs:
        title = escape(f"{'DISPUTED ' if p.disputed else ''}{p.label}: {p.error_type or ''} {p.reason}".strip())
        border = "2px dashed #c62828" if p.disputed else "1px solid #ccc"  # a model label the rules contest
        cells.append(
            f'<span title="{title}" style="display:inline-block;margin:2px;padding:2px 4px;'
            f'background:{COLORS.get(p.label, "#eeeeee")};border:{border}">'
            f"{escape(p.ref or '∅')}<br>{escape(p.hyp or '∅')}</span>"
        )
    return "".join(cells)


def _coverage(summary: dict[str, Any]) -> list[str]:
    """The coverage sentence of the table (``tally.coverage_text``), first in the page."""
    from voxjudge.asr.laser.tally import coverage_text

    text = coverage_text(summary)
    return [text] if text else []


def laser_report(result, inputs: dict[str, Any] | None = None) -> Report:
    """The report of a LASER result (``voxjudge.asr.laser.result.LaserResult``): its summary,
    per-utterance values and, with human scores, the agreement. ``inputs``: the files by role
    (``ref``, ``hyp``, ``human``), named with sizes and hashes."""
    summary, utterances, human = result.summary, result.utterances, result.human
    drawn: list[charts.Chart] = []
    scored_utts = [u for u in utterances if u.laser is not None and u.wer is not None]
    parts = [
        section(
            "Summary",
            table(
                ["LASER micro", "LASER macro", "WER %", "no penalty", "minor", "major", "unscored", "disputed"],
                [
                    [
                        summary["laser_micro"],
                        summary["laser_macro"],
                        None if summary["wer"] is None else round(100 * summary["wer"], 2),
                        summary["labels"]["no_penalty"],
                        summary["labels"]["minor"],
                        summary["labels"]["major"],
                        summary["n_unscored"],
                        summary.get("disputed", 0),
                    ]
                ],
            ),
            note=f"judge {summary['judge']}, rubric {summary['rubric']['name']} {summary['rubric']['sha256']}; "
            "micro = 1 - total penalty / total reference words; macro = mean of utterance scores; WER = corpus "
            f"word edits / reference words on {summary['wer_tokens']}; disputed = "
            "model labels that contradict a confident rule or the pair's operation (dashed red border)",
        )
    ]
    types = summary["error_types"]
    type_parts = [table(["type", "count", "penalty"], [[k, v["count"], v["penalty"]] for k, v in types.items()])]
    if types:
        chart = charts.hbars(
            "error-types", list(types), [v["count"] for v in types.values()], title="Error types", x_label="pairs"
        )
        drawn.append(chart)
        type_parts.insert(0, figure(chart))
    parts.append(section("Error types", *type_parts))
    if scored_utts:
        chart = charts.scatter(
            "laser-vs-wer",
            [u.wer for u in scored_utts],
            [u.laser for u in scored_utts],
            title="LASER vs WER per utterance",
            x_label="WER",
            y_label="LASER",
        )
        drawn.append(chart)
        parts.append(section("LASER against WER", figure(chart)))
    if human and summary.get("agreement"):
        rated = [u for u in scored_utts if u.id in human]
        rows = [[name, *(correlation_text(c) for c in cs)] for name, cs in summary["agreement"].items()]
        plots = []
        for name, title, ys in (
            ("laser-vs-human", "LASER vs human score", [u.laser for u in rated]),
            ("one-minus-wer-vs-human", "1 - WER vs human score", [1 - u.wer for u in rated]),
        ):
            chart = charts.scatter(
                name,
                [human[u.id] for u in rated],
                ys,
                title=title,
                x_label="human score",
                y_label=title.split(" vs ")[0],
            )
            drawn.append(chart)
            plots.append(figure(chart))
        parts.append(
            section(
                "Agreement with human scores",
                table(["metric", "pearson", "spearman", "kendall"], rows),
                *plots,
                note=f"over the {len(rated)} scored utterances with a human score",
            )
        )
    legend = " ".join(
        f'<span style="background:{c};border:1px solid #ccc;padding:2px 6px">{k}</span>' for k, c in COLORS.items()
    )
    rows = "".join(
        f"<tr><td>{escape(u.id)}</td><td class='num'>{'–' if u.laser is None else f'{u.laser:.3f}'}</td>"
        f"<td class='num'>{'–' if u.wer is None else f'{u.wer:.3f}'}</td>"
        f"<td style='text-align:left'>{_pairs_html(u)}</td></tr>"
        for u in utterances
    )
    parts.append(
        section(
            "Utterances (reference over hypothesis; hover for the reason)",
            f"<p>{legend}</p><div class='table-wrap'><table><thead><tr><th>id</th><th>LASER</th><th>WER</th>"
            f"<th>pairs</th></tr></thead><tbody>{rows}</tbody></table></div>",
        )
    )
    return build_report(
        "ASR rubric scores (LASER)",
        "asr score",
        parts,
        charts=drawn,
        inputs=inputs or {},
        settings={**result.settings, "rubric": summary.get("rubric"), "bootstrap": summary.get("bootstrap")},
        coverage=_coverage(summary),
    )
