"""Charts for the HTML reports and for papers, drawn with matplotlib (the ``report`` extra,
imported only when a chart is drawn).

Each function returns a ``Chart``: its ``svg()`` goes inline in the self-contained HTML (text as
paths, so what matplotlib measured is what the browser shows: no font swap can clip a legend) and
its ``files()`` are the PDF and PNG that ``--figures DIR`` writes. Output is deterministic (fixed
hash salt, no dates). Layout rules that fixed the hand-drawn charts' bugs: constrained layout (no
label or legend outside the figure), the legend in its own band above the axes (never over the
data, and under the title: the title is the figure's, above every band), one distinct colour per
series (an error past the palette, never a repeat), count labels drawn inside their bubble and
clipped to the axes (never over a tick label), ticks at whole numbers on an axis of counts.
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voxjudge.errors import InputError

# matplotlib's tab10, by name so a report never depends on the user's style settings
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
SIZE = (6.4, 3.6)  # inches; 460 x 260 pt in the page
_RC = {"svg.hashsalt": "voxjudge", "svg.fonttype": "path", "font.size": 9.0, "pdf.fonttype": 42}


def require_matplotlib() -> None:
    """Raise a clear ``InputError`` (before any work) when matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("reports and figures are drawn with matplotlib: pip install 'voxjudge[report]'") from None


@dataclass
class Chart:
    """One figure: ``name`` is its file stem under ``--figures`` and its id prefix in the page."""

    name: str
    kind: str  # scatter, bars, lines, hbars
    title: str
    figure: Any  # matplotlib.figure.Figure
    note: str | None = None

    def _save(self, fmt: str, **kw: Any) -> bytes:
        import matplotlib

        buf = io.BytesIO()
        with matplotlib.rc_context(_RC):
            self.figure.savefig(buf, format=fmt, **kw)
        return buf.getvalue()

    def svg(self) -> str:
        """Inline SVG for the page: ids prefixed with the chart's name (several charts share one
        document), no XML prologue, scalable to the column width."""
        text = self._save("svg", metadata={"Date": None}).decode("utf-8")
        text = text[text.index("<svg") :]
        p = f"{self.name}-"
        text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{p}{m.group(1)}"', text)
        text = re.sub(r'xlink:href="#([^"]+)"', lambda m: f'xlink:href="#{p}{m.group(1)}"', text)
        text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{p}{m.group(1)})", text)
        return text.replace(
            "<svg ", f'<svg class="chart" data-chart="{self.kind}" role="img" aria-label="{_attr(self.title)}" ', 1
        )

    def files(self) -> dict[str, bytes]:
        """``{name}.pdf`` and ``{name}.png`` (200 dpi) for a paper."""
        return {
            f"{self.name}.pdf": self._save("pdf", metadata={"CreationDate": None, "ModDate": None}),
            f"{self.name}.png": self._save("png", dpi=200, metadata={"Software": None}),
        }


def _attr(text: str) -> str:
    from html import escape

    return escape(text, quote=True)


def _figure(title: str, size: tuple[float, float] = SIZE):
    require_matplotlib()
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=size, layout="constrained")
        ax = fig.add_subplot()
        # the figure's title, not the axes': constrained layout puts it above the legend's band
        fig.suptitle(title, fontsize=10)
        ax.spines[["top", "right"]].set_visible(False)
        ax.patch.set_gid("plot-area")  # the browser test keeps legends off it
    return fig, ax


def _colours(n: int) -> list[str]:
    if n > len(PALETTE):
        raise ValueError(f"{n} series in one chart; at most {len(PALETTE)} distinct colours")
    return list(PALETTE[:n])


def _legend(fig, ax, n: int) -> None:
    """The legend in its own band between the title and the axes: anchored just above the axes,
    which constrained layout shrinks to make room for it under the figure's title."""
    if n:
        ax.legend(
            loc="lower center", bbox_to_anchor=(0.5, 1.01), ncols=min(n, 3), frameon=False, fontsize=8, borderaxespad=0
        )


