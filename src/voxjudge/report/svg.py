"""Two chart types as inline SVG: a scatter plot and grouped bars. Deterministic output. Only the studio's
metric page still uses them; the evaluator reports draw with matplotlib (report/charts.py)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from html import escape

from voxjudge.plural import counted

PALETTE = ("#3366cc", "#dc3912", "#ff9900", "#109618", "#990099")
W, H, LEFT, BOTTOM, TOP, RIGHT = 560, 340, 60, 50, 30, 20
LEGEND_BAND = 20  # a row above the plot for the legend, so it never covers the data


def _frame(title: str, x_label: str, y_label: str, top: float, kind: str) -> list[str]:
    return [
        f'<svg width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" class="chart" data-chart="{kind}">',
        f"<title>{escape(title)}</title>",
        f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="14">{escape(title)}</text>',
        f'<line x1="{LEFT}" y1="{H - BOTTOM}" x2="{W - RIGHT}" y2="{H - BOTTOM}" stroke="#444"/>',
        f'<line x1="{LEFT}" y1="{top}" x2="{LEFT}" y2="{H - BOTTOM}" stroke="#444"/>',
        f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 10}" text-anchor="middle" font-size="12">{escape(x_label)}</text>',
        f'<text x="15" y="{(top + H - BOTTOM) / 2}" text-anchor="middle" font-size="12" '
        f'transform="rotate(-90 15 {(top + H - BOTTOM) / 2})">{escape(y_label)}</text>',
    ]


def _is_integral(values: Sequence[float]) -> bool:
    return bool(values) and all(float(v).is_integer() for v in values)


def _ticks(lo: float, hi: float, integral: bool = False, n: int = 5) -> list[float]:
    """Integer ticks for integer data (human scores 1..5 read 1, 2, 3, 4, 5), else n even steps."""
    if integral and hi - lo <= 20:
        return [float(v) for v in range(math.ceil(lo), math.floor(hi) + 1)]
    return [lo + (hi - lo) * k / (n - 1) for k in range(n)]


def _group_label(group: object) -> str:
    if isinstance(group, float) and group.is_integer():
        return f"{group:.0f}"  # human score 4.0 reads 4
    try:
        value = float(str(group))
    except ValueError:
        return str(group)
    return f"{value:.0f}" if value.is_integer() and "." in str(group) else str(group)


def _tick_label(t: float) -> str:
    return f"{t:.0f}" if float(t).is_integer() else f"{t:.2g}"


def scatter(
    x: Sequence[float],
    y: Sequence[float],
    *,
    title: str,
    x_label: str,
    y_label: str,
    jitter: float = 0.0,
    seed: int = 0,
) -> str:
    """Points sized by how many items share a position (area proportional to the count), so 25
    items at the same spot read as one large dot labelled 25 rather than one small dot.
    ``jitter`` spreads distinct y values at the same discrete x apart horizontally."""
    import random

    xs, ys = [float(v) for v in x], [float(v) for v in y]
    counts = Counter((round(a, 6), round(b, 6)) for a, b in zip(xs, ys))
    x_int, y_int = _is_integral(xs), _is_integral(ys)
    x_lo, x_hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
    y_lo, y_hi = (min(min(ys), 0.0), max(max(ys), 1.0)) if ys else (0.0, 1.0)
    if x_hi == x_lo:
        x_lo, x_hi = x_lo - 1, x_hi + 1
    pad = 0.5 if x_int else 0.0  # room for the dots at the ends of a 1..5 scale
    x_lo, x_hi = x_lo - pad, x_hi + pad
    top = TOP

    def px(v: float) -> float:
        return LEFT + (v - x_lo) / (x_hi - x_lo) * (W - LEFT - RIGHT)

    def py(v: float) -> float:
        return H - BOTTOM - (v - y_lo) / (y_hi - y_lo) * (H - top - BOTTOM)

    out = _frame(title, x_label, y_label, top, "scatter")
    for t in _ticks(y_lo, y_hi, y_int):
        out.append(f'<text x="{LEFT - 6}" y="{py(t) + 4:.1f}" text-anchor="end" font-size="10">{_tick_label(t)}</text>')
    for t in _ticks(x_lo + pad, x_hi - pad, x_int):
        out.append(
            f'<text x="{px(t):.1f}" y="{H - BOTTOM + 14}" text-anchor="middle" font-size="10">{_tick_label(t)}</text>'
        )
    rng = random.Random(seed)
    for (a, b), n in sorted(counts.items()):
        cx = a + (rng.uniform(-jitter, jitter) if jitter else 0.0)
        r = 3.0 * math.sqrt(n)
        label = f"{counted(n, 'item')} at"
        out.append(
            f'<circle cx="{px(cx):.1f}" cy="{py(b):.1f}" r="{r:.1f}" fill="{PALETTE[0]}" fill-opacity="0.5" '
            f'stroke="{PALETTE[0]}" data-count="{n}"><title>{label} ({a:g}, {b:.3g})</title></circle>'
        )
        if n >= 4:  # big enough to carry its count
            out.append(
                f'<text x="{px(cx):.1f}" y="{py(b) + 3:.1f}" text-anchor="middle" font-size="9" '
                f'fill="#0b2a5c">{n}</text>'
            )
    out.append("</svg>")
    if any(n > 1 for n in counts.values()):
        out.append('<p class="note">Dot area is proportional to the number of items at that point.</p>')
    return "".join(out)


def grouped_bars(
    groups: Sequence[str | float],
    series: dict[str, Sequence[float | None]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_max: float = 1.0,
) -> str:
    """One cluster of bars per group, one bar per series; values in [0, y_max]; None is left out.
    The legend sits in its own band above the plot."""
    top = TOP + (LEGEND_BAND if series else 0)
    out = _frame(title, x_label, y_label, top, "bars")
    plot_w = W - LEFT - RIGHT
    plot_h = H - top - BOTTOM
    n_series = max(len(series), 1)
    slot = plot_w / max(len(groups), 1)
    bar = slot * 0.8 / n_series
    for t in _ticks(0, y_max):
        y = H - BOTTOM - t / y_max * plot_h
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="10">{t:.2g}</text>')
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{W - RIGHT}" y2="{y:.1f}" stroke="#eee"/>')
    for gi, group in enumerate(groups):
        x0 = LEFT + gi * slot + slot * 0.1
        out.append(
            f'<text x="{LEFT + (gi + 0.5) * slot:.1f}" y="{H - BOTTOM + 14}" text-anchor="middle" '
            f'font-size="10">{escape(_group_label(group))}</text>'
        )
        for si, values in enumerate(series.values()):
            v = values[gi]
            if v is None:
                continue
            h = max(0.0, min(v, y_max)) / y_max * plot_h
            out.append(
                f'<rect x="{x0 + si * bar:.1f}" y="{H - BOTTOM - h:.1f}" width="{bar * 0.95:.1f}" '
                f'height="{h:.1f}" fill="{PALETTE[si % len(PALETTE)]}"><title>{v:.3f}</title></rect>'
            )
    x = LEFT
    for si, name in enumerate(series):
        color = PALETTE[si % len(PALETTE)]
        out.append(
            f'<g class="legend"><rect x="{x}" y="{TOP + 2}" width="10" height="10" fill="{color}"/>'
            f'<text x="{x + 14}" y="{TOP + 11}" font-size="11">{escape(name)}</text></g>'
        )
        x += 24 + 6.5 * len(name)
    out.append("</svg>")
    return "".join(out)
