"""The cluster bootstrap of correlations: hand-computed cases, and every weighted statistic against
scipy on the expanded resamples (each item repeated as often as its group was drawn)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st

from voxjudge.stats import grouped
from voxjudge.stats.bootstrap import resample_chunks
from voxjudge.stats.grouped import cluster_weights, group_codes, grouped_correlations

# two utterances, the metric constant within each: a resample that draws one utterance twice has a
# constant metric (no correlation); one that draws both is the whole set, where for x = 0, 0, 1, 1
# and y = 0, 2, 1, 3: cov = 1, var x = 1, var y = 5 (sums of squares), r = 1 / sqrt(5).
X, Y, GROUPS = [0.0, 0.0, 1.0, 1.0], [0.0, 2.0, 1.0, 3.0], ["a", "a", "b", "b"]


def test_whole_utterances_move_together_by_hand():
    got = grouped_correlations({"m": X}, Y, GROUPS, ("pearson", "spearman"), n_resamples=500, seed=1)
    assert got.groups == 2
    for method in ("pearson", "spearman"):  # ranks 1.5 1.5 3.5 3.5 and 1 3 2 4: the same r
        c = got.by_metric["m"][method]
        assert c.estimate == pytest.approx(1 / math.sqrt(5))
        assert (c.ci_low, c.ci_high) == pytest.approx((1 / math.sqrt(5), 1 / math.sqrt(5)), abs=1e-12)
    # resampling the four hypotheses one by one instead spreads the interval (and is wrong here)
    loose = grouped_correlations({"m": X}, Y, ["1", "2", "3", "4"], ("pearson",), n_resamples=500, seed=1)
    assert loose.by_metric["m"]["pearson"].ci_high - loose.by_metric["m"]["pearson"].ci_low > 0.3


def test_paired_difference_by_hand():
    # y itself has r = 1 on every resample, x has 1/sqrt(5): the difference is 1 - 1/sqrt(5) on
    # every resample, so its CI is that point and no resample is on the far side of 0
    got = grouped_correlations({"x": X, "y": Y}, Y, GROUPS, ("pearson",), pairs=[("y", "x")], n_resamples=300)
    (d,) = got.differences
    assert (d.a, d.b, d.method, d.n, d.groups) == ("y", "x", "pearson", 4, 2)
    assert d.difference == pytest.approx(1 - 1 / math.sqrt(5))
    assert (d.ci_low, d.ci_high) == pytest.approx((1 - 1 / math.sqrt(5),) * 2, abs=1e-12)
    assert d.p_value == 0.0


def test_default_pairs_are_each_later_metric_minus_each_earlier():
    got = grouped_correlations({"a": X, "b": Y, "c": [3.0, 1.0, 2.0, 0.0]}, Y, GROUPS, ("pearson",), n_resamples=20)
    assert [(d.a, d.b) for d in got.differences] == [("b", "a"), ("c", "a"), ("c", "b")]


@pytest.fixture
def tied_data():
    rng = np.random.default_rng(5)
    n = 30
    x = rng.integers(0, 6, n).astype(float)  # ties on purpose
    y = np.round(x + rng.normal(0, 2, n), 1)
    groups = [f"u{k // 3}" for k in range(n)]  # ten utterances of three hypotheses
    return x, y, groups


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_weighted_statistics_are_scipy_on_the_expanded_resamples(tied_data, method, monkeypatch):
    x, y, groups = tied_data
    codes, n_groups = group_codes(groups)
    (w,) = list(cluster_weights(codes, n_groups, 40, seed=3))
    draws = next(resample_chunks(n_groups, 40, 3))
    fn = {"pearson": st.pearsonr, "spearman": st.spearmanr, "kendall": st.kendalltau}[method]
    want = []
    for row in draws:
        take = np.concatenate([np.flatnonzero(codes == g) for g in row])
        want.append(fn(x[take], y[take]).statistic)
    weighted = {"pearson": grouped.weighted_pearson, "spearman": grouped.weighted_spearman}
    weighted["kendall"] = grouped.weighted_kendall
    np.testing.assert_allclose(weighted[method](x, y, w), want, atol=1e-12)
    if method == "kendall":  # the per-resample path for large n gives the same
        monkeypatch.setattr(grouped, "_KENDALL_MATRIX_MAX_N", 0)
        np.testing.assert_allclose(grouped.weighted_kendall(x, y, w), want, atol=1e-12)


def test_interval_is_the_percentiles_of_the_expanded_resamples(tied_data):
    x, y, groups = tied_data
    got = grouped_correlations({"m": x}, y, groups, ("spearman",), n_resamples=200, seed=9)
    codes, n_groups = group_codes(groups)
    rs = []
    for row in next(resample_chunks(n_groups, 200, 9)):
        take = np.concatenate([np.flatnonzero(codes == g) for g in row])
        rs.append(st.spearmanr(x[take], y[take]).statistic)
    c = got.by_metric["m"]["spearman"]
    assert (c.ci_low, c.ci_high) == pytest.approx(tuple(np.quantile(rs, [0.025, 0.975])), abs=1e-12)
    assert c.estimate == pytest.approx(st.spearmanr(x, y).statistic)


def test_unscored_items_leave_their_metric_and_its_pairs_only(tied_data):
    x, y, groups = tied_data
    partial = [None if k in (0, 4) else v for k, v in enumerate(x)]
    got = grouped_correlations({"full": x, "partial": partial}, y, groups, ("pearson",), n_resamples=100)
    keep = [k for k in range(len(x)) if k not in (0, 4)]
    assert got.by_metric["partial"]["pearson"].n == 28
    assert got.by_metric["partial"]["pearson"].estimate == pytest.approx(st.pearsonr(x[keep], y[keep]).statistic)
    assert got.by_metric["full"]["pearson"].n == 30
    (d,) = got.differences
    assert d.n == 28 and d.difference == pytest.approx(0.0)  # the same values on the common items


def test_undefined_correlation_is_a_reason_not_nan():
    got = grouped_correlations({"flat": [1.0] * 4, "m": X}, Y, GROUPS, ("pearson",), n_resamples=20)
    assert "all equal" in got.by_metric["flat"]
    assert got.differences == []  # no difference with a metric that has no correlation


def test_same_seed_same_numbers_and_checks(tied_data):
    x, y, groups = tied_data
    one = grouped_correlations({"m": x, "n": y}, y, groups, n_resamples=100, seed=4)
    two = grouped_correlations({"m": x, "n": y}, y, groups, n_resamples=100, seed=4)
    assert one.differences == two.differences and one.by_metric == two.by_metric
    with pytest.raises(ValueError, match="one value per item"):
        grouped_correlations({"m": x[:-1]}, y, groups)
    with pytest.raises(ValueError, match="methods"):
        grouped_correlations({"m": x}, y, groups, ("tau",))
