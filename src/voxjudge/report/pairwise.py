"""HTML reports of the pairwise commands, views of their ``PairwiseResult``: ``analyze``
(accuracy against people, by dimension, position bias), ``compare`` (two judges, paired
bootstrap, per-pair correctness) and ``select`` (winners, wins per candidate, Hit@k). Coverage
comes first when the judgments cover only part of the pairs or some judgments failed."""

from __future__ import annotations

from typing import Any

from voxjudge.pairwise.result import PairwiseResult, bias_left_out, coverage_lines, t_stat_undefined
from voxjudge.plural import counted
from voxjudge.report import build_report, charts, figure, section, table
from voxjudge.report.document import Report


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.2f}%"


def _num(v: float | None) -> str:
    return "–" if v is None else f"{v:+.3f}"


def _win_rate_sections(w: dict[str, Any] | None) -> tuple[list[Any], list[Any]]:
    """The win rate per system (chart with intervals, table) and the head-to-head table."""
    if not w or not w["systems"]:
        return [], []
    level = f"{100 * w['confidence']:g}%"
    systems = w["systems"]
    chart = charts.grouped_bars(
        "win-rates",
        [r["system"] for r in systems],
        {"win rate": [r["win_rate"] for r in systems]},
        intervals={"win rate": [(r["ci_low"], r["ci_high"]) if r["ci_low"] is not None else None for r in systems]},
        title="Win rate per system (ties count half)",
        x_label="system",
        y_label="win rate",
        reference=("even", 0.5),
    )
    head = ["pairs", "wins", "ties", "losses", "abstained", "win rate", f"{level} CI"]

    def cells(r: dict[str, Any]) -> list[Any]:
        ci = f"[{_pct(r['ci_low'])}, {_pct(r['ci_high'])}]"
        return [r["pairs"], r["wins"], r["ties"], r["losses"], r["abstained"], _pct(r["win_rate"]), ci]

    note = f"error bars: {level} bootstrap intervals, {w['n_resamples']} resamples of the pairs (seed {w['seed']})"
    if w["same_system_pairs"]:
        note += f"; {w['same_system_pairs']} pairs of a system against itself left out"
    parts = [section("Win rates", figure(chart), table(["system", *head], [[r["system"], *cells(r)] for r in systems]),
                     note=note)]  # fmt: skip
    if len(systems) > 2:
        rows = [[r["system"], r["opponent"], *cells(r)] for r in w["head_to_head"]]
        parts.append(section("Head to head", table(["system", "opponent", *head], rows),
                             note="the win rate of the first system against the second"))  # fmt: skip
    return parts, [chart]


def _t_stat(s: dict[str, Any]) -> str:
    """The t statistic, or why it is undefined (as the terminal table says it)."""
    return _num(s["t_stat"]) if s["t_stat"] is not None else f"– ({t_stat_undefined(s)})"


def analysis_report(result: PairwiseResult, inputs: dict[str, Any]) -> Report:
    s = result.summary
    ci = s.get("accuracy_ci") or {}
    level = f"{100 * ci['confidence']:g}%" if ci.get("confidence") is not None else "–"
    labelled = s["n_labelled"] > 0
    rows = []
    if labelled:
        rows += [
            ["accuracy (aggregated, ties are errors)", _pct(s["accuracy"])],
            [f"accuracy, {level} bootstrap CI over pairs", f"[{_pct(ci.get('low'))}, {_pct(ci.get('high'))}]"],
            ["accuracy, one call in presented order", _pct(s["single_sample_accuracy"])],
        ]
    if s.get("n_confident"):
        rows.append(["agreement on confident pair-dimensions", _pct(s["confident_agreement"])])
    rows += [
        ["pairs with non-unanimous core verdicts", s["non_unanimous_pairs"]],
        ["Δpos (second slot - first slot)", _num(s["delta_pos"])],
        ["judgments favouring the second slot", _pct(s["second_slot_rate"])],
        ["t statistic (pair-level slot difference)", _t_stat(s)],
        *(list(row) for row in bias_left_out(s)),
        ["abstained (judgment, dimension) cells", s["n_abstained"]],
    ]
    dims = {d: v for d, v in s["accuracy_by_dimension"].items() if v is not None}
    unmeasured = f"; not measured by this judge: {', '.join(s['not_measured'])}" if s.get("not_measured") else ""
    no_labels = "; no human labels: no accuracy, the win rates come from the judge's verdicts" if not labelled else ""
    parts = [
        section(
            "Summary",
            table(["measure", "value"], rows),
            note=f"{s['n_pairs']} pairs judged, {s['n_labelled']} with a human overall label, "
            f"{s['n_judgments']} judgments{unmeasured}{no_labels}",
        )
    ]
    drawn = []
    if dims:
        by_dim = charts.grouped_bars(
            "accuracy-by-dimension",
            list(dims),
            {"accuracy against human labels": list(dims.values())},
            title="Accuracy by dimension",
            x_label="dimension",
            y_label="accuracy",
            reference=("overall accuracy", s["accuracy"]) if s["accuracy"] is not None else None,
        )
        parts.append(
            section("Accuracy by dimension", figure(by_dim), table(list(dims), [[_pct(v) for v in dims.values()]]))
        )
        drawn.append(by_dim)
    if labelled:
        gain = charts.grouped_bars(
            "sampling-gain",
            ["one call, presented order", "all samples, both orders"],
            {"accuracy": [s["single_sample_accuracy"], s["aggregated_accuracy"]]},
            intervals={"accuracy": [None, (ci["low"], ci["high"]) if ci.get("low") is not None else None]},
            title="What sampling both orders buys",
            x_label="",
            y_label="accuracy",
        )
        parts.append(section("Sampling gain", figure(gain), note=f"error bar: {level} bootstrap CI over pairs"))
        drawn.append(gain)
    wins, win_charts = _win_rate_sections(s.get("win_rates"))
    parts += wins
    drawn += win_charts
    w = s.get("weight_selection")
    if w:
        parts.append(
            section(
                "Weights of the weighted verdict",
                table(
                    ["weights", "validation", "test", "test (uniform weights)"],
                    [
                        [
                            str(w["weights"]),
                            _pct(w["validation_accuracy"]),
                            _pct(w["test_accuracy"]),
                            _pct(w["test_accuracy_uniform"]),
                        ]
                    ],
                ),  # fmt: skip
                note=f"{w['validation_pairs']} validation and {w['test_pairs']} test pairs",
            )
        )
    if s.get("missing_pairs"):
        parts.append(section("Pairs without a judgment", table(["pair_id"], [[p] for p in s["missing_pairs"][:500]])))
    return build_report(
        "Pairwise judge against human labels" if labelled else "Pairwise judge: win rates and position bias",
        "pairwise analyze",
        parts,
        charts=drawn,
        inputs=inputs,
        settings=result.settings,
        coverage=coverage_lines(s, result.settings.get("judgments", "judgments")),
    )


