"""Partial is never a headline: ``asr score`` with a judge that cannot be reached.

Only utterances with mismatches go to the judge, so when it is dead the scored ones are exactly
the error-free ones: LASER over them is 1.0, which must never be printed as the score.
"""

from __future__ import annotations

import json
import socket

from voxjudge.cli.main import main


def _refused_port() -> int:
    with socket.socket() as s:  # bound and closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _argv(examples, tmp_path, *extra):
    d = examples / "asr" / "hi"
    return [
        "asr",
        "score",
        "--ref",
        str(d / "ref.txt"),
        "--hyp",
        str(d / "sys_b.txt"),
        "--ids",
        "--judge",
        "openai/qwen2.5",
        "--base-url",
        f"http://127.0.0.1:{_refused_port()}/v1",
        "--max-retries",
        "0",
        "--no-cache",
        *extra,
    ]


def test_a_dead_judge_gives_coverage_first_and_no_score(examples, tmp_path, capsys):
    out = tmp_path / "records.jsonl"
    code = main(_argv(examples, tmp_path, "--out", str(out), "--json"))
    s = json.loads(capsys.readouterr().out)
    assert code == 3
    c = s["coverage"]
    assert list(s)[0] == "coverage" and c["partial"] and c["unscored"] > 0
    assert c["scored"] + c["unscored"] == c["utterances"] == 50
    assert s["laser_micro"] is None and s["laser_macro"] is None  # not the error-free half's 1.0
    assert s["scored_only"]["laser_micro"] == 1.0 and "not the corpus score" in s["scored_only"]["note"]
    assert 0 < s["wer"] < 1  # WER needs no judge: it covers every utterance with a reference
    records = [json.loads(line) for line in out.read_text().splitlines()]
    unscored = [r for r in records if r["laser"] is None]
    assert len(unscored) == c["unscored"] and all(r["unscored"] for r in unscored)
    assert all(any(p["label"] == "unscored" for p in r["pairs"]) for r in unscored)
    assert all("unscored" not in r for r in records if r["laser"] is not None)


def test_the_table_says_partial_before_any_figure(examples, tmp_path, capsys):
    report = tmp_path / "laser.html"
    code = main(_argv(examples, tmp_path, "--report", str(report)))
    text = capsys.readouterr().out
    assert code == 3
    first = text.strip().splitlines()[0]
    assert first.startswith("PARTIAL:") and "No LASER score" in first
    assert "1.0000" not in text
    html = report.read_text()
    assert html.index("PARTIAL:") < html.index("LASER micro")


def test_human_scores_of_a_study_in_progress(examples, tmp_path, capsys):
    from scipy.stats import pearsonr

    d = examples / "asr" / "hi"
    part = tmp_path / "human_part.tsv"
    part.write_text("".join((d / "human_b.tsv").read_text().splitlines(keepends=True)[:30]))
    argv = ["asr", "score", "--ref", str(d / "ref.txt"), "--hyp", str(d / "sys_b.txt"), "--ids", "--human", str(part)]
    assert main(argv) == 2
    assert "--allow-partial to use the 29 in common" in capsys.readouterr().err
    out = tmp_path / "r.jsonl"
    assert main([*argv, "--allow-partial", "--resamples", "200", "--out", str(out), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["coverage"]["rated"] == 29 and s["coverage"]["human"]["left"]["unmatched"] == 21
    from voxjudge.io.scores import read_scores

    human = read_scores(part)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    pairs = [(r["laser"], human[r["id"]]) for r in records if r["id"] in human]
    expected = pearsonr([a for a, _ in pairs], [b for _, b in pairs]).statistic  # scipy: the oracle
    laser = {c["method"]: c for c in s["agreement"]["laser"]}
    assert laser["pearson"]["n"] == 29 and abs(laser["pearson"]["estimate"] - expected) < 1e-12
    assert main([*argv, "--allow-partial", "--resamples", "200"]) == 0
    assert capsys.readouterr().out.startswith("partial: 29 of 50")