def _is_integral(values: Sequence[float]) -> bool:
    return bool(values) and all(float(v).is_integer() for v in values)


def scatter(
    name: str,
    x: Sequence[float],
    y: Sequence[float],
    *,
    title: str,
    x_label: str,
    y_label: str,
    jitter: float = 0.0,
    diagonal: bool = False,
    seed: int = 0,
    caption: str | None = None,
) -> Chart:
    """Points sized by how many items share a position (area proportional to the count, the count
    written inside from 4 up); ``jitter`` spreads points at the same discrete x sideways;
    ``diagonal`` draws y = x (two systems on the same items); ``caption`` goes under the chart,
    before the note on dot areas."""
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    fig, ax = _figure(title)
    xs, ys = [float(v) for v in x], [float(v) for v in y]
    counts = Counter((round(a, 6), round(b, 6)) for a, b in zip(xs, ys))
    points = sorted(counts.items())
    rng = np.random.default_rng(seed)
    px = np.array([a for (a, _), _ in points], dtype=float)
    if jitter and len(px):
        px = px + rng.uniform(-jitter, jitter, len(px))
    py = np.array([b for (_, b), _ in points], dtype=float)
    n = np.array([c for _, c in points], dtype=float)
    sizes = np.minimum(18.0 * n, 500.0)  # points^2; capped so one crowded spot stays inside the axes
    ax.scatter(px, py, s=sizes, color=PALETTE[0], alpha=0.55, edgecolors=PALETTE[0], linewidths=0.8, zorder=3)
    xlim = _limits(xs, 0.6 if _is_integral(xs) else None)  # room for the bubbles at the ends of a 1..5 scale
    ylim = _limits(ys, None, 0.12)
    if diagonal and len(xs):
        xlim = ylim = (min(xlim[0], ylim[0]), max(xlim[1], ylim[1]))
        ax.plot(xlim, ylim, color="#999999", linewidth=0.8, linestyle="--", zorder=1)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    placed: list[tuple[float, float]] = []
    for k in sorted(range(len(n)), key=lambda i: -n[i]):  # the biggest bubbles get their count first
        if n[k] < 4:
            continue
        fx = (px[k] - xlim[0]) / (xlim[1] - xlim[0])
        fy = (py[k] - ylim[0]) / (ylim[1] - ylim[0])
        if any(abs(fx - gx) < 0.05 and abs(fy - gy) < 0.07 for gx, gy in placed):
            continue  # a neighbour's count is written there already: no label on top of a label
        placed.append((fx, fy))
        t = ax.text(px[k], py[k], f"{n[k]:.0f}", ha="center", va="center", fontsize=6.5, color="#0b2a5c", zorder=4)
        t.set_clip_on(True)
        t.set_gid(f"count-{k}")
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    for axis, values in ((ax.xaxis, xs), (ax.yaxis, ys)):
        if _is_integral(values):
            axis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, color="#eeeeee", zorder=0)
    area = "Dot area is proportional to the number of items at that point." if (n > 1).any() else None
    note = " ".join(t for t in (caption, area) if t) or None
    return Chart(name, "scatter", title, fig, note)


def _limits(values: Sequence[float], pad: float | None, share: float = 0.06) -> tuple[float, float]:
    """Axis limits around the data: ``pad`` in data units, else ``share`` of the range."""
    if not values:
        return (0.0, 1.0)
    lo, hi = min(values), max(values)
    if pad is None:
        pad = (hi - lo) * share or 0.5
    return (lo - pad, hi + pad)


