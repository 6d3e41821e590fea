"""``stats agree`` and the grouped correlations: no NaN shown as a figure, one row per method,
advice that fits score files, and no zero-width "interval" from a bootstrap of one group."""

from __future__ import annotations

import json

import numpy as np

from voxjudge.cli.main import main
from voxjudge.stats.grouped import grouped_correlations


def _files(tmp_path):
    (tmp_path / "m.txt").write_text("a 1\nb 2\nc 3\n")
    (tmp_path / "h.txt").write_text("a 1\nb 3\nc 2\n")
    return str(tmp_path / "m.txt"), str(tmp_path / "h.txt")


def test_no_nan_interval_when_no_resample_has_a_correlation(tmp_path, capsys):
    metric, human = _files(tmp_path)
    # seed 4, one resample: it draws a constant side, so no resample has a correlation
    argv = ["stats", "agree", "--metric", metric, "--human", human, "--methods", "pearson", "--resamples", "1"]
    assert main([*argv, "--bootstrap-seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "+nan" not in out
    assert "no CI for pearson" in out
    assert "1 resample," in out  # not "1 resamples"
    assert main([*argv, "--bootstrap-seed", "4", "--json"]) == 0
    cell = json.loads(capsys.readouterr().out)["correlations"][0]
    assert cell["ci_low"] is None and cell["ci_high"] is None


def test_a_method_given_twice_is_one_row(tmp_path, capsys):
    metric, human = _files(tmp_path)
    argv = ["stats", "agree", "--metric", metric, "--human", human, "--methods", "pearson,Pearson", "--json"]
    assert main([*argv, "--resamples", "50"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert [c["method"] for c in view["correlations"]] == ["pearson"]
    assert view["settings"]["methods"] == ["pearson"]


def test_ids_on_one_side_only_gives_advice_for_score_files(tmp_path, capsys):
    (tmp_path / "plain.txt").write_text("1\n2\n3\n5\n")
    (tmp_path / "h.tsv").write_text("id\tscore\na\t1\nb\t3\nc\t2\nd\t4\n")
    code = main(["stats", "agree", "--metric", str(tmp_path / "plain.txt"), "--human", str(tmp_path / "h.tsv")])
    err = capsys.readouterr().err
    assert code == 2
    assert "--ids" not in err  # stats agree has no such flag
    assert "'id score'" in err


def test_one_group_has_no_interval_and_no_p_value():
    human = [1.0, 2.0, 3.0, 4.5]
    found = grouped_correlations(
        {"x": [1.0, 2.5, 2.0, 4.0], "y": [0.5, 2.0, 3.5, 4.0]}, human, ["u1"] * 4, ["pearson"], n_resamples=200
    )
    cell = found.by_metric["x"]["pearson"]
    assert np.isfinite(cell.estimate)
    assert (cell.ci_low, cell.ci_high) == (None, None)
    (diff,) = found.differences
    assert diff.groups == 1 and (diff.ci_low, diff.ci_high, diff.p_value) == (None, None, None)
    # two groups: intervals again
    two = grouped_correlations({"x": [1.0, 2.5, 2.0, 4.0]}, human, ["u1", "u1", "u2", "u2"], ["pearson"])
    assert two.by_metric["x"]["pearson"].ci_low is not None
