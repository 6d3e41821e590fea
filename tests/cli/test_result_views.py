"""Each evaluator returns one result object (settings, records, summary); the table and --json
are views of it: the table rebuilt from the JSON view equals the table the command printed."""

from __future__ import annotations

import json

import pytest

from voxjudge.cli import pairwise as pairwise_cli
from voxjudge.cli import views
from voxjudge.cli.main import main
from voxjudge.pairwise import Rubric, read_pairs
from voxjudge.pairwise.result import PairwiseResult, analysed, compared


def _run(capsys, argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().out.rstrip("\n")


@pytest.fixture
def judgments(examples, tmp_path, capsys):
    d = examples / "pairwise"
    acoustic, fake = tmp_path / "acoustic.jsonl", tmp_path / "fake.jsonl"
    pairs = str(d / "pairs.jsonl")
    assert main(["pairwise", "judge", "--pairs", pairs, "--samples", "2", "--out", str(acoustic)]) == 0
    argv = ["--judge", "fake/prosody?bias=2&noise=0", "--samples", "4", "--no-cache"]
    assert main(["pairwise", "judge", "--pairs", pairs, *argv, "--out", str(fake)]) == 0
    capsys.readouterr()
    return pairs, str(acoustic), str(fake)


def test_pairwise_analyze_table_and_json_are_views_of_one_result(judgments, capsys):
    pairs, acoustic, _ = judgments
    argv = ["pairwise", "analyze", acoustic, "--pairs", pairs, "--select-weights"]
    code, table = _run(capsys, argv)
    assert code == 0
    code, out = _run(capsys, [*argv, "--json"])
    view = json.loads(out)
    assert code == 0 and view["settings"]["judgments"] == acoustic and view["settings"]["select_weights"]
    assert views.render_pairwise_analysis(PairwiseResult.from_view("analyze", view).summary) == table
    # The library call gives the same object the command rendered.
    result = analysed(
        [json.loads(line) for line in open(acoustic)],
        read_pairs(pairs, check_audio=False),
        Rubric.default(),
        source=acoustic,
        weights={"val_fraction": 0.5, "seed": 0},
    )
    assert json.loads(json.dumps(result.view())) == view
    assert len(result.records) == 36 and {r["pair_id"] for r in result.records} == {
        p.pair_id for p in read_pairs(pairs, check_audio=False)
    }


def test_pairwise_compare_views_and_records(judgments, capsys):
    pairs, acoustic, fake = judgments
    argv = ["pairwise", "compare", acoustic, fake, "--pairs", pairs, "--resamples", "300", "--confidence", "0.9"]
    code, table = _run(capsys, argv)
    assert code == 0 and "90% CI" in table
    code, out = _run(capsys, [*argv, "--json"])
    view = json.loads(out)
    assert view["settings"]["bootstrap"] == {"resamples": 300, "seed": 0, "confidence": 0.9}
    assert pairwise_cli.render_comparison(PairwiseResult.from_view("compare", view)) == table
    result = compared(
        [json.loads(line) for line in open(acoustic)],
        [json.loads(line) for line in open(fake)],
        read_pairs(pairs, check_audio=False),
        Rubric.default(),
        n_resamples=300,
        confidence=0.9,
    )
    # One record per labelled pair: the accuracies in the summary are the records' means.
    rows = result.records
    assert rows and result.summary["n_pairs"] == len(rows)
    assert result.summary["accuracy_a"] == pytest.approx(sum(r["correct_a"] for r in rows) / len(rows))
    assert result.summary["accuracy_b"] == pytest.approx(sum(r["correct_b"] for r in rows) / len(rows))


def test_pairwise_select_views(examples, capsys):
    argv = ["pairwise", "select", "--candidates", str(examples / "pairwise" / "candidates.jsonl"), "--samples", "2"]
    code, table = _run(capsys, argv)
    assert code == 0
    code, out = _run(capsys, [*argv, "--json"])
    view = json.loads(out)
    assert view["settings"]["judge"] == "acoustic" and view["settings"]["samples"] == 2
    assert pairwise_cli.render_selection(PairwiseResult.from_view("select", view)) == table


def test_breaks_score_table_json_and_records_are_one_result(examples, tmp_path, capsys):
    d = examples / "breaks"
    out = tmp_path / "records.jsonl"
    argv = ["breaks", "score", "--refs", str(d / "table.jsonl"), "--hyps", str(d / "hypotheses.tsv")]
    argv += ["--human", str(d / "human.tsv"), "--metric", "em,f1", "--resamples", "300", "--confidence", "0.8"]
    code, table = _run(capsys, argv)
    assert code == 0 and "80% CI" in table
    code, js = _run(capsys, [*argv, "--json", "--out", str(out)])
    view = json.loads(js)
    assert view["settings"]["metrics"] == ["em", "f1"] and view["bootstrap"]["confidence"] == 0.8
    summary = {k: v for k, v in view.items() if k != "settings"}
    assert views.render_breaks_summary(summary) == table
    records = [json.loads(line) for line in out.read_text().splitlines()]
    accepted = [r["accepted"] for r in records if r.get("error") is None]
    assert view["n"] == len(accepted) and view["acceptance"] == pytest.approx(sum(accepted) / len(accepted))


def test_breaks_build_refs_result_settings_records_summary(examples, tmp_path, capsys, monkeypatch):
    from voxjudge.breaks import ReferenceTable
    from voxjudge.llm.providers import fake

    def script(request, index):
        items = json.loads(request.messages[-1].text_content.split("Items:\n", 1)[1])
        return {"items": [{"id": it["id"], "annotation": it["text"] + " <SB>"} for it in items]}

    monkeypatch.setitem(fake._SCRIPTS, "echo-views", script)
    d = examples / "breaks"
    table = tmp_path / "built.jsonl"
    argv = ["breaks", "build-refs", "--texts", str(d / "texts.txt"), "--pool", str(d / "pool.txt")]
    argv += ["--judge", "fake/echo-views", "--n-iter", "2", "--out", str(table), "--no-cache"]
    assert main(argv) == 0
    assert "24 references for 24 texts" in capsys.readouterr().err  # the status line for people
    assert main([*argv, "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["settings"]["n_iter"] == 2 and view["settings"]["judge"] == "fake/echo-views"
    assert view["texts"] == 24 and view["unscored"] == 0 and view["usage"]["requests"] == 2
    # the records are the saved table
    saved = ReferenceTable.load(table)
    assert view["references_kept"] == saved.reference_count == 24


def test_pairwise_analyze_accuracy_interval(judgments, capsys):
    pairs, acoustic, fake = judgments
    views = {}
    for name, path in (("acoustic", acoustic), ("fake", fake)):
        for level in ("0.95", "0.5"):
            argv = ["pairwise", "analyze", path, "--pairs", pairs, "--resamples", "400", "--confidence", level]
            code, out = _run(capsys, [*argv, "--json"])
            assert code == 0
            views[name, level] = json.loads(out)
    # every pair right: no spread at all
    assert views["acoustic", "0.95"]["accuracy"] == 1.0
    assert views["acoustic", "0.95"]["accuracy_ci"] == {"low": 1.0, "high": 1.0, "confidence": 0.95}
    wide, narrow = views["fake", "0.95"], views["fake", "0.5"]
    acc = wide["accuracy"]
    assert 0 < acc < 1
    assert wide["accuracy_ci"]["low"] <= narrow["accuracy_ci"]["low"] <= acc <= narrow["accuracy_ci"]["high"]
    assert narrow["accuracy_ci"]["high"] <= wide["accuracy_ci"]["high"]
    assert wide["accuracy_ci"]["low"] < wide["accuracy_ci"]["high"]
