from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.stats as st

from voxjudge.cli.main import main


@pytest.fixture
def score_files(tmp_path):
    rng = np.random.default_rng(2)
    human = rng.integers(1, 6, size=40).astype(float)
    metric = human / 5 + rng.normal(0, 0.2, size=40)
    ids = [f"utt{k:02d}" for k in range(40)]
    (tmp_path / "metric.tsv").write_text("id\twer\n" + "".join(f"{i}\t{float(m)!r}\n" for i, m in zip(ids, metric)))
    # Human file lists the items in another order: matching is by id.
    order = rng.permutation(40)
    (tmp_path / "human.txt").write_text("".join(f"{ids[k]} {human[k]:g}\n" for k in order))
    return tmp_path, metric, human


def agree(d, *options):
    """``stats agree`` of the fixture's WER column with its human scores."""
    argv = ["stats", "agree", "--metric", str(d / "metric.tsv"), "--metric-col", "wer", "--human", str(d / "human.txt")]
    return main([*argv, *options])


def test_agree_json_equals_scipy(capsys, score_files):
    d, metric, human = score_files
    code = agree(d, "--json", "--resamples", "1000")
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["n"] == 40
    got = {c["method"]: c for c in out["correlations"]}
    assert abs(got["pearson"]["estimate"] - st.pearsonr(metric, human).statistic) <= 1e-12
    assert abs(got["kendall"]["estimate"] - st.kendalltau(metric, human).statistic) <= 1e-12
    assert got["spearman"]["ci_low"] < got["spearman"]["estimate"] < got["spearman"]["ci_high"]


def test_agree_table(capsys, score_files):
    d, _, _ = score_files
    code = agree(d, "--methods", "pearson", "--resamples", "300")
    out = capsys.readouterr().out
    assert code == 0 and "pearson" in out and "kendall" not in out and "95% CI" in out


@pytest.mark.parametrize(
    "metric, human, extra, message",
    [
        ("a 1\nb 2\nc 3\n", "a 1\nb 2\n", [], "has no entry for 1 of the 3 items"),
        ("a 1\nb x\nc 3\n", "a 1\nb 2\nc 3\n", [], "score 'x' for id 'b' is not a number"),
        ("a 1\nb 1\nc 1\n", "a 1\nb 2\nc 3\n", [], "scores are all equal"),
        ("a 1\nb 2\n", "a 1\nb 2\n", [], "needs at least 3"),
        ("a 1\nb 2\nc 3\n", "a 1\nb 2\nc 3\n", ["--methods", "pearsn"], "unknown pearsn"),
    ],
)
def test_agree_bad_input(capsys, tmp_path, metric, human, extra, message):
    (tmp_path / "m.txt").write_text(metric)
    (tmp_path / "h.txt").write_text(human)
    code = main(["stats", "agree", "--metric", str(tmp_path / "m.txt"), "--human", str(tmp_path / "h.txt"), *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err
