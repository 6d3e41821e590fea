"""Self-contained HTML reports: plain HTML with inline SVG charts drawn by matplotlib (the
``report`` extra, imported only when a chart is drawn), and the same charts as PDF/PNG figures.

Builders return a ``Report`` (page and charts); writing it is the caller's job (the library
never prints)."""

from voxjudge.report import charts
from voxjudge.report.document import Report, build_report, describe_inputs
from voxjudge.report.html import figure, page, row, section, table

__all__ = ["Report", "build_report", "charts", "describe_inputs", "figure", "page", "row", "section", "table"]
