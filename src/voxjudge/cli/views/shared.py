"""Small pieces more than one renderer uses: a rate or a dash, a penalty, a join's coverage line,
where ``--report`` and ``--figures`` went, the case/punctuation note."""

from __future__ import annotations

from voxjudge.cli.common import fmt_rate
from voxjudge.plural import counted, plural


def pct(v) -> str:
    return "–" if v is None else fmt_rate(v)


def penalty(v) -> str:
    """A penalty to two decimals, the precision a reader compares (4.015625 reads 4.02); a
    nonzero penalty that would round to zero reads <0.01, never 0.00."""
    if v is None:
        return "–"
    if v and abs(v) < 0.005:
        return "<0.01" if v > 0 else ">-0.01"
    return f"{v:.2f}"


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


def render_case_punct_note(systems, *, noun: str = "word error", rates: bool = True) -> str | None:
    """One line when most word errors (of one system at least) are only case or punctuation,
    naming ``--normalize basic``; None otherwise. ``systems``: (name or None, counts as the command
    counted them, counts with case and punctuation ignored too) per system
    (``common.case_punct_counts``); ``rates``: say the WER both ways."""
    gone = [max(0, before.errors - after.errors) for _, before, after in systems]
    if not any(before.errors and 2 * n > before.errors for n, (_, before, _) in zip(gone, systems)):
        return None

    def wer(before, after) -> str:
        return f"WER {fmt_rate(before.error_rate)} -> {fmt_rate(after.error_rate)}" if rates else ""

    if len(systems) == 1:
        (_, before, after), n = systems[0], gone[0]
        tail = f" ({wer(before, after)})" if rates else ""
        return (
            f"voxjudge: note: {n} of {counted(before.errors, noun)} are only case or punctuation; "
            f"--normalize basic ignores both{tail}"
        )
    parts = [
        f"{name} {n} of {before.errors}" + (f" ({wer(before, after)})" if rates else "")
        for n, (name, before, after) in zip(gone, systems)
    ]
    return (
        f"voxjudge: note: {plural(noun)} that are only case or punctuation: {', '.join(parts)}; "
        "--normalize basic ignores both"
    )
