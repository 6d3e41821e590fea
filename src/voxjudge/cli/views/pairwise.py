"""``pairwise analyze``, ``compare`` and ``select``: accuracy, position bias, winners, Hit@k."""

from __future__ import annotations

from voxjudge.cli.common import console
from voxjudge.cli.views.shared import pct
from voxjudge.plural import counted


def _num(v) -> str:
    return "–" if v is None else f"{v:+.3f}"


def _cell(verdict: str) -> str:
    return verdict  # "A", "B", "tie" or "abstain": the words the records use


def render_pair_table(result) -> str:
    """``pairwise judge``: per pair the winner of each measured dimension, the weighted verdict
    V_w, its margin and whether the two presentation orders agree; then the counts."""
    from voxjudge.cli.tables import Table

    s = result.summary
    rows = s["pairs"]
    dims = [d for d in result.settings.get("dimensions", []) if any(d in r["dimensions"] for r in rows)]
    partial = _partial_judging(s)
    t = Table(
        title=f"{'PARTIAL: ' if partial else ''}{counted(len(rows), 'pair')}: winner per dimension, "
        "weighted verdict, the two orders"
    )
    t.add_column("pair")
    for d in dims:
        t.add_column(d, justify="center")
    t.add_column("verdict", justify="center")
    t.add_column("margin", justify="right")
    t.add_column("orders agree", justify="center")
    flagged = []
    for r in rows:
        mark = ""
        if r.get("flag"):
            flagged.append(r)
            mark = "*"
        agree = {True: "yes", False: f"no ({r['orders']['A']}/{r['orders']['B']})", None: "n/a"}[r["orders_agree"]]
        margin = "" if r["margin"] is None else f"{r['margin']:+.2f}"
        t.add_row(r["pair_id"], *(_cell(r["dimensions"].get(d, "")) for d in dims), r["verdict"] + mark, margin, agree)
    con = console()
    with con.capture() as cap:
        for line in partial:  # said before the verdicts they qualify
            con.print(line, markup=False)
        con.print(t)
        for r in flagged:
            con.print(f"* {r['pair_id']}: decided without rating: {r['flag']}", markup=False)
        v = s["verdicts"]
        agree = (
            f"the two orders agree on {s['orders_agree']} of {counted(s['orders_compared'], 'pair')} "
            f"({pct(s['orders_agree_rate'])})"
            if s["orders_compared"]
            else _no_orders_compared(rows)
        )
        weights = ", ".join(f"{d} {w:g}" for d, w in _weights(result.settings).items() if d in dims)
        con.print(f"verdicts: A {v['A']}, B {v['B']}, tie {v['tie']}, abstain {v['abstain']}; {agree}", markup=False)
        con.print(
            f"verdict V_w = sign(sum_d w_d (s_A - s_B)), zero a tie{f'; weights {weights}' if weights else ''}",
            markup=False,
        )
        unmeasured = result.settings.get("not_measured") or []
        if unmeasured:
            con.print(f"not measured by the {result.settings.get('judge')} judge: {', '.join(unmeasured)} "
                      "(absent from the records and verdicts)", markup=False)  # fmt: skip
    return cap.get().rstrip("\n")


def _no_orders_compared(rows: list[dict]) -> str:
    """Why no pair's two orders could be compared: one order only judged, or abstentions."""
    if rows and all(None in r["orders"].values() for r in rows):
        return "the two orders were not both judged (--samples 1)"
    return "no pair has a usable verdict in both orders (the judgments of an order abstained)"


def _partial_judging(s: dict) -> list[str]:
    """A judging run that failed on some judgments or stopped early, in words (nothing when whole)."""
    lines = []
    if s.get("n_failed"):
        lines.append(
            f"partial: {s['n_failed']} of {counted(s['n_judgments'], 'judgment')} have no usable answer "
            "(recorded as abstentions); the verdicts below count only the usable ones"
        )
    if s.get("stopped"):
        lines.append(f"partial: stopped early ({s['stopped']}); the verdicts below cover the judgments made")
    return lines


def _weights(settings: dict) -> dict:
    return settings.get("weights") or {}


def _t_stat(report: dict) -> str:
    from voxjudge.pairwise.result import t_stat_undefined

    return _num(report["t_stat"]) if report["t_stat"] is not None else f"– ({t_stat_undefined(report)})"


