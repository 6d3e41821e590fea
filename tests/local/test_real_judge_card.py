"""``asr judge-card`` with a real model judge (SmolLM2 GGUF, in-process and through llama-cpp-python's
server): every hypothesis scored, the LLM row beside WER and CER, and a rerun sends nothing."""

from __future__ import annotations

import json

import pytest

from voxjudge.cli.main import main

pytestmark = pytest.mark.slow

PREFS = (
    "reference\thyp_a\tvotes_a\thyp_b\tvotes_b\n"
    "please send me the report today\tplease send me a report to day\t6\tplease sand me the rapport today\t1\n"
    "we should take the train\twe should take the rain\t1\twe should take a train\t6\n"
)


@pytest.fixture(params=["in-process", "server"])
def judge_args(request, gguf):
    if request.param == "in-process":
        return ["--judge", f"local/{gguf}"]
    return ["--judge", "openai/smollm2?structured=json_object", "--base-url", request.getfixturevalue("llama_server")]


def _calls(log) -> int:
    return (
        sum(1 for line in log.read_text().splitlines() if json.loads(line).get("event") == "call")
        if log.exists()
        else 0
    )


# a long --timeout: under load a timed-out local generation retried beside the first aborted the process
def test_judge_card_with_a_real_model(judge_args, tmp_path, capsys):
    prefs = tmp_path / "p.tsv"
    prefs.write_text(PREFS, encoding="utf-8")
    argv = ["asr", "judge-card", "--preferences", str(prefs), "--lang", "en", "--batch-size", "4", "--resamples",
            "200", "--cache", str(tmp_path / "c.sqlite"), "--json", "--timeout", "900", *judge_args]  # fmt: skip
    assert main([*argv, "--log", str(tmp_path / "first.jsonl")]) == 0, capsys.readouterr().err
    s = json.loads(capsys.readouterr().out)
    name = next(m["name"] for m in s["metrics"] if m["name"].startswith("LASER "))
    assert [m["name"] for m in s["metrics"]][:2] == ["WER", "CER"]
    assert s["coverage"][name] == {"scored": 4, "total": 4}
    assert [lv["judged"] for lv in s["preferences"]["by_metric"][name]] == [0, 2, 2]  # 6 of 7 votes: not unanimous
    assert _calls(tmp_path / "first.jsonl") > 0
    assert main([*argv, "--log", str(tmp_path / "rerun.jsonl")]) == 0
    capsys.readouterr()
    assert _calls(tmp_path / "rerun.jsonl") == 0
