"""Correlations with a cluster bootstrap: whole groups are resampled, and several metrics are
compared on the *same* resamples, so their differences get paired intervals.

When several items share a group (all the hypotheses of one utterance), they are not independent:
resampling items one by one makes intervals too narrow. Here a resample draws groups with
replacement (``resample_chunks`` over the groups, so a seed always means the same draws) and
every item counts as often as its group was drawn. Correlations of such a resample are computed
from those counts as weights, which is exactly the correlation of the expanded sample (each item
repeated as often as drawn): weighted moments for Pearson, ranks from weighted cumulative counts
(average ranks for ties, as scipy's ``rankdata``) for Spearman, and weighted pairwise signs for
Kendall's tau-b. The tests check each against scipy on the expanded samples.

A metric that could not score an item is given weight 0 there; a difference between two metrics
is taken over the items both scored.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from voxjudge.stats.bootstrap import DEFAULT_RESAMPLES, resample_chunks
from voxjudge.stats.correlation import METHODS, Correlation

_KENDALL_MATRIX_MAX_N = 1500  # above this, the n x n sign matrices cost too much memory: loop per resample
_MAX_CELLS = 4_000_000  # weights held at once (resamples x items)
# Groups an interval needs: a bootstrap of one group redraws it every time, so its percentile
# "interval" is the point estimate with zero width, not an uncertainty. Below this: no interval.
MIN_GROUPS = 2


@dataclass(frozen=True)
class CorrelationDifference:
    """``a``'s correlation with the human scores minus ``b``'s, on the items both scored, with a
    percentile CI and a two-sided bootstrap p-value from the same group resamples."""

    a: str
    b: str
    method: str
    a_estimate: float
    b_estimate: float
    difference: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    n: int
    groups: int
    confidence: float
    n_resamples: int
    seed: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class GroupedCorrelations:
    """Per metric: its correlations (or why there are none); the paired differences."""

    by_metric: dict[str, dict[str, Correlation] | str]
    differences: list[CorrelationDifference]
    groups: int


def group_codes(groups: Sequence[Hashable]) -> tuple[np.ndarray, int]:
    """Groups as integer codes 0..G-1 in order of first appearance, and G."""
    code_of = {g: k for k, g in enumerate(dict.fromkeys(groups))}
    return np.array([code_of[g] for g in groups], dtype=np.intp), len(code_of)


def cluster_weights(codes: np.ndarray, n_groups: int, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Per resample (rows, in chunks), how many times each item's group was drawn."""
    per_chunk = max(1, _MAX_CELLS // max(len(codes), 1))
    for idx in resample_chunks(n_groups, n_resamples, seed):
        for start in range(0, len(idx), per_chunk):
            part = idx[start : start + per_chunk]
            rows = np.arange(len(part))[:, None] * n_groups
            counts = np.bincount((part + rows).ravel(), minlength=len(part) * n_groups).reshape(len(part), n_groups)
            yield counts[:, codes].astype(float)


def weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pearson r per row of weights ``w`` (rows x n); ``x``, ``y``: (n,) or (rows, n). NaN where a side is constant."""
    total = w.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        xm = x - (w * x).sum(axis=1, keepdims=True) / total
        ym = y - (w * y).sum(axis=1, keepdims=True) / total
        sxy, sxx, syy = (w * xm * ym).sum(axis=1), (w * xm * xm).sum(axis=1), (w * ym * ym).sum(axis=1)
        # a constant side leaves rounding noise, not zero: call it constant relative to the data's scale
        flat = (sxx <= 1e-24 * (w * x * x).sum(axis=1)) | (syy <= 1e-24 * (w * y * y).sum(axis=1))
        r = sxy / np.sqrt(sxx * syy)
    r[flat] = np.nan
    return np.clip(r, -1.0, 1.0)


def weighted_ranks(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ties shared) of ``x`` in each row's expanded sample."""
    from scipy.sparse import csr_matrix

    values, inverse = np.unique(x, return_inverse=True)
    onehot = csr_matrix((np.ones(len(x)), (np.arange(len(x)), inverse)), shape=(len(x), len(values)))
    per_value = np.asarray((onehot.T @ w.T).T)  # each value's weight in each row
    before = np.cumsum(per_value, axis=1) - per_value
    return (before + (per_value + 1) / 2)[:, inverse]


def weighted_spearman(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    return weighted_pearson(weighted_ranks(x, w), weighted_ranks(y, w), w)


def weighted_kendall(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Kendall's tau-b (scipy's default) per row of weights: sums of w_i w_j sign(dx) sign(dy)."""
    if len(x) > _KENDALL_MATRIX_MAX_N:
        from scipy.stats import kendalltau

        out = np.full(len(w), np.nan)
        for k, row in enumerate(w):
            n = row.astype(int)
            out[k] = kendalltau(np.repeat(x, n), np.repeat(y, n)).statistic
        return out
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])

    def form(m: np.ndarray) -> np.ndarray:
        return ((w @ m) * w).sum(axis=1)

    with np.errstate(invalid="ignore", divide="ignore"):
        tau = form(sx * sy) / np.sqrt(form(np.abs(sx)) * form(np.abs(sy)))
    return np.clip(tau, -1.0, 1.0)


_WEIGHTED = {"pearson": weighted_pearson, "spearman": weighted_spearman, "kendall": weighted_kendall}


def grouped_correlations(
    metrics: Mapping[str, Sequence[float | None]],
    human: Sequence[float],
    groups: Sequence[Hashable],
    methods: Sequence[str] = ("pearson", "spearman"),
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> GroupedCorrelations:
    """Each metric's correlations with ``human`` (scipy point estimates; percentile CIs from a
    bootstrap of ``groups``), and for each ``(a, b)`` of ``pairs`` (default: every later metric
    minus every earlier one) the paired difference ``r(a) - r(b)`` on the same resamples, over
    the items both scored. A metric value None is an item it could not score. A metric whose
    correlation is undefined (fewer than 3 items, a constant side) gets the reason instead. Items
    that all sit in one group get no interval (None) and no p-value: resampling one group always
    redraws the same sample."""
    from voxjudge.stats.agreement import AgreementUndefined, check_agreement
    from voxjudge.stats.correlation import _point

    if any(m not in METHODS for m in methods) or not methods:
        raise ValueError(f"methods must be some of {', '.join(METHODS)}")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    y = np.asarray(human, dtype=float)
    if len(groups) != len(y) or any(len(v) != len(y) for v in metrics.values()):
        raise ValueError("every metric, the human scores and the groups need one value per item")
    codes, n_groups = group_codes(groups)
    names = list(metrics)
    pairs = list(pairs) if pairs is not None else [(names[j], names[i]) for j in range(len(names)) for i in range(j)]
    scored = {n: np.array([v is not None for v in metrics[n]]) for n in names}
    x = {n: np.array([0.0 if v is None else float(v) for v in metrics[n]]) for n in names}
    # which item sets get resampled: each metric alone, and each pair's common items
    masks: dict[tuple[str, ...], np.ndarray] = {(n,): scored[n] for n in names}
    for a, b in pairs:
        masks[(a, b)] = scored[a] & scored[b]
    defined: dict[tuple[tuple[str, ...], str], str | None] = {}
    for key, mask in masks.items():
        for n in key:
            try:
                check_agreement(list(x[n][mask]), list(y[mask]), metric_name=n)
                defined[(key, n)] = None
            except AgreementUndefined as e:
                defined[(key, n)] = str(e)
    # one run per (metric, item set): a pair whose items are the metrics' own (full coverage) reuses them
    item_set = {key: mask.tobytes() for key, mask in masks.items()}
    runs = {(n, item_set[key]): masks[key] for key in masks for n in key if defined[(key, n)] is None}
    samples: dict[tuple[str, bytes, str], list[np.ndarray]] = {}
    if len(y):
        for w in cluster_weights(codes, n_groups, n_resamples, seed):
            for (n, items), mask in runs.items():
                wk = w * mask
                for m in methods:
                    samples.setdefault((n, items, m), []).append(_WEIGHTED[m](x[n], y, wk))
    boot = {(key, n, m): samples[(n, item_set[key], m)] for (key, n) in defined if defined[(key, n)] is None
            for m in methods}  # fmt: skip
    alpha = (1 - confidence) / 2

    def spanned(mask: np.ndarray) -> int:
        return len(set(codes[mask].tolist()))

    def interval(samples: np.ndarray, groups: int) -> tuple[float | None, float | None]:
        samples = samples[np.isfinite(samples)]
        # one group: every resample redraws the same items, so the "interval" is the estimate itself
        if not samples.size or groups < MIN_GROUPS:
            return None, None
        low, high = np.quantile(samples, [alpha, 1 - alpha])
        return float(low), float(high)

    by_metric: dict[str, dict[str, Correlation] | str] = {}
    for n in names:
        key, mask = (n,), masks[(n,)]
        if defined[(key, n)] is not None:
            by_metric[n] = defined[(key, n)]
            continue
        cells = {}
        for m in methods:
            est, p = _point(m, x[n][mask], y[mask])
            low, high = interval(np.concatenate(boot[(key, n, m)]), spanned(mask))
            cells[m] = Correlation(m, est, p, low, high, int(mask.sum()), confidence, n_resamples, seed)
        by_metric[n] = cells
    differences = []
    for a, b in pairs:
        key, mask = (a, b), masks[(a, b)]
        if defined[(key, a)] is not None or defined[(key, b)] is not None:
            continue
        for m in methods:
            ea, eb = _point(m, x[a][mask], y[mask])[0], _point(m, x[b][mask], y[mask])[0]
            d = np.concatenate(boot[(key, a, m)]) - np.concatenate(boot[(key, b, m)])
            d = d[np.isfinite(d)]
            groups = spanned(mask)
            low, high = interval(d, groups)
            p = None
            if d.size and groups >= MIN_GROUPS:
                p = min(1.0, 2 * min(float(np.mean(d <= 0)), float(np.mean(d >= 0))))
            differences.append(
                CorrelationDifference(
                    a, b, m, ea, eb, ea - eb, low, high, p, int(mask.sum()),
                    groups, confidence, n_resamples, seed,
                )
            )  # fmt: skip
    return GroupedCorrelations(by_metric, differences, n_groups)
