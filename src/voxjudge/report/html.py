"""Minimal HTML building blocks with escaping. Numbers and intervals sit in ``td.num`` cells that
never wrap; tables scroll sideways inside their own box rather than being clipped by the page;
``row`` sets charts and tables side by side, so a wide page is used rather than left blank."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

# Fonts by script, in the order the page asks for them. Latin UI fonts come first, then fonts with
# Devanagari, Tamil, Malayalam, Kannada and CJK letters, so Indic and Chinese/Japanese text never
# shows as empty boxes where any of them is installed.
SCRIPT_FONTS = {
    "Latin": ["Segoe UI", "Roboto", "Noto Sans", "DejaVu Sans", "Liberation Sans"],
    "Devanagari": ["Noto Sans Devanagari", "Nirmala UI", "Mangal", "Lohit Devanagari"],
    "Tamil": ["Noto Sans Tamil", "Nirmala UI", "Latha", "Lohit Tamil"],
    "Malayalam": ["Noto Sans Malayalam", "Nirmala UI", "Kartika", "Lohit Malayalam"],
    "Kannada": ["Noto Sans Kannada", "Nirmala UI", "Tunga", "Lohit Kannada"],
    "CJK": ["Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", "Hiragino Sans"],
}
_ORDERED = list(dict.fromkeys(f for fonts in SCRIPT_FONTS.values() for f in fonts))
FONT_STACK = ", ".join(["system-ui", "-apple-system", *(f'"{f}"' if " " in f else f for f in _ORDERED), "sans-serif"])
_STYLE = (
    """
body{font-family:FONTS;margin:2rem auto;padding:0 2rem;max-width:1500px;color:#222}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.25rem .6rem;text-align:right;vertical-align:top}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}.note{color:#666;font-size:.85rem}
td.num,th.num{white-space:nowrap}td.text{text-align:left}.table-wrap{overflow-x:auto;max-width:100%}
figure.chart{margin:1rem 0;max-width:760px}figure.chart svg{width:100%;height:auto;display:block}
.row{display:flex;flex-wrap:wrap;gap:.5rem 2.5rem;align-items:flex-start}
.row>figure.chart{flex:1 1 440px;margin:.5rem 0}.row>.table-wrap{flex:0 1 auto}
figure.chart figcaption{color:#666;font-size:.85rem}
.partial{border:2px solid #c62828;background:#fff4f2;padding:.5rem 1rem;margin:1rem 0}
.partial h2{margin-top:.25rem;border:none;color:#a31515}
pre.settings{background:#f8f8f8;border:1px solid #ddd;padding:.5rem;white-space:pre-wrap;word-break:break-word}
td.hash{font-family:monospace;font-size:.8rem;word-break:break-all;text-align:left}
"""
).replace("FONTS", FONT_STACK)

# Says in the page which installed font of the stack draws each script the page uses. A local()
# font face loads only when that font is installed, which is the test.
_FONT_PROBE = """
(function(){
  var fonts = %s;
  var ranges = {"Latin": /[A-Za-z]/, "Devanagari": /[\\u0900-\\u097f]/, "Tamil": /[\\u0b80-\\u0bff]/,
    "Malayalam": /[\\u0d00-\\u0d7f]/, "Kannada": /[\\u0c80-\\u0cff]/, "CJK": /[\\u3040-\\u30ff\\u4e00-\\u9fff]/};
  var text = document.body.innerText, n = 0;
  function installed(name){
    var face = new FontFace("voxjudge-probe-" + (n++), 'local("' + name + '"), local("' + name + ' Regular")');
    return face.load().then(function(){ return true; }, function(){ return false; });
  }
  function first(names){
    if (!names.length) return Promise.resolve(null);
    return installed(names[0]).then(function(ok){ return ok ? names[0] : first(names.slice(1)); });
  }
  var scripts = Object.keys(fonts).filter(function(s){ return ranges[s].test(text); });
  Promise.all(scripts.map(function(s){ return first(fonts[s]); })).then(function(found){
    var parts = scripts.map(function(s, i){
      return s + ": " + (found[i] || "none of " + fonts[s].join(", ") + " is installed, so the browser picks a " +
        "font (Debian: apt-get install fonts-noto-core)");
    });
    var note = document.getElementById("fonts-used");
    note.textContent = "Fonts used: " + parts.join("; ") + ".";
    note.dataset.ready = "1";
  });
})();
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


_NUMERIC = re.compile(r"^[\s+\-–−.,0-9%\[\]()<>=e]*$")


@dataclass(frozen=True)
class Td:
    """A cell with its own class (e.g. ``hash``: monospace, may break anywhere)."""

    value: Any
    cls: str


def _td(value: Any) -> str:
    if isinstance(value, Td):
        return f'<td class="{value.cls}">{cell(value.value)}</td>'
    return f'<td class="{_cls(value)}">{cell(value)}</td>'


def _cls(value: Any) -> str:
    """Numbers, percentages and intervals never wrap; other text does."""
    if value is None or isinstance(value, (int, float)) or _NUMERIC.match(str(value)):
        return "num"
    return "text"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(_td(v) for v in row) + "</tr>" for row in rows)
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def row(*parts: str) -> str:
    """Charts and tables side by side while the page is wide enough (two charts share a row
    from about 1000 px), one under the other on a narrow one."""
    return f'<div class="row">{"".join(parts)}</div>'


def figure(chart) -> str:
    """A chart (``voxjudge.report.charts.Chart``) as inline SVG with its note as the caption."""
    caption = f"<figcaption>{escape(chart.note)}</figcaption>" if chart.note else ""
    return f'<figure class="chart" id="fig-{escape(chart.name)}">{chart.svg()}{caption}</figure>'


def section(title: str, *parts: str, note: str | None = None) -> str:
    extra = f'<p class="note">{escape(note)}</p>' if note else ""
    return f"<section><h2>{escape(title)}</h2>{''.join(parts)}{extra}</section>"


def page(title: str, *sections: str, subtitle: str | None = None) -> str:
    import json

    sub = f'<p class="note">{escape(subtitle)}</p>' if subtitle else ""
    fonts = (
        f'<footer><p class="note" id="fonts-used">Font stack: {escape(FONT_STACK)}.</p></footer>'
        f"<script>{_FONT_PROBE % json.dumps(SCRIPT_FONTS)}</script>"
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{escape(title)}</h1>{sub}{''.join(sections)}{fonts}</body></html>\n"
    )
