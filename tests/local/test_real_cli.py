"""The judged commands end to end with a real model, in-process (``local/<gguf>``) and through
llama-cpp-python's server (``openai/…?structured=json_object``): each finishes with every item
scored (the grammar leaves the tiny model no invalid answer), and a rerun sends 0 requests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voxjudge.cli.main import main

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(params=["in-process", "server"])
def judge_args(request, gguf):
    if request.param == "in-process":
        return ["--judge", f"local/{gguf}"]
    return ["--judge", "openai/smollm2?structured=json_object", "--base-url", request.getfixturevalue("llama_server")]


def calls(log: Path) -> int:
    if not log.exists():
        return 0
    return sum(1 for line in log.read_text().splitlines() if json.loads(line).get("event") == "call")


def run_twice(argv: list[str], tmp_path: Path, capsys) -> tuple[int, int, str]:
    """(first run's calls, the rerun's calls, the first run's stdout); both runs must exit 0."""
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    assert main([*argv, *cache, "--log", str(tmp_path / "first.jsonl")]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert main([*argv, *cache, "--log", str(tmp_path / "rerun.jsonl")]) == 0, capsys.readouterr().err
    capsys.readouterr()
    return calls(tmp_path / "first.jsonl"), calls(tmp_path / "rerun.jsonl"), out


def test_asr_score(judge_args, tmp_path, capsys):
    (tmp_path / "r.txt").write_text("please send me the report today\nwe should take the train\n")
    (tmp_path / "h.txt").write_text("please send me a report to day\nwe should take the rain\n")
    argv = ["asr", "score", "--ref", str(tmp_path / "r.txt"), "--hyp", str(tmp_path / "h.txt"), "--lang", "en",
            "--batch-size", "4", "--json", "--out", str(tmp_path / "o.jsonl"), *judge_args]  # fmt: skip
    first, rerun, out = run_twice(argv, tmp_path, capsys)
    summary = json.loads(out)
    assert summary["n_unscored"] == 0 and summary["llm"]["unscored"] == 0
    rows = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert all(r["laser"] is not None for r in rows)
    assert first > 0 and rerun == 0


def test_asr_classify(judge_args, tmp_path, capsys):
    (tmp_path / "p.tsv").write_text("ref\thyp\tlang\ncolour\tcolor\ten\ntrain\train\ten\nreport\t\ten\n\tthe\ten\n")
    argv = ["asr", "classify", str(tmp_path / "p.tsv"), "--out", str(tmp_path / "labels.jsonl"), *judge_args]
    first, rerun, _ = run_twice(argv, tmp_path, capsys)
    rows = [json.loads(line) for line in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and all(r["label"] != "unscored" for r in rows)
    assert rerun == 0


def test_breaks_build_refs(judge_args, tmp_path, capsys):
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join((EXAMPLES / "breaks/texts.txt").read_text().splitlines()[:2]) + "\n")
    pool = str(EXAMPLES / "breaks/pool.txt")
    argv = ["breaks", "build-refs", "--texts", str(texts), "--pool", pool, "--n-iter", "2", "--n-fs", "2",
            "--batch-size", "4", "--out", str(tmp_path / "t.jsonl"), *judge_args]  # fmt: skip
    first, rerun, _ = run_twice(argv, tmp_path, capsys)
    entries = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert len(entries) == 2 and all(e.get("references") for e in entries)
    assert first == 4 and rerun == 0  # one request per text and iteration: no invalid answer retried


def test_llm_run_with_schema(judge_args, tmp_path, capsys):
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"id": f"q{k}", "prompt": f"Is {w} a fruit? Answer in JSON."}) + "\n"
                               for k, w in enumerate(["apple", "chair", "mango"])))  # fmt: skip
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"fruit": {"type": "boolean"}, "confidence": {
        "type": "integer", "minimum": 1, "maximum": 5}, "why": {"type": "string", "maxLength": 60}},
        "required": ["fruit", "confidence", "why"], "additionalProperties": False}))  # fmt: skip
    argv = ["llm", "run", str(prompts), "--schema", str(schema), "--max-tokens", "80",
            "--out", str(tmp_path / "a.jsonl"), *judge_args]  # fmt: skip
    first, rerun, _ = run_twice(argv, tmp_path, capsys)
    rows = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert all(s["error"] is None and s["parsed"]["confidence"] in range(1, 6) for r in rows for s in r["samples"])
    assert first == 3 and rerun == 0


def test_unenforceable_schema_stops_llm_run_with_one_line(gguf, tmp_path, capsys):
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"id": "q", "prompt": "List fruits."}) + "\n")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "array", "items": {"type": "string"}, "uniqueItems": True}))
    code = main(["llm", "run", str(prompts), "--schema", str(schema), "--judge", f"local/{gguf}", "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and "uniqueItems" in err and "Traceback" not in err
