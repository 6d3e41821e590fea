"""Self-contained HTML reports: plain HTML and inline SVG charts, no external assets.

Builders return strings; writing them is the caller's job (the library never prints)."""

from voxjudge.report.html import page, section, table
from voxjudge.report.svg import grouped_bars, scatter

__all__ = ["grouped_bars", "page", "scatter", "section", "table"]