def comparison_report(result: PairwiseResult, inputs: dict[str, Any]) -> Report:
    s, st = result.summary, result.settings
    a, b = st.get("judgments_a", "A"), st.get("judgments_b", "B")
    level = f"{100 * s['confidence']:g}%"
    chart = charts.grouped_bars(
        "accuracy-a-vs-b",
        ["A", "B"],
        {"accuracy on the pairs both judged": [s["accuracy_a"], s["accuracy_b"]]},
        title="Accuracy of the two judges",
        x_label="judge",
        y_label="accuracy",
    )
    diff = (
        f"{100 * s['difference']:+.2f} pts, {level} CI [{100 * s['ci_low']:+.2f}, {100 * s['ci_high']:+.2f}] "
        f"({s['n_resamples']} paired resamples of pair indices, seed {s['seed']})"
    )
    rows = [[r["pair_id"], r["human"], "yes" if r["correct_a"] else "no", "yes" if r["correct_b"] else "no"]
            for r in result.records]  # fmt: skip
    parts = [
        section(
            "Summary",
            table(
                ["judge", "judgments", "accuracy"], [["A", a, _pct(s["accuracy_a"])], ["B", b, _pct(s["accuracy_b"])]]
            ),
            table(["difference (A - B)"], [[diff]]),
            figure(chart),
            note=f"over the {s['n_pairs']} labelled pairs both judged",
        ),
        section("Per pair", table(["pair_id", "human", "A right", "B right"], rows)),
    ]
    lines = coverage_lines(s["coverage_a"], a) + coverage_lines(s["coverage_b"], b)
    return build_report(
        "Two pairwise judges compared",
        "pairwise compare",
        parts,
        charts=[chart],
        inputs=inputs,
        settings=st,
        coverage=lines,
    )


def selection_report(result: PairwiseResult, inputs: dict[str, Any]) -> Report:
    s = result.summary
    rows = [[r["set_id"], "no winner" if r["winner"] is None else r["winner"], r["winner_path"] or "",
             " ".join(str(w) for w in r["wins"]), " ".join(f"{m:+.2f}" for m in r["margins"])]
            for r in s["selections"]]  # fmt: skip
    drawn = []
    ks = [k for k in (1, 2, 3) if s.get(f"hit@{k}") is not None]
    parts = [section("Winners", table(["set", "winner", "path", "wins per candidate", "margins"], rows))]
    if s.get("n_rated") and ks:
        chart = charts.grouped_bars(
            "hit-at-k",
            [f"Hit@{k}" for k in ks],
            {"judge": [s[f"hit@{k}"] for k in ks], "random choice": [s.get(f"random@{k}") for k in ks]},
            title="Hit@k against the human top-k",
            x_label="",
            y_label="share of sets",
        )
        drawn.append(chart)
        parts.append(section("Hit@k", figure(chart), note=f"over the {s['n_rated']} sets with a human top-k"))
    most = max((len(r["wins"]) for r in s["selections"]), default=0)
    if s["selections"] and most <= 10:
        wins = charts.grouped_bars(
            "wins-per-candidate",
            [r["set_id"] for r in s["selections"]],
            {f"candidate {i}": [r["wins"][i] if i < len(r["wins"]) else None for r in s["selections"]]
             for i in range(most)},
            title="Round-robin wins per candidate",
            x_label="candidate set",
            y_label="wins",
            y_max=None,
        )  # fmt: skip
        drawn.append(wins)
        parts.append(section("Wins", figure(wins)))
    return build_report(
        "Best of N by round robin",
        "pairwise select",
        parts,
        charts=drawn,
        inputs=inputs,
        settings=result.settings,
        coverage=failure_lines(s),
    )


def failure_lines(s: dict[str, Any]) -> list[str]:
    """What the winners and Hit@k of ``select`` leave out, said before them."""
    lines = []
    if s.get("n_failed"):
        lines.append(
            f"partial: {s['n_failed']} of {s['n_judgments']} judgments have no usable answer; the wins and "
            "winners below count only the usable ones"
        )
    if s.get("n_no_winner"):
        lines.append(
            f"{counted(s['n_no_winner'], 'set')} without a winner: every comparison abstained; left out of Hit@k"
        )
    return lines


__all__ = ["analysis_report", "comparison_report", "failure_lines", "selection_report"]
