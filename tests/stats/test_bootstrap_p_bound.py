"""The paired bootstrap's p-value is two-sided (twice the share of resampled differences on the far
side of zero), so the smallest one it can give above 0 is 2/B, and a p-value of 0 (no resample
crossed zero) is honestly p < 2/B, not p < 1/B: in the function, the text and the HTML report."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from voxjudge.cli.main import main
from voxjudge.stats.bootstrap import paired_bootstrap


@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=12),
    st.integers(1, 60),
    st.integers(0, 5),
)
def test_a_p_value_above_zero_is_never_below_the_bound(pairs, resamples, seed):
    from voxjudge.stats.bootstrap import p_value_bound

    a, b = zip(*pairs)
    p = paired_bootstrap(a, b, n_resamples=resamples, seed=seed).p_value
    assert p == 0 or p >= p_value_bound(resamples) - 1e-12


def test_the_smallest_p_value_above_zero_is_two_over_b():
    # one item of four differs: a resample crosses zero (no difference) when it misses that item,
    # (3/4)^4 of the time; B = 200 draws some; the share on the far side is k/B, p = 2k/B
    from voxjudge.stats.bootstrap import p_value_bound

    found = {paired_bootstrap([1, 0, 0, 0], [0, 0, 0, 0], n_resamples=200, seed=s).p_value for s in range(40)}
    assert 0 < min(found) and min(found) * 200 == np.round(min(found) * 200)
    assert all(p == 0 or p >= 2 / 200 for p in found)
    assert p_value_bound(200) == 0.01 and p_value_bound(1) == 1.0


def test_zero_crossings_read_p_below_two_over_b(tmp_path, capsys):
    ref = ["the cat sat on the mat", "a dog ran in the park", "birds sing every morning here", "the sun is bright"]
    hyp = ["the hat sat on the mat", "a log ran in the park", "words sing every morning here", "the fun is bright"]
    (tmp_path / "ref.txt").write_text("\n".join(ref) + "\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("\n".join(hyp) + "\n", encoding="utf-8")
    report = tmp_path / "r.html"
    argv = ["asr", "compare", "--ref", tmp_path / "ref.txt", "--hyp-a", tmp_path / "ref.txt", "--hyp-b"]
    argv += [tmp_path / "b.txt", "--resamples", "200", "--embedder", "fake/hash", "--report", report]
    assert main([str(a) for a in argv]) == 0
    out = capsys.readouterr().out
    # A is right everywhere B is wrong: no resample crosses zero, for the WER nor for SemDist
    assert out.count("p < 0.01") == 2 and "p < 0.005" not in out
    html = report.read_text(encoding="utf-8")
    assert html.count("p &lt; 0.01") == 2 and "p &lt; 0.005" not in html


def test_resamples_without_reference_words_are_left_out_without_a_warning(tmp_path, capsys):
    """`asr compare` with an empty reference printed numpy's RuntimeWarning (and its source line)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # u2 has no reference words and an inserted word in both: inf - inf in a resample of u2 alone
        found = paired_bootstrap([1, 1], [0, 1], denominator=[2, 0], n_resamples=200, seed=0)
    assert found.difference == 0.5 and np.isfinite(found.ci_low) and np.isfinite(found.ci_high)
    ref, a, b = (tmp_path / n for n in ("ref.txt", "a.txt", "b.txt"))
    ref.write_text("u1 the cat sat\nu2\n", encoding="utf-8")
    a.write_text("u1 the cat sat\nu2 oh\n", encoding="utf-8")
    b.write_text("u1 the bat sat\nu2 ah\n", encoding="utf-8")
    assert main(["asr", "compare", "--ref", str(ref), "--hyp-a", str(a), "--hyp-b", str(b), "--ids", "--json"]) == 0
    assert "Warning" not in capsys.readouterr().err
