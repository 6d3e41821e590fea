"""``studio export``: what the exported file covers, who was dropped, MOS per system."""

from __future__ import annotations

from voxjudge.plural import counted


def render_studio_export(s: dict, out: str, systems: str | None = None) -> str:
    """``studio export``: how much of the study the file covers (partial mid-study), who was dropped, MOS."""
    lines = [
        f"wrote {s['written']} of {counted(s['items'], 'item')} to {out} ({s['answered']} of "
        f"{counted(s['items'], 'item')} had answers"
        + (
            "; the study is not complete: evaluators read it as partial human data)"
            if s["answered"] < s["items"]
            else ")"
        )
    ]
    if s.get("neutralised"):
        lines.append(
            f"{counted(s['neutralised'], 'cell')} began with = + - @, a tab or CR: written with a leading ' so that a "
            "spreadsheet shows them as text (OWASP); export as .jsonl to keep them verbatim"
        )
    if s["unresolved"]:
        lines.append(f"{len(s['unresolved'])} without agreement: {', '.join(s['unresolved'][:5])}")
    for name, reason in (s.get("dropped") or {}).items():
        lines.append(f"dropped rater {name}: {reason}")
    if s.get("systems"):
        lines.append("MOS per system (95% CI, ratings):")
        for name, m in s["systems"].items():
            ci = "" if m["ci_low"] is None else f" [{m['ci_low']:.2f}, {m['ci_high']:.2f}]"
            lines.append(f"  {name or '(none)'}: {m['mos']:.2f}{ci} n={m['n']}")
        if systems:
            lines.append(f"per-system table written to {systems}")
    return "\n".join(lines)
