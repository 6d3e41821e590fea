"""``stats agree``: correlations of a metric with human scores."""

from __future__ import annotations

from voxjudge.cli.common import console
from voxjudge.cli.views.shared import render_join_coverage
from voxjudge.plural import counted
from voxjudge.summaries import is_figure


def render_stats_agree(result) -> str:
    """``stats agree``: coverage first when partial, then the correlations."""
    from voxjudge.cli.tables import Table

    s = result.settings
    level = f"{100 * s['bootstrap']['confidence']:g}%"
    t = Table(title=f"Agreement of {s['metric']} with {s['human']} on {counted(result.n, 'item')}")
    for col in ("method", "estimate", f"{level} CI", "p-value"):
        t.add_column(col, justify="left" if col == "method" else "right")
    no_interval = []
    for r in result.correlations:
        if is_figure(r.ci_low) and is_figure(r.ci_high):
            ci = f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
        else:  # every resample had a constant side: no correlation in any, so no interval (not "nan")
            ci = "–"
            no_interval.append(r.method)
        t.add_row(r.method, f"{r.estimate:+.4f}", ci, f"{r.p_value:.3g}")
    con = console()
    with con.capture() as cap:
        note = render_join_coverage(result.coverage)
        if note:
            con.print(note, markup=False)
        con.print(t)
        boot = s["bootstrap"]
        con.print(f"percentile bootstrap, {counted(boot['resamples'], 'resample')}, seed {boot['seed']}")
        if no_interval:
            con.print(
                f"no CI for {', '.join(no_interval)}: in every resample one side's scores were all equal "
                "(no correlation to take percentiles of); more resamples or items give one"
            )
    return cap.get().rstrip("\n")
