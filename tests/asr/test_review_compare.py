"""``asr compare`` on corner cases: the MAPSSWE line when every segment differs alike (z is
infinite, the p-value the sign test's), and a corpus whose references have no words (no NaN shown,
no numpy warning on stderr)."""

from __future__ import annotations

import json
import warnings

from voxjudge.cli.main import main
from voxjudge.stats.bootstrap import paired_bootstrap


def _write(tmp_path, ref, a, b):
    paths = []
    for name, text in (("ref", ref), ("a", a), ("b", b)):
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / f"{name}.txt"))
    return paths


def test_one_segment_does_not_print_an_infinite_z_beside_p_1(tmp_path, capsys):
    ref, a, b = _write(tmp_path, "u1 the cat sat on the mat\n", "u1 the cat sat on a mat\n", "u1 a dog sat in a hat\n")
    argv = ["asr", "compare", "--ref", ref, "--hyp-a", a, "--hyp-b", b, "--ids", "--resamples", "200"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "inf" not in out
    assert "MAPSSWE: 1 segment," in out
    assert "exact sign test" in out
    assert main([*argv, "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["significance"]["mapsswe"]
    assert m["z"] is None and m["test"] == "exact sign test"


def test_a_usual_comparison_names_the_normal_approximation(examples, capsys):
    en = examples / "asr" / "en"
    argv = ["asr", "compare", "--ref", en / "ref.txt", "--hyp-a", en / "sys_a.txt", "--hyp-b", en / "sys_b.txt"]
    assert main([*map(str, argv), "--ids", "--resamples", "200", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["significance"]["mapsswe"]
    assert m["test"] == "normal approximation" and m["z"] is not None


def test_references_without_words_print_no_nan_and_no_warning(tmp_path, capsys):
    ref, a, b = _write(tmp_path, "u1\nu2\n", "u1 hello\nu2\n", "u1\nu2 x y\n")
    argv = ["asr", "compare", "--ref", ref, "--hyp-a", a, "--hyp-b", b, "--ids", "--resamples", "200"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(argv) == 0
    captured = capsys.readouterr()
    assert "+nan" not in captured.out
    assert "paired bootstrap of WER difference: none" in captured.out
    assert "RuntimeWarning" not in captured.err


def test_paired_bootstrap_of_no_reference_words_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        boot = paired_bootstrap([1, 0], [0, 2], denominator=[0, 0], n_resamples=50)
    assert boot.difference != boot.difference  # NaN: no ratio without reference words


def test_align_refuses_a_negative_limit(tmp_path, capsys):
    """``--limit -1`` showed no alignment and exited 0: an option silently doing nothing."""
    ref, a, _ = _write(tmp_path, "u1 the cat\n", "u1 a cat\n", "u1 a cat\n")
    assert main(["asr", "align", "--ref", ref, "--hyp", a, "--ids", "--limit", "-1"]) == 2
    assert "--limit counts utterances to show: 0 or more, not -1" in capsys.readouterr().err
    assert main(["asr", "align", "--ref", ref, "--hyp", a, "--ids", "--limit", "0"]) == 0
