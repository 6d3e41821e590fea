"""Human files from a study in progress: one join (``voxjudge.io.join``) for every ``--human`` and
``stats agree``. Without ``--allow-partial`` a missing id is an error that names the flag; with it
the intersection is used and the coverage comes first; unrelated files are refused either way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import scipy.stats as st

from voxjudge.cli.main import main
from voxjudge.errors import InputError
from voxjudge.io.join import join_by_id

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_full_join_keeps_left_order_and_is_not_partial():
    j = join_by_id({"b": 2, "a": 1, "c": 3}, [("a", "x"), ("c", "z"), ("b", "y")])
    assert j.ids == ["b", "a", "c"] and j.left == [2, 1, 3] and j.right == ["y", "x", "z"]
    assert not j.partial and j.coverage()["left"] == {
        "name": "metric", "n": 3, "matched": 3, "coverage": 1.0, "unmatched": 0, "unmatched_ids": []
    }  # fmt: skip


def test_missing_ids_are_an_error_that_names_the_setting():
    with pytest.raises(InputError) as e:
        join_by_id({"a": 1, "b": 2, "c": 3}, {"a": 1, "c": 3}, left_name="m.tsv", right_name="h.tsv")
    assert str(e.value) == (
        "h.tsv has no entry for 1 of the 3 items in m.tsv: 'b'; add it, "
        "or use allow_partial=True to use the 2 in common"
    )
    with pytest.raises(InputError, match="h.tsv has 2 ids that are not among the items in m.tsv: 'x', 'y'"):
        join_by_id({"a": 1, "b": 2}, {"a": 1, "b": 2, "x": 0, "y": 0}, left_name="m.tsv", right_name="h.tsv")


def test_allow_partial_uses_the_intersection_and_counts_both_sides():
    j = join_by_id({"a": 1, "b": 2, "c": 3, "d": 4}, {"d": 40, "a": 10, "z": 0}, allow_partial=True)
    assert j.ids == ["a", "d"] and j.right == [10, 40] and j.partial and j.left_partial
    c = j.coverage()
    assert c["matched"] == 2 and c["left"]["n"] == 4 and c["left"]["unmatched_ids"] == ["b", "c"]
    assert c["left"]["coverage"] == 0.5 and c["right"]["n"] == 3 and c["right"]["unmatched_ids"] == ["z"]


def test_extra_right_ids_can_be_ignored_without_the_flag():
    j = join_by_id({"a": 1, "b": 2}, {"a": 1, "b": 2, "z": 9}, right_extra="ignore")
    assert j.ids == ["a", "b"] and not j.left_partial and j.right_side.missing == ["z"]


@pytest.mark.parametrize("allow", [False, True])
def test_unrelated_sides_are_refused_even_when_partial_is_allowed(allow):
    with pytest.raises(InputError, match="none of its 2 ids is among the items in metric"):
        join_by_id({"a": 1}, {"x": 1, "y": 2}, allow_partial=allow)


def test_a_repeated_id_is_an_error():
    with pytest.raises(InputError, match="id 'a' appears more than once"):
        join_by_id([("a", 1), ("a", 2)], {"a": 1}, left_name="m.tsv")


@pytest.fixture
def score_files(tmp_path):
    metric = {"u1": 0.9, "u2": 0.4, "u3": 0.7, "u4": 0.2, "u5": 0.6, "u6": 0.8}
    human = {"u1": 5, "u2": 2, "u3": 3, "u4": 1, "u6": 4, "zz": 3}  # u5 not yet rated, zz unknown
    m, h = tmp_path / "m.tsv", tmp_path / "h.tsv"
    m.write_text("id\tscore\n" + "".join(f"{k}\t{v}\n" for k, v in metric.items()))
    h.write_text("id\tscore\n" + "".join(f"{k}\t{v}\n" for k, v in human.items()))
    return m, h, metric, human


def test_stats_agree_partial_file(score_files, capsys):
    m, h, metric, human = score_files
    argv = ["stats", "agree", "--metric", str(m), "--human", str(h), "--resamples", "200"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "has no entry for 1 of the 6 items" in err and "'u5'" in err and "--allow-partial" in err
    assert main([*argv, "--allow-partial", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out)[0] == "coverage"  # what the numbers cover comes first
    cov = out["coverage"]
    assert cov["matched"] == 5 and cov["left"]["unmatched_ids"] == ["u5"] and cov["right"]["unmatched_ids"] == ["zz"]
    common = ["u1", "u2", "u3", "u4", "u6"]
    expected = st.pearsonr([metric[k] for k in common], [human[k] for k in common]).statistic
    assert out["n"] == 5 and out["correlations"][0]["estimate"] == pytest.approx(expected)
    assert main([*argv, "--allow-partial"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("partial: 5 of 6 items of ") and "1 id of " in text and "on 5 items" in text


def test_stats_agree_refuses_unrelated_files(score_files, tmp_path, capsys):
    m, _, _, _ = score_files
    other = tmp_path / "other.tsv"
    other.write_text("id\tscore\nx1\t1\nx2\t2\nx3\t3\n")
    assert main(["stats", "agree", "--metric", str(m), "--human", str(other), "--allow-partial"]) == 2
    assert "none of its 3 ids is among the items" in capsys.readouterr().err


def test_breaks_score_with_a_partial_human_file(tmp_path, capsys):
    d = EXAMPLES / "breaks"
    rows = (d / "human.tsv").read_text().splitlines()
    partial = tmp_path / "human_part.tsv"
    partial.write_text("\n".join(rows[:41]) + "\n")  # header + 40 of 72 hypotheses rated so far
    argv = ["breaks", "score", "--ref", str(d / "table.jsonl"), "--hyp", str(d / "hypotheses.tsv"),
            "--human", str(partial), "--resamples", "200"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "has no entry for 32 of the 72 scored hypotheses" in err and "--allow-partial" in err
    assert main([*argv, "--allow-partial", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out)[0] == "coverage" and out["coverage"]["partial"] and out["coverage"]["rated"] == 40
    assert out["coverage"]["human"]["left"]["unmatched"] == 32 and out["n"] == 72
    # the correlation is over the 40 rated hypotheses, computed independently with scipy
    records = tmp_path / "recs.jsonl"
    assert main([*argv, "--allow-partial", "--out", str(records)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("partial: 40 of 72 scored hypotheses") and "n=40" in text
    human = {r.split("\t")[0]: float(r.split("\t")[1]) for r in rows[1:41]}
    recs = [json.loads(line) for line in records.read_text().splitlines()]
    pairs = [(r["score"], human[r["id"]]) for r in recs if r["id"] in human]
    assert out["pearson"]["estimate"] == pytest.approx(st.pearsonr(*zip(*pairs)).statistic)
    assert out["metrics"]["f1"]["covers"]["agreement"].startswith("40 of 72")
    assert sum(g["n"] for g in out["acceptance_by_group"] if g["group"] != "all") == 40
