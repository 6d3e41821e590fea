"""Small pieces more than one renderer uses: a rate or a dash, a join's coverage line, where
``--report`` and ``--figures`` went."""

from __future__ import annotations

from voxjudge.cli.common import fmt_rate
from voxjudge.plural import counted


def pct(v) -> str:
    return "–" if v is None else fmt_rate(v)


def render_join_coverage(cov: dict, what: str = "items", covered: str = "every number below covers") -> str:
    """The coverage line of a join (``voxjudge.io.join``), or "" when both sides matched fully.
    Printed before any number, so a partial join is never read as the whole."""
    from voxjudge.io.join import coverage_text

    return coverage_text(cov, what, covered)


def render_written(report_path: str | None, figures_dir: str | None, report) -> str:
    """Where ``--report`` and ``--figures`` went."""
    if report is None:
        return ""
    parts = []
    if report_path:
        parts.append(f"report -> {report_path}")
    if figures_dir:
        parts.append(f"{counted(len(report.charts), 'figure')} (PDF and PNG) -> {figures_dir}")
    return "; ".join(parts)
