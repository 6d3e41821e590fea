"""Pearson, Spearman and Kendall correlation with percentile bootstrap confidence intervals.

Point estimates and p-values come straight from scipy. Interval bounds come from resampling
item pairs (one shared index matrix for all three methods); the per-resample statistics are
vectorised re-implementations that the tests check against scipy to 1e-12.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from voxjudge.stats.bootstrap import DEFAULT_RESAMPLES, resample_chunks

METHODS = ("pearson", "spearman", "kendall")
_VECTOR_KENDALL_MAX_N = 400  # above this, scipy's O(n log n) per resample is faster


@dataclass(frozen=True)
class Correlation:
    method: str
    estimate: float
    p_value: float
    ci_low: float
    ci_high: float
    n: int
    confidence: float
    n_resamples: int
    seed: int

    def as_dict(self) -> dict:
        return asdict(self)


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xm = x - x.mean(axis=1, keepdims=True)
    ym = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xm * ym).sum(axis=1) / np.sqrt((xm * xm).sum(axis=1) * (ym * ym).sum(axis=1))
    return np.clip(r, -1.0, 1.0)


def _rowwise_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return _rowwise_pearson(rankdata(x, axis=1), rankdata(y, axis=1))


def _rowwise_kendall(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b per row (scipy's default variant), by pairwise signs."""
    if x.shape[1] > _VECTOR_KENDALL_MAX_N:
        from scipy.stats import kendalltau

        return np.array([kendalltau(xr, yr).statistic for xr, yr in zip(x, y)])
    sx = np.sign(x[:, :, None] - x[:, None, :])
    sy = np.sign(y[:, :, None] - y[:, None, :])
    concordance = (sx * sy).sum(axis=(1, 2))
    untied_x = np.abs(sx).sum(axis=(1, 2))
    untied_y = np.abs(sy).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(concordance / np.sqrt(untied_x * untied_y), -1.0, 1.0)


_ROWWISE = {"pearson": _rowwise_pearson, "spearman": _rowwise_spearman}


def _point(method: str, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    import scipy.stats as st

    fn = {"pearson": st.pearsonr, "spearman": st.spearmanr, "kendall": st.kendalltau}[method]
    res = fn(x, y)
    return float(res.statistic), float(res.pvalue)


def correlate(
    x: Sequence[float],
    y: Sequence[float],
    methods: Sequence[str] = METHODS,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[Correlation]:
    """Correlations of paired scores with bootstrap CIs; one entry per method, in order given.

    Resamples where a side is constant have no correlation and are left out of the interval.
    """
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.shape != ya.shape or xa.ndim != 1:
        raise ValueError(f"x and y must be 1-D and the same length, got {xa.shape} and {ya.shape}")
    if len(xa) < 3:
        raise ValueError(f"correlation needs at least 3 paired items, got {len(xa)}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise ValueError("scores must be finite numbers")
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"unknown method {m!r}; choose from {', '.join(METHODS)}")
    samples: dict[str, list[np.ndarray]] = {m: [] for m in methods}
    for idx in resample_chunks(len(xa), n_resamples, seed):
        for m in methods:
            if m == "kendall":
                samples[m].append(_rowwise_kendall_chunked(xa, ya, idx))
            else:
                samples[m].append(_ROWWISE[m](xa[idx], ya[idx]))
    alpha = (1 - confidence) / 2
    out = []
    for m in methods:
        est, p = _point(m, xa, ya)
        boot = np.concatenate(samples[m])
        boot = boot[np.isfinite(boot)]
        low, high = np.quantile(boot, [alpha, 1 - alpha]) if boot.size else (np.nan, np.nan)
        out.append(Correlation(m, est, p, float(low), float(high), len(xa), confidence, n_resamples, seed))
    return out


def _rowwise_kendall_chunked(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    # The pairwise-sign tensors are rows x n x n; keep them under ~4M cells.
    step = max(1, 4_000_000 // (idx.shape[1] ** 2))
    return np.concatenate(
        [_rowwise_kendall(x[idx[i : i + step]], y[idx[i : i + step]]) for i in range(0, len(idx), step)]
    )
