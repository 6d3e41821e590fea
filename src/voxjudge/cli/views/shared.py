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
    naming ``--normalize basic``; None otherwise. ``systems``: (name or None, ``CasePunct``) per
    system (``common.case_punct_counts``); ``rates``: say the WER both ways. A corpus too large to
    count again gets a line that says its texts have case or punctuation, without a count."""
    if any(cp.after is None for _, cp in systems):
        changed = max(cp.changed for _, cp in systems)
        if not changed:
            return None
        return (
            f"voxjudge: note: {counted(changed, 'utterance')} have upper case or punctuation, which count as "
            f"{plural(noun)} wherever the two sides differ in them (too many words to count them again); "
            "--normalize basic ignores both"
        )
    gone = [max(0, cp.before.errors - cp.after.errors) for _, cp in systems]
    if not any(cp.before.errors and 2 * n > cp.before.errors for n, (_, cp) in zip(gone, systems)):
        return None

    def wer(cp) -> str:
        return f" (WER {fmt_rate(cp.before.error_rate)} -> {fmt_rate(cp.after.error_rate)})" if rates else ""

    if len(systems) == 1:
        (_, cp), n = systems[0], gone[0]
        return (
            f"voxjudge: note: {n} of {counted(cp.before.errors, noun)} are only case or punctuation; "
            f"--normalize basic ignores both{wer(cp)}"
        )
    parts = [f"{name} {n} of {cp.before.errors}{wer(cp)}" for n, (name, cp) in zip(gone, systems)]
    return (
        f"voxjudge: note: {plural(noun)} that are only case or punctuation: {', '.join(parts)}; "
        "--normalize basic ignores both"
    )
