from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from voxjudge.stats import acceptance_table, paired_bootstrap, resample_chunks
from voxjudge.stats import bootstrap as bootstrap_module


def test_resample_matrix_is_seeded_and_shared():
    a = np.concatenate(list(resample_chunks(50, 300, seed=3)))
    b = np.concatenate(list(resample_chunks(50, 300, seed=3)))
    assert a.shape == (300, 50)
    assert (a == b).all()
    assert not (a == np.concatenate(list(resample_chunks(50, 300, seed=4)))).all()


def test_chunked_resampling_equals_one_index_matrix(monkeypatch):
    rng = np.random.default_rng(0)
    a, b = rng.random(40), rng.random(40)
    whole = paired_bootstrap(a, b, n_resamples=500, seed=9)
    idx = np.random.default_rng(9).integers(0, 40, size=(500, 40))
    manual = a[idx].mean(axis=1) - b[idx].mean(axis=1)
    assert whole.ci_low == pytest.approx(np.quantile(manual, 0.025), abs=1e-15)
    assert whole.ci_high == pytest.approx(np.quantile(manual, 0.975), abs=1e-15)
    monkeypatch.setattr(bootstrap_module, "_MAX_CELLS", 40 * 7)  # 7 resamples per chunk
    assert paired_bootstrap(a, b, n_resamples=500, seed=9) == whole


def test_ratio_of_sums_is_corpus_wer():
    errors_a = [1, 0, 2, 0]
    errors_b = [2, 1, 2, 1]
    words = [5, 4, 10, 1]
    res = paired_bootstrap(errors_a, errors_b, denominator=words, n_resamples=1000)
    assert res.a == pytest.approx(3 / 20)
    assert res.b == pytest.approx(6 / 20)
    assert res.difference == pytest.approx(-3 / 20)


def test_no_difference_gives_p_one():
    x = [0.1, 0.5, 0.3, 0.9]
    res = paired_bootstrap(x, x, n_resamples=500)
    assert res.difference == 0 and res.p_value == 1.0 and res.ci_low == res.ci_high == 0


def test_clear_difference_is_significant():
    rng = np.random.default_rng(1)
    a = rng.normal(1.0, 0.1, size=100)
    res = paired_bootstrap(a, a - 0.5, n_resamples=2000)
    assert res.p_value == 0.0 and res.ci_low > 0.4


def test_bootstrap_errors():
    with pytest.raises(ValueError):
        paired_bootstrap([1, 2], [1])
    with pytest.raises(ValueError):
        paired_bootstrap([1, 2], [1, 2], confidence=1.5)
    with pytest.raises(ValueError):
        list(resample_chunks(0))


def test_acceptance_table_with_wilson_intervals():
    accepted = [True, False, True, True, False, True]
    groups = [2, 1, 1, 10, 2, 2]
    rows = acceptance_table(accepted, groups)
    assert [r["group"] for r in rows] == [1, 2, 10, "all"]
    two = rows[1]
    assert (two["n"], two["accepted"], two["rate"]) == (3, 2, 2 / 3)
    ci = binomtest(2, 3).proportion_ci(method="wilson")
    assert (two["ci_low"], two["ci_high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert rows[-1]["n"] == 6 and rows[-1]["accepted"] == 4


def test_acceptance_table_length_mismatch():
    with pytest.raises(ValueError):
        acceptance_table([True], [1, 2])
