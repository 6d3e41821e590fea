from __future__ import annotations

import math

import pytest

from voxjudge.asr import align, compare_systems, mapsswe
from voxjudge.asr.significance import segment_errors


def test_segments_are_cut_by_two_words_both_systems_got_right():
    ref = "w1 w2 w3 w4 w5 w6 w7 w8"
    a = align(ref, "w1 x2 w3 w4 w5 w6 x7 w8")
    b = align(ref, "w1 w2 w3 w4 w5 w6 w7 w8")
    # w3 w4 w5 w6 are right in both: the errors at w2 and w7 fall into separate segments.
    assert segment_errors(a, b) == [(1, 0), (1, 0)]


def test_a_single_shared_correct_word_does_not_cut():
    ref = "w1 w2 w3"
    a = align(ref, "x1 w2 x3")
    b = align(ref, "w1 w2 w3")
    assert segment_errors(a, b) == [(2, 0)]


def test_insertions_inside_an_anchor_break_it():
    ref = "w1 w2 w3 w4"
    a = align(ref, "x1 w2 extra w3 x4")
    b = align(ref, "w1 w2 w3 w4")
    # w2 and w3 are correct in both but an insertion sits between them: one segment.
    assert segment_errors(a, b) == [(3, 0)]


def test_segments_with_errors_in_both_systems_and_trailing_insertions():
    ref = "w1 w2 w3 w4 w5"
    a = align(ref, "w1 w2 w3 w4 w5 tail")
    b = align(ref, "y1 w2 w3 w4 w5")
    assert segment_errors(a, b) == [(0, 1), (1, 0)]


def test_mapsswe_statistic_by_hand():
    refs = ["a b c d e f", "a b c d e f", "a b c d e f", "a b c d e f"]
    hyp_a = ["x b c d e f", "x b c d e f", "x b c d e y", "a b c d e f"]
    hyp_b = ["a b c d e f", "a b c d e f", "a b c d e f", "x b c d e f"]
    res = mapsswe([align(r, h) for r, h in zip(refs, hyp_a)], [align(r, h) for r, h in zip(refs, hyp_b)])
    diffs = [1, 1, 1, 1, -1]
    mean = sum(diffs) / 5
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 4)
    assert res.segments == 5
    assert (res.errors_a, res.errors_b) == (4, 1)
    assert res.mean_difference == pytest.approx(mean)
    assert res.z == pytest.approx(mean / (sd / math.sqrt(5)))
    from scipy.stats import norm

    assert res.p_value == pytest.approx(2 * norm.sf(abs(res.z)))


def test_identical_systems_are_not_significantly_different():
    refs = ["a b c", "d e f"]
    hyps = ["a x c", "d e"]
    res = mapsswe([align(r, h) for r, h in zip(refs, hyps)], [align(r, h) for r, h in zip(refs, hyps)])
    assert res.p_value == 1.0 and res.z == 0.0


def test_compare_systems_reports_deltas_confusions_and_significance():
    refs = ["the cat sat on the mat"] * 30 + ["a b c d"] * 30
    a = ["the cat sat on the mat"] * 30 + ["a b c d"] * 30
    b = ["the bat sat on the mat"] * 30 + ["a b x d"] * 30
    cmp = compare_systems(refs, a, b, n_resamples=2000, seed=1)
    s = cmp.summary()
    assert s["a"]["wer"] == 0.0
    assert s["delta"]["wer"] == pytest.approx(-60 / 300)
    assert s["utterances"] == {"count": 60, "a_better": 60, "b_better": 0, "ties": 0}
    assert s["confusions"]["b"]["substitutions"][0] == {"ref": "cat", "hyp": "bat", "count": 30}
    # every segment favours A by one error: no spread, so the exact sign test's p (it was 0)
    assert s["significance"]["mapsswe"]["p_value"] == pytest.approx(2 * 0.5 ** s["significance"]["mapsswe"]["segments"])
    assert "caution" not in s["significance"]  # 60 utterances differ
    assert s["significance"]["paired_bootstrap_wer"]["p_value"] == 0.0
    assert s["significance"]["paired_bootstrap_wer"]["ci_high"] < 0


def test_one_differing_utterance_is_no_evidence_and_says_so():
    """One utterance gave MAPSSWE p=0 and a bootstrap p < 0.0002, without a word."""
    cmp = compare_systems(["the cat sat on the mat"], ["the cat sat on the hat"], ["the cat sat on the mat"])
    s = cmp.summary()
    assert s["significance"]["mapsswe"]["p_value"] == 1.0  # one segment: 2 * 0.5
    assert "only 1 utterance(s) differ" in s["significance"]["caution"] and "p = 1" in s["significance"]["caution"]
    many = compare_systems(["a b c"] * 12, ["a b x"] * 12, ["a b c"] * 12).summary()
    assert "caution" not in many["significance"]


def test_the_command_prints_the_caution_before_the_tests(tmp_path, capsys):
    from voxjudge.cli.main import main

    ref, a, b = (tmp_path / n for n in ("r.txt", "a.txt", "b.txt"))
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    a.write_text("the cat sat on the hat\n", encoding="utf-8")
    b.write_text("the cat sat on the mat\n", encoding="utf-8")
    assert main(["asr", "compare", "--ref", str(ref), "--hyp-a", str(a), "--hyp-b", str(b)]) == 0
    out = capsys.readouterr().out
    assert out.index("caution: only 1 utterance(s) differ") < out.index("MAPSSWE") and "p=1" in out


@pytest.mark.parametrize("extra, said", [(["--top", "-1"], "--top counts"), (["--names", "X,X"], "two different")])
def test_compare_refuses_options_that_would_mislead(tmp_path, capsys, extra, said):
    """--top -1 emptied every confusion table; --names X,X printed 'X better 5, X better 0'."""
    from voxjudge.cli.main import main

    ref = tmp_path / "r.txt"
    ref.write_text("a b c\n", encoding="utf-8")
    assert main(["asr", "compare", "--ref", str(ref), "--hyp-a", str(ref), "--hyp-b", str(ref), *extra]) == 2
    assert said in capsys.readouterr().err
