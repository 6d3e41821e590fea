"""The LASER HTML report, a view of a LASER result: coverage first when partial, the summary,
the penalty by error type, LASER against WER per utterance, LASER and 1-WER against human scores,
every utterance's word pairs coloured by tier (a pair that matches apart from case or punctuation
has a colour of its own, and its cost, if any, in its title), and the inputs and settings with
every weight a penalty is made of."""

from __future__ import annotations

from html import escape
from typing import Any

from voxjudge.asr.laser.people import FITTED, LABEL
from voxjudge.asr.laser.scoring import UtteranceScore
from voxjudge.report import build_report, charts, figure, row, section, table
from voxjudge.report.document import Report
from voxjudge.report.html import correlation_text
from voxjudge.summaries import embedder_named

# A pair's style: its tier, or CASE_PUNCT for a "match" whose sides are written differently (case
# or punctuation): it may cost something (the default judge's graded part) and must not pass for
# an identical pair.
CASE_PUNCT = "case_punct"
COLORS = {
    "match": "#ffffff",
    CASE_PUNCT: "#dcebfa",
    "no_penalty": "#e3f2e1",
    "minor": "#fff1c2",
    "major": "#f9d0cc",
}
LEGEND = {CASE_PUNCT: "match apart from case or punctuation"}
BORDERS = {CASE_PUNCT: "1px dotted #1565c0"}


def pair_style(p) -> str:
    """The legend entry a pair is drawn under."""
    return CASE_PUNCT if p.label == "match" and p.ref != p.hyp else p.label


def _pairs_html(u: UtteranceScore) -> str:
    cells = []
    for p in u.pairs:
        style = pair_style(p)
        what = "case or punctuation" if style == CASE_PUNCT else p.error_type or ""
        cost = f" (penalty {p.penalty:.4g})" if p.penalty else ""
        title = escape(f"{'DISPUTED ' if p.disputed else ''}{p.label}: {what} {p.reason}".strip() + cost)
        # a model label the rules contest: dashed red
        border = "2px dashed #c62828" if p.disputed else BORDERS.get(style, "1px solid #ccc")
        cells.append(
            f'<span class="pair {style}" title="{title}" style="display:inline-block;margin:2px;padding:2px 4px;'
            f'background:{COLORS.get(style, "#eeeeee")};border:{border}">'
            f"{escape(p.ref or '∅')}<br>{escape(p.hyp or '∅')}</span>"
        )
    return "".join(cells)


def weights(
    judge: str | None, rubric: dict[str, Any] | None, calibration: str | None = None, sha256: str | None = None
) -> dict[str, Any]:
    """Every weight that decides a pair's penalty under ``judge``: the rubric's tiers and, for the
    offline judges, the evidence calibration (tier thresholds and tiers of speech phenomena) per
    language (``*``: every other); and, apart, the weights of ``laser_calibrated`` (fitted to
    people, never part of a penalty). ``rubric``: the summary's (name, sha256, tiers);
    ``calibration``, ``sha256``: the summary's (a file given to the run and its digest; no digest:
    the shipped one)."""
    from dataclasses import asdict

    from voxjudge.asr.laser.judges import is_offline

    rubric = rubric or {}
    out: dict[str, Any] = {"tiers": rubric.get("tiers")}
    if not is_offline(judge):
        out["penalties"] = "a model judge's pair costs its tier"
        return out
    from voxjudge.asr.laser.calibration_file import read_file, shipped_path
    from voxjudge.asr.laser.rubric import LaserRubric

    given = calibration if sha256 else None
    if judge == "rules" or (given is None and not shipped_path().is_file()):
        shipped = LaserRubric.load()
        if rubric.get("sha256") == shipped.sha256:
            out["calibration"] = {"*": asdict(shipped.conventions("*").calibration)}
        else:
            out["calibration"] = "the defaults, with the tiers of the rubric file's speech types"
        out["calibration_source"] = "the rubric's defaults"
    else:
        found = read_file(given)
        out["calibration"] = {lang: asdict(cal) for lang, cal in found.tiers.items()}
        out["calibration_source"] = f"learned from human judgments ({found.describe()})"
        if given and found.sha256 != sha256:
            out["calibration_source"] += ": the file changed after the run, these are its weights now"
        out["laser_calibrated (fitted to people, beside the score)"] = {
            key: model.as_dict() for key, model in found.people.items()
        }
    return out


def _penalty(v: float) -> str:
    return f"{v:.2f}" if not v or abs(v) >= 0.005 else "<0.01"


def _error_types(summary: dict[str, Any], utterances: list[UtteranceScore]) -> tuple[list[str], charts.Chart | None]:
    """The table of every type, and a chart of what the types cost (the penalty, not the count:
    a type that costs nothing is no big bar). Pairs that match apart from case or punctuation
    carry no error type; what they cost is a bar of its own."""
    types = summary["error_types"]
    rows = [[k, v["count"], _penalty(v["penalty"])] for k, v in types.items()]
    surface = [p for u in utterances for p in u.pairs if pair_style(p) == CASE_PUNCT]
    surface_cost = sum(p.penalty for p in surface)
    bars = [(k, v["penalty"], v["count"], charts.PALETTE[0]) for k, v in types.items() if v["penalty"] > 0]
    if surface_cost > 0:
        rows.append(["(case or punctuation, match)", len(surface), _penalty(surface_cost)])
        bars.append(("case or punctuation", surface_cost, len(surface), charts.PALETTE[7]))
    bars.sort(key=lambda b: (-b[1], b[0]))  # the costliest first
    free = [f"{k} ({v['count']})" for k, v in types.items() if v["penalty"] <= 0]
    table_html = table(["type", "pairs", "penalty"], rows)
    if not bars:
        return [table_html], None
    note = "Bars: the penalty of each type (pairs in brackets)."
    if free:
        note += " Types that cost nothing are not drawn: " + ", ".join(free) + "."
    chart = charts.hbars(
        "error-types",
        [b[0] for b in bars],
        [b[1] for b in bars],
        title="Penalty by error type",
        x_label="penalty (sum over pairs)",
        value_labels=[f"{_penalty(b[1])} ({b[2]})" for b in bars],
        colours=[b[3] for b in bars],
        note=note,
    )
    return [row(figure(chart), table_html)], chart