def render_pairwise_analysis(report: dict, source: str = "the judgments") -> str:
    from voxjudge.cli.tables import Table
    from voxjudge.pairwise.result import bias_left_out, coverage_lines

    ci = report.get("accuracy_ci") or {"low": None, "high": None, "confidence": None}
    labelled = report["n_labelled"] > 0
    by_dim = {d: v for d, v in report["accuracy_by_dimension"].items() if v is not None}
    con = console()
    with con.capture() as cap:
        lines = coverage_lines(report, source)
        for line in lines:
            con.print(line, markup=False)
        if not labelled:
            con.print(
                "no human overall labels in the pairs file: no accuracy; the judge's verdicts give the win "
                "rates and the position bias below",
                markup=False,
            )
        t = Table(
            title=f"{'PARTIAL: ' if lines else ''}{counted(report['n_pairs'], 'pair')}, "
            f"{counted(report['n_judgments'], 'judgment')}, "
            f"{report['n_labelled']} with human labels"
        )
        t.add_column("measure")
        t.add_column("value", justify="right")
        rows = []
        if labelled:
            rows += [
                ("accuracy (aggregated, ties are errors)", pct(report["accuracy"])),
                (f"accuracy, {_level(ci)} bootstrap CI over pairs", f"[{pct(ci['low'])}, {pct(ci['high'])}]"),
                ("accuracy, one call in presented order", pct(report["single_sample_accuracy"])),
            ]
        if report["n_confident"]:
            rows.append(("agreement on confident pair-dimensions", pct(report["confident_agreement"])))
        rows += [
            ("pairs with non-unanimous core verdicts", str(report["non_unanimous_pairs"])),
            ("Δpos (second slot - first slot)", _num(report["delta_pos"])),
            ("judgments favouring the second slot", pct(report["second_slot_rate"])),
            ("t statistic (pair-level slot difference)", _t_stat(report)),
            *bias_left_out(report),
            ("abstained (judgment, dimension) cells", str(report["n_abstained"])),
        ]
        for r in rows:
            t.add_row(*r)
        con.print(t)
        if by_dim:
            d = Table(title="Accuracy by dimension")
            for dim in by_dim:
                d.add_column(dim, justify="right")
            d.add_row(*(pct(v) for v in by_dim.values()))
            con.print(d)
        if report.get("not_measured"):
            con.print(f"not measured by this judge: {', '.join(report['not_measured'])}", markup=False)
        if report.get("win_rates"):
            con.print(render_win_rates(report["win_rates"]), markup=False)
        if report.get("weight_selection"):
            w = report["weight_selection"]
            con.print(
                f"selected weights {w['weights']}: validation {pct(w['validation_accuracy'])}, "
                f"test {pct(w['test_accuracy'])} (uniform: {pct(w['test_accuracy_uniform'])})"
            )
    return cap.get().rstrip("\n")


def render_win_rates(w: dict) -> str:
    """Win rate per system (ties count half, abstained pairs apart) with its bootstrap interval,
    then the head-to-head of every two systems that meet when there are more than two."""
    from voxjudge.cli.tables import Table

    level = f"{100 * w['confidence']:g}%"
    out = []
    for key, title, rows in (
        ("systems", "Win rate per system (ties count half)", w["systems"]),
        (
            "head_to_head",
            "Head to head (win rate of the first system)",
            w["head_to_head"] if len(w["systems"]) > 2 else [],
        ),
    ):
        if not rows:
            continue
        t = Table(title=title)
        for name in ("system",) if key == "systems" else ("system", "opponent"):
            t.add_column(name)
        for name in ("pairs", "wins", "ties", "losses", "abstained", "win rate", f"{level} CI"):
            t.add_column(name, justify="right")
        for r in rows:
            names = (r["system"],) if key == "systems" else (r["system"], r["opponent"])
            ci = f"[{pct(r['ci_low'])}, {pct(r['ci_high'])}]"
            t.add_row(*names, r["pairs"], r["wins"], r["ties"], r["losses"], r["abstained"], pct(r["win_rate"]), ci)
        out.append(t.render())
    note = f"{w['n_resamples']} bootstrap resamples of the pairs, seed {w['seed']}, the same for every system"
    if w["same_system_pairs"]:
        note += f"; {counted(w['same_system_pairs'], 'pair')} of a system against itself left out"
    return "\n".join(out + [note]) if out else "no pair of two different systems: no win rates"


def _level(ci: dict) -> str:
    return "–" if ci.get("confidence") is None else f"{100 * ci['confidence']:g}%"


def render_comparison(result) -> str:
    """``pairwise compare``: coverage of each judgments file first, then the paired bootstrap."""
    from voxjudge.pairwise.result import coverage_lines

    res = result.summary
    lines = []
    for name, key in (("judgments_a", "coverage_a"), ("judgments_b", "coverage_b")):
        lines += coverage_lines(res[key], result.settings[name])
    lines.append(
        f"{counted(res['n_pairs'], 'pair')}: accuracy A {pct(res['accuracy_a'])}, B {pct(res['accuracy_b'])}; "
        f"difference {100 * res['difference']:+.2f} pts, "
        f"{100 * res['confidence']:g}% CI [{100 * res['ci_low']:+.2f}, {100 * res['ci_high']:+.2f}] "
        f"({res['n_resamples']} paired resamples of pair indices, seed {res['seed']})"
    )
    return "\n".join(lines)


def render_selection(result) -> str:
    """``pairwise select``: failed judgments first, then one line per set and Hit@k."""
    from voxjudge.report.pairwise import failure_lines

    summary = result.summary
    lines = failure_lines(summary) + [render_winner(r) for r in summary["selections"]]
    if summary["n_rated"]:
        lines.append(render_hit_rates(summary))
    return "\n".join(lines)


def render_winner(row: dict) -> str:
    """One line of ``pairwise select``: the winning candidate of a set."""
    if row["winner"] is None:
        return f"{row['set_id']}: no winner (every comparison abstained)"
    return f"{row['set_id']}: winner {row['winner']} ({row['winner_path']}), wins {row['wins']}"


def render_hit_rates(summary: dict) -> str:
    """Hit@k of ``pairwise select`` against the human top-k, beside random choice, for each k that
    some set labels k candidates for (with the number of such sets when not all are)."""
    parts = []
    for k in (1, 2, 3):
        if summary.get(f"hit@{k}") is None:
            continue
        n = summary.get(f"n_rated@{k}", summary["n_rated"])
        winner = " and a winner" if summary.get("n_no_winner") else ""
        over = "" if n == summary["n_sets"] else f", over {counted(n, 'set')} with a top {k}{winner}"
        parts.append(f"Hit@{k} {pct(summary[f'hit@{k}'])} (random {pct(summary[f'random@{k}'])}{over})")
    missing = [k for k in (1, 2, 3) if summary.get(f"hit@{k}") is None]
    if missing and parts:
        parts.append(f"(no Hit@{'/'.join(map(str, missing))}: no set labels a top {missing[0]})")
    return " ".join(parts)
