"""Bootstrap resampling over items, shared between everything compared in one analysis.

All statistics of one analysis are computed on the *same* resamples: the index matrix is drawn
once from ``numpy.random.default_rng(seed)`` and handed out in row chunks (so 10,000 resamples of
100,000 items never need 8 GB at once). The chunking depends only on the number of items, so a
seed always means the same resamples.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass

import numpy as np

DEFAULT_RESAMPLES = 10_000
_MAX_CELLS = 4_000_000  # indices held in memory at once


def resample_chunks(n_items: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> Iterator[np.ndarray]:
    """Yield the bootstrap index matrix (``n_resamples`` x ``n_items``) in row chunks."""
    if n_items < 1:
        raise ValueError("bootstrap needs at least one item")
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    rng = np.random.default_rng(seed)
    rows = max(1, _MAX_CELLS // n_items)
    for start in range(0, n_resamples, rows):
        yield rng.integers(0, n_items, size=(min(rows, n_resamples - start), n_items))


@dataclass(frozen=True)
class BootstrapDifference:
    """``statistic(a) - statistic(b)`` with a percentile CI and a two-sided bootstrap p-value."""

    a: float
    b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n_items: int
    n_resamples: int
    confidence: float
    seed: int

    def as_dict(self) -> dict:
        return asdict(self)


def p_value_bound(n_resamples: int) -> float:
    """What a ``paired_bootstrap`` p-value of 0 stands for: no resample crossed zero, so the p-value
    is below the smallest one the resamples could give, ``2 / n_resamples`` (one resample on the
    far side, doubled for two sides); capped at 1. Say "p < bound", never "p = 0"."""
    return min(1.0, 2 / n_resamples)


def p_text(p_value: float, n_resamples: int, *, equals: str = " = ") -> str:
    """A paired bootstrap's p-value as shown: 0 as the bound it stands for (``p_value_bound``)."""
    return f"p < {p_value_bound(n_resamples):.2g}" if p_value == 0 else f"p{equals}{p_value:.4g}"


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    denominator: Sequence[float] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> BootstrapDifference:
    """Paired bootstrap of the difference between two systems scored on the same items.

    Without ``denominator`` the statistic is the mean per item. With it, the statistic is a ratio
    of sums, which is how corpus WER is formed (errors / reference words), so
    ``paired_bootstrap(errors_a, errors_b, denominator=ref_words)`` bootstraps the WER difference.
    The p-value is twice the share of resampled differences on the far side of zero (capped at 1);
    0 when none is there, which only says p < ``p_value_bound(n_resamples)`` (2 / resamples).
    A resample whose ``denominator`` sums to 0 (only items without reference words) has no
    ratio and is left out of the interval and the p-value.
    """
    xa = np.asarray(a, dtype=float)
    xb = np.asarray(b, dtype=float)
    if xa.shape != xb.shape or xa.ndim != 1:
        raise ValueError(f"a and b must be 1-D and the same length, got {xa.shape} and {xb.shape}")
    den = None if denominator is None else np.asarray(denominator, dtype=float)
    if den is not None and den.shape != xa.shape:
        raise ValueError("denominator must have the same length as a and b")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")

    def stat(values: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray | float:
        if idx is None:
            return values.sum() / den.sum() if den is not None else values.mean()
        if den is not None:
            return values[idx].sum(axis=1) / den[idx].sum(axis=1)
        return values[idx].mean(axis=1)

    # a resample with no reference words has no ratio (x/0): it is left out, and says nothing on stderr
    with np.errstate(invalid="ignore", divide="ignore"):
        diffs = np.concatenate([stat(xa, idx) - stat(xb, idx) for idx in resample_chunks(len(xa), n_resamples, seed)])
    diffs = diffs[np.isfinite(diffs)]
    alpha = (1 - confidence) / 2
    low, high = np.quantile(diffs, [alpha, 1 - alpha]) if diffs.size else (np.nan, np.nan)
    p = min(1.0, 2 * min(float(np.mean(diffs <= 0)), float(np.mean(diffs >= 0)))) if diffs.size else np.nan
    with np.errstate(invalid="ignore", divide="ignore"):  # no reference words at all: NaN, not a warning
        sa, sb = float(stat(xa)), float(stat(xb))
    return BootstrapDifference(
        a=sa,
        b=sb,
        difference=sa - sb,
        ci_low=float(low),
        ci_high=float(high),
        p_value=p,
        n_items=len(xa),
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )
