"""Minimal HTML building blocks with escaping."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#222}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.25rem .6rem;text-align:right}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}.note{color:#666;font-size:.85rem}
svg text{font-family:system-ui,sans-serif}
"""


def cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return escape(str(value))


def correlation_text(c: dict[str, Any]) -> str:
    """``+0.512 [+0.301, +0.688]``; an undefined correlation says why instead of printing nan."""
    est, low, high = c.get("estimate"), c.get("ci_low"), c.get("ci_high")
    if est is None or est != est:
        return f"– ({c['note']})" if c.get("note") else "–"
    if low is None or high is None or low != low or high != high:
        return f"{est:+.3f}"
    return f"{est:+.3f} [{low:+.3f}, {high:+.3f}]"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def section(title: str, *parts: str, note: str | None = None) -> str:
    extra = f'<p class="note">{escape(note)}</p>' if note else ""
    return f"<section><h2>{escape(title)}</h2>{''.join(parts)}{extra}</section>"


def page(title: str, *sections: str, subtitle: str | None = None) -> str:
    sub = f'<p class="note">{escape(subtitle)}</p>' if subtitle else ""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{escape(title)}</h1>{sub}{''.join(sections)}</body></html>\n"
    )
