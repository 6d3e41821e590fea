"""Two chart types as inline SVG: a scatter plot and grouped bars. Deterministic output."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np

PALETTE = ("#3366cc", "#dc3912", "#ff9900", "#109618", "#990099")
W, H, LEFT, BOTTOM, TOP, RIGHT = 560, 340, 60, 50, 30, 20


def _frame(title: str, x_label: str, y_label: str) -> list[str]:
    return [
        f'<svg width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img">',
        f"<title>{escape(title)}</title>",
        f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="14">{escape(title)}</text>',
        f'<line x1="{LEFT}" y1="{H - BOTTOM}" x2="{W - RIGHT}" y2="{H - BOTTOM}" stroke="#444"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H - BOTTOM}" stroke="#444"/>',
        f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 10}" text-anchor="middle" font-size="12">{escape(x_label)}</text>',
        f'<text x="15" y="{(TOP + H - BOTTOM) / 2}" text-anchor="middle" font-size="12" '
        f'transform="rotate(-90 15 {(TOP + H - BOTTOM) / 2})">{escape(y_label)}</text>',
    ]


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    return [float(v) for v in np.linspace(lo, hi, n)]


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
    """Points with optional horizontal jitter (for discrete x such as Likert scores)."""
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    if jitter:
        xs = xs + np.random.default_rng(seed).uniform(-jitter, jitter, size=len(xs))
    x_lo, x_hi = (float(xs.min()), float(xs.max())) if len(xs) else (0.0, 1.0)
    y_lo, y_hi = (float(min(ys.min(), 0.0)), float(max(ys.max(), 1.0))) if len(ys) else (0.0, 1.0)
    if x_hi == x_lo:
        x_lo, x_hi = x_lo - 1, x_hi + 1

    def px(v: float) -> float:
        return LEFT + (v - x_lo) / (x_hi - x_lo) * (W - LEFT - RIGHT)

    def py(v: float) -> float:
        return H - BOTTOM - (v - y_lo) / (y_hi - y_lo) * (H - TOP - BOTTOM)

    out = _frame(title, x_label, y_label)
    for t in _ticks(y_lo, y_hi):
        out.append(f'<text x="{LEFT - 6}" y="{py(t) + 4:.1f}" text-anchor="end" font-size="10">{t:.2g}</text>')
    for t in _ticks(x_lo, x_hi):
        out.append(f'<text x="{px(t):.1f}" y="{H - BOTTOM + 14}" text-anchor="middle" font-size="10">{t:.2g}</text>')
    for a, b in zip(xs, ys):
        out.append(f'<circle cx="{px(a):.1f}" cy="{py(b):.1f}" r="3" fill="{PALETTE[0]}" fill-opacity="0.55"/>')
    out.append("</svg>")
    return "".join(out)


def grouped_bars(
    groups: Sequence[str],
    series: dict[str, Sequence[float | None]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_max: float = 1.0,
) -> str:
    """One cluster of bars per group, one bar per series; values in [0, y_max]; None is left out."""
    out = _frame(title, x_label, y_label)
    plot_w = W - LEFT - RIGHT
    plot_h = H - TOP - BOTTOM
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
            f'font-size="10">{escape(str(group))}</text>'
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
    for si, name in enumerate(series):
        color = PALETTE[si % len(PALETTE)]
        out.append(
            f'<rect x="{W - RIGHT - 150}" y="{TOP + si * 16}" width="10" height="10" fill="{color}"/>'
            f'<text x="{W - RIGHT - 135}" y="{TOP + si * 16 + 9}" font-size="11">{escape(name)}</text>'
        )
    out.append("</svg>")
    return "".join(out)