def grouped_bars(
    name: str,
    groups: Sequence[str],
    series: dict[str, Sequence[float | None]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_max: float | None = 1.0,
    intervals: dict[str, Sequence[tuple[float, float] | None]] | None = None,
    reference: tuple[str, float] | None = None,
) -> Chart:
    """One cluster per group, one bar per series (None: no bar); ``intervals`` draws each bar's
    CI; ``reference`` a labelled horizontal line (e.g. chance)."""
    import numpy as np

    fig, ax = _figure(title)
    colours = _colours(len(series))
    k = max(len(series), 1)
    width = 0.8 / k
    xs = np.arange(len(groups), dtype=float)
    for i, ((label, values), colour) in enumerate(zip(series.items(), colours)):
        heights = np.array([np.nan if v is None else float(v) for v in values])
        pos = xs - 0.4 + width * (i + 0.5)
        ax.bar(pos, heights, width * 0.92, color=colour, label=label, zorder=2)
        ci = (intervals or {}).get(label)
        if ci:
            lo = [np.nan if c is None or v is None else v - c[0] for c, v in zip(ci, values)]
            hi = [np.nan if c is None or v is None else c[1] - v for c, v in zip(ci, values)]
            ax.errorbar(pos, heights, yerr=[lo, hi], fmt="none", ecolor="#333333", elinewidth=0.8, capsize=2)
    if reference is not None:
        ax.axhline(reference[1], color="#555555", linestyle=":", linewidth=1.0, label=reference[0], zorder=1)
    ax.set_xticks(xs, [str(g) for g in groups])
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    if y_max is not None:
        ax.set_ylim(0, y_max * 1.02)
    if _is_integral([v for values in series.values() for v in values if v is not None]):
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no tick at 2.5 words
    ax.grid(True, axis="y", color="#eeeeee", zorder=0)
    _legend(fig, ax, len(series) + (reference is not None))
    return Chart(name, "bars", title, fig)


def lines(
    name: str,
    x: Sequence[float],
    series: dict[str, Sequence[float | None]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_max: float | None = 1.0,
    marker_x: float | None = None,
) -> Chart:
    """One line per series over ``x``; ``marker_x`` a vertical line (e.g. the theta in use)."""
    fig, ax = _figure(title)
    markers = "osD^v<>ph*"
    for i, ((label, values), colour) in enumerate(zip(series.items(), _colours(len(series)))):
        ys = [math.nan if v is None else float(v) for v in values]
        ax.plot(list(x), ys, color=colour, marker=markers[i], markersize=3.5, linewidth=1.2, label=label)
    if marker_x is not None:
        ax.axvline(marker_x, color="#555555", linestyle=":", linewidth=1.0)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    if y_max is not None:
        ax.set_ylim(0, y_max * 1.02)
    ax.grid(True, color="#eeeeee")
    _legend(fig, ax, len(series))
    return Chart(name, "lines", title, fig)


def hbars(
    name: str,
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    x_label: str,
    value_labels: Sequence[str] | None = None,
    colours: Sequence[str] | None = None,
    note: str | None = None,
) -> Chart:
    """Horizontal bars, top to bottom, with their value (or ``value_labels``) at the end;
    ``colours`` per bar (default: the first of the palette); ``note`` the caption."""
    height = max(1.6, 0.9 + 0.28 * len(labels))
    fig, ax = _figure(title, (SIZE[0], height))
    pos = list(range(len(labels)))[::-1]
    bars = ax.barh(pos, [float(v) for v in values], color=list(colours or [PALETTE[0]] * len(labels)), height=0.7)
    ax.set_yticks(pos, list(labels))
    top = max([float(v) for v in values] + [1.0])
    texts = list(value_labels) if value_labels is not None else [f"{v:g}" for v in values]
    longest = max((len(t) for t in texts), default=0)
    ax.set_xlim(0, top * (1.1 + 0.018 * longest))  # room for the value labels inside the axes
    ax.bar_label(bars, labels=texts, padding=2, fontsize=7)
    ax.set_xlabel(x_label)
    if _is_integral(values):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return Chart(name, "hbars", title, fig, note)


__all__ = ["PALETTE", "Chart", "grouped_bars", "hbars", "lines", "require_matplotlib", "scatter"]
