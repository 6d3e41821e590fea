from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given
from hypothesis import strategies as st_h

from voxjudge.stats import correlate
from voxjudge.stats.correlation import _rowwise_kendall, _rowwise_pearson, _rowwise_spearman


@pytest.fixture
def scores():
    rng = np.random.default_rng(7)
    x = rng.normal(size=80)
    y = 0.6 * x + rng.normal(size=80)
    x[:10] = np.round(x[:10])  # some ties
    return x, y


def test_point_estimates_and_p_values_equal_scipy(scores):
    x, y = scores
    res = {r.method: r for r in correlate(x, y, n_resamples=200)}
    for method, fn in (("pearson", st.pearsonr), ("spearman", st.spearmanr), ("kendall", st.kendalltau)):
        ref = fn(x, y)
        assert abs(res[method].estimate - ref.statistic) <= 1e-12
        assert abs(res[method].p_value - ref.pvalue) <= 1e-12


ties = st_h.lists(st_h.integers(0, 4), min_size=5, max_size=40)


@given(st_h.data())
def test_vectorised_resample_statistics_equal_scipy(data):
    n = data.draw(st_h.integers(5, 40))
    x = np.array(data.draw(st_h.lists(st_h.integers(0, 4), min_size=n, max_size=n)), dtype=float)
    y = np.array(data.draw(st_h.lists(st_h.integers(0, 6), min_size=n, max_size=n)), dtype=float)
    if len(set(x)) < 2 or len(set(y)) < 2:
        return
    X, Y = x[None, :], y[None, :]
    assert abs(_rowwise_pearson(X, Y)[0] - st.pearsonr(x, y).statistic) <= 1e-12
    assert abs(_rowwise_spearman(X, Y)[0] - st.spearmanr(x, y).statistic) <= 1e-12
    assert abs(_rowwise_kendall(X, Y)[0] - st.kendalltau(x, y).statistic) <= 1e-12


def test_large_n_kendall_path_equals_scipy():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 20, size=(2, 500)).astype(float)
    y = rng.integers(0, 20, size=(2, 500)).astype(float)
    for k in range(2):
        assert abs(_rowwise_kendall(x, y)[k] - st.kendalltau(x[k], y[k]).statistic) <= 1e-12


def test_interval_contains_estimate_and_is_reproducible(scores):
    x, y = scores
    a = correlate(x, y, n_resamples=2000, seed=5)
    b = correlate(x, y, n_resamples=2000, seed=5)
    c = correlate(x, y, n_resamples=2000, seed=6)
    assert a == b
    assert a != c
    for r in a:
        assert r.ci_low < r.estimate < r.ci_high


def test_interval_covers_true_correlation_at_about_the_nominal_rate():
    rng = np.random.default_rng(11)
    rho = 0.5
    hits = 0
    trials = 120
    for t in range(trials):
        x = rng.normal(size=60)
        y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=60)
        r = correlate(x, y, ["pearson"], n_resamples=500, seed=t)[0]
        hits += r.ci_low <= rho <= r.ci_high
    assert 0.85 <= hits / trials <= 0.99


def test_bad_inputs():
    with pytest.raises(ValueError, match="at least 3"):
        correlate([1, 2], [1, 2])
    with pytest.raises(ValueError, match="same length"):
        correlate([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="unknown method"):
        correlate([1, 2, 3], [1, 2, 3], ["pearsn"])
    with pytest.raises(ValueError, match="finite"):
        correlate([1, 2, float("nan")], [1, 2, 3])
