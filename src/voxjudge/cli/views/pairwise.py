"""``pairwise analyze``, ``compare`` and ``select``: accuracy, position bias, winners, Hit@k."""

from __future__ import annotations

from voxjudge.cli.common import console
from voxjudge.cli.views.shared import pct
from voxjudge.plural import counted


def _num(v) -> str:
    return "–" if v is None else f"{v:+.3f}"


def render_pairwise_analysis(report: dict, source: str = "the judgments") -> str:
    from voxjudge.cli.tables import Table
    from voxjudge.pairwise.result import coverage_lines

    ci = report.get("accuracy_ci") or {"low": None, "high": None, "confidence": None}
    con = console()
    with con.capture() as cap:
        lines = coverage_lines(report, source)
        for line in lines:
            con.print(line, markup=False)
        t = Table(
            title=f"{'PARTIAL: ' if lines else ''}{counted(report['n_pairs'], 'pair')}, "
            f"{counted(report['n_judgments'], 'judgment')}, "
            f"{report['n_labelled']} with human labels"
        )
        t.add_column("measure")
        t.add_column("value", justify="right")
        rows = [
            ("accuracy (aggregated, ties are errors)", pct(report["accuracy"])),
            (f"accuracy, {_level(ci)} bootstrap CI over pairs", f"[{pct(ci['low'])}, {pct(ci['high'])}]"),
            ("accuracy, one call in presented order", pct(report["single_sample_accuracy"])),
            ("agreement on confident pair-dimensions", pct(report["confident_agreement"])),
            ("pairs with non-unanimous core verdicts", str(report["non_unanimous_pairs"])),
            ("Δpos (second slot - first slot)", _num(report["delta_pos"])),
            ("judgments favouring the second slot", pct(report["second_slot_rate"])),
            ("t statistic (pair-level slot difference)", _num(report["t_stat"])),
            ("abstained (judgment, dimension) cells", str(report["n_abstained"])),
        ]
        for r in rows:
            t.add_row(*r)
        con.print(t)
        d = Table(title="Accuracy by dimension")
        for dim in report["accuracy_by_dimension"]:
            d.add_column(dim, justify="right")
        d.add_row(*(pct(v) for v in report["accuracy_by_dimension"].values()))
        con.print(d)
        if report.get("weight_selection"):
            w = report["weight_selection"]
            con.print(
                f"selected weights {w['weights']}: validation {pct(w['validation_accuracy'])}, "
                f"test {pct(w['test_accuracy'])} (uniform: {pct(w['test_accuracy_uniform'])})"
            )
    return cap.get().rstrip("\n")


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
    return f"{row['set_id']}: winner {row['winner']} ({row['winner_path']}), wins {row['wins']}"


def render_hit_rates(summary: dict) -> str:
    """Hit@k of ``pairwise select`` against the human top-k, beside random choice, for each k that
    some set labels k candidates for (with the number of such sets when not all are)."""
    parts = []
    for k in (1, 2, 3):
        if summary.get(f"hit@{k}") is None:
            continue
        n = summary.get(f"n_rated@{k}", summary["n_rated"])
        over = "" if n == summary["n_sets"] else f", over {counted(n, 'set')} with a top {k}"
        parts.append(f"Hit@{k} {pct(summary[f'hit@{k}'])} (random {pct(summary[f'random@{k}'])}{over})")
    missing = [k for k in (1, 2, 3) if summary.get(f"hit@{k}") is None]
    if missing and parts:
        parts.append(f"(no Hit@{'/'.join(map(str, missing))}: no set labels a top {missing[0]})")
    return " ".join(parts)