def _coverage(summary: dict[str, Any]) -> list[str]:
    """The coverage sentence of the table (``tally.coverage_text``), first in the page."""
    from voxjudge.asr.laser.tally import coverage_text

    text = coverage_text(summary)
    return [text] if text else []


def _beside(summary: dict[str, Any]) -> str:
    """The figures beside the rubric score, each under its own name: formatting (not in LASER),
    SemDist (with an embedder) and laser_calibrated (fitted to people, never the score itself)."""
    rate = summary.get("format_error_rate")
    heads = ["case/punctuation only (pairs)", "per reference word"]
    values: list[Any] = [summary.get("format_errors", 0), None if rate is None else round(rate, 4)]
    notes = [
        "case/punctuation only = pairs that are the same words but for case or punctuation: reported, not penalised"
    ]
    if summary.get("embedder", "none") != "none":
        heads.append("SemDist (mean)")
        values.append(summary.get("semdist"))
        embedder = embedder_named(summary)
        notes.append(f"SemDist = 1 - cosine of the sentence embeddings ({embedder}); 0 = the same meaning")
    if "laser_calibrated" in summary:
        heads.append(f"laser_calibrated (mean, {FITTED})")
        values.append(summary["laser_calibrated"])
        model = summary.get("laser_calibrated_model")
        notes.append(f"laser_calibrated = a figure fitted to human ratings and preferences: {model}")
    return section("Beside the score", table(heads, [values]), note="; ".join(notes))


def _utterance_columns(summary: dict[str, Any]) -> list[tuple[str, Any]]:
    """The per-utterance figures beside LASER that this run has, as (heading, getter)."""
    out: list[tuple[str, Any]] = []
    if "laser_calibrated" in summary:
        out.append((LABEL, lambda u: u.laser_calibrated))
    if summary.get("embedder", "none") != "none":
        out.append(("SemDist", lambda u: u.semdist))
    return out


def _figure(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


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
        ),
        _beside(summary),
    ]
    type_parts, chart = _error_types(summary, utterances)
    if chart is not None:
        drawn.append(chart)
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
        rows = [  # the figure fitted to people is named so, as in the text view
            [LABEL if name == "laser_calibrated" else name, *(correlation_text(c) for c in cs)]
            for name, cs in summary["agreement"].items()
        ]
        plots = []
        against = [
            ("laser-vs-human", "LASER vs human score", [u.laser for u in rated]),
            ("one-minus-wer-vs-human", "1 - WER vs human score", [1 - u.wer for u in rated]),
        ]
        if "laser_calibrated" in summary:
            ys = [u.laser_calibrated for u in rated]
            against.append(("calibrated-vs-human", f"{LABEL} vs human score", ys))
        for name, title, ys in against:
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
                row(*plots),
                note=f"over the {len(rated)} scored utterances with a human score",
            )
        )
    legend = " ".join(
        f'<span class="legend {k}" style="background:{c};border:{BORDERS.get(k, "1px solid #ccc")};padding:2px 6px">'
        f"{escape(LEGEND.get(k, k))}</span>"
        for k, c in COLORS.items()
    )
    extra = _utterance_columns(summary)
    rows = "".join(
        f"<tr><td>{escape(u.id)}</td><td class='num'>{_figure(u.laser)}</td>"
        + "".join(f"<td class='num'>{_figure(get(u))}</td>" for _, get in extra)
        + f"<td class='num'>{_figure(u.wer)}</td><td class='num'>{u.format_errors}</td>"
        f"<td style='text-align:left'>{_pairs_html(u)}</td></tr>"
        for u in utterances
    )
    heads = "".join(f"<th>{name}</th>" for name, _ in extra)
    parts.append(
        section(
            "Utterances (reference over hypothesis; hover for the reason)",
            f"<p>{legend}</p><div class='table-wrap'><table><thead><tr><th>id</th><th>LASER</th>{heads}<th>WER</th>"
            f"<th>case/punct.</th><th>pairs</th></tr></thead><tbody>{rows}</tbody></table></div>",
        )
    )
    return build_report(
        "ASR rubric scores (LASER)",
        "asr score",
        parts,
        charts=drawn,
        inputs=inputs or {},
        settings={
            **result.settings,
            "rubric": summary.get("rubric"),
            "weights": weights(
                result.settings.get("judge"),
                summary.get("rubric"),
                result.settings.get("calibration"),
                result.settings.get("calibration_sha256"),
            ),
            "bootstrap": summary.get("bootstrap"),
        },
        coverage=_coverage(summary),
    )
