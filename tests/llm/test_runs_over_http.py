"""Judged commands end to end against fake OpenAI-compatible servers on 127.0.0.1: a server with
llama-cpp-python's structured-output quirk, a server that never answers usably, a budget stop.
Every run either scores every item or exits 3 saying how many are unscored and that a rerun
resumes; nothing is written as a penalty it did not earn."""

from __future__ import annotations

import json

import pytest

from voxjudge.cli.main import main
from voxjudge.llm.fakeserver import FakeLLMServer


@pytest.fixture
def asr_files(tmp_path):
    (tmp_path / "r.txt").write_text("the cat sat on the mat\nwe went home early\n")
    (tmp_path / "h.txt").write_text("the bat sat on mat\nwe want home early\n")
    return str(tmp_path / "r.txt"), str(tmp_path / "h.txt")


def asr_score(srv, files, tmp_path, *extra):
    ref, hyp = files
    args = ["asr", "score", "--ref", ref, "--hyp", hyp, "--judge", "openai/smol", "--base-url", srv.url + "/v1"]
    return main(
        [*args, "--cache", str(tmp_path / "cache.sqlite"), "--json", "--out", str(tmp_path / "o.jsonl"), *extra]
    )


def test_asr_score_against_a_llama_cpp_server_negotiates_once_and_resumes_for_free(asr_files, tmp_path, capsys):
    with FakeLLMServer(quirk="llama-cpp") as srv:
        assert asr_score(srv, asr_files, tmp_path) == 0
        out = capsys.readouterr()
        s = json.loads(out.out)
        assert s["n"] == 2 and s["n_unscored"] == 0 and s["llm"]["unscored"] == 0
        assert out.err.count("voxjudge: note:") == 1 and "json_object with the schema" in out.err
        sent = srv.count()
        # json_schema refused, then json_object for the rest of the run (no 7 retries); LASER sends
        # one utterance per request, so both first requests may be in flight before the refusal
        kinds = [b["response_format"]["type"] for _, b in srv.requests]
        switch = kinds.index("json_object")
        assert 1 <= switch <= 2 and set(kinds[:switch]) == {"json_schema"} and set(kinds[switch:]) == {"json_object"}
        assert asr_score(srv, asr_files, tmp_path) == 0
        assert srv.count() == sent  # the rerun is served from the cache


def test_unusable_answers_are_unscored_not_major_and_exit_3(asr_files, tmp_path, capsys):
    with FakeLLMServer(responder=lambda provider, body: "I am not sure what you mean.") as srv:
        code = asr_score(srv, asr_files, tmp_path, "--max-retries", "0")
        out = capsys.readouterr()
        sent = srv.count()
        # The answers are cached: a rerun sends nothing and gets them again, and the advice says so.
        assert asr_score(srv, asr_files, tmp_path, "--max-retries", "0") == 3
        assert srv.count() == sent
        assert capsys.readouterr().err == out.err
        assert asr_score(srv, asr_files, tmp_path, "--max-retries", "0", "--no-cache") == 3
        no_cache = capsys.readouterr().err
        assert srv.count() > sent
    s = json.loads(out.out)
    assert code == 3 and s["n"] == 0 and s["n_unscored"] == 2
    assert "incomplete: 2 of 2 utterances unscored" in out.err and "Rerun the same command" not in out.err
    assert "cached, so rerunning the same command sends no request for them and gets the same answers" in out.err
    assert "another model (--judge)" in out.err and "--no-cache" in out.err
    assert "cache" not in no_cache.replace("--no-cache", "") and "mostly answers the same" in no_cache
    assert "Traceback" not in out.err
    rows = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    judged = [p for r in rows for p in r["pairs"] if p["op"] != "equal"]
    assert judged and all(p["label"] == "unscored" and p["penalty"] == 0.0 for p in judged)
    assert all(r["laser"] is None for r in rows)


@pytest.fixture
def priced(tmp_path):
    """``priced(srv)``: options for a judge on ``srv`` whose every call costs more than the 0.01 USD limit."""
    path = tmp_path / "prices.json"
    # 2 USD per thousand tokens: a call's worst case (prompt + max_tokens) is around a dollar
    path.write_text(json.dumps({"models": {"openai/priced": {"input_per_mtok": 2000.0, "output_per_mtok": 2000.0}}}))
    return lambda srv: ["--judge", "openai/priced", "--base-url", srv.url + "/v1", "--no-cache", "--prices", str(path),
                        "--max-cost", "0.01"]  # fmt: skip


def test_max_cost_stops_asr_score_cleanly(asr_files, tmp_path, capsys, priced):
    ref, hyp = asr_files
    with FakeLLMServer() as srv:
        code = main(["asr", "score", "--ref", ref, "--hyp", hyp, *priced(srv), "--batch-size", "1", "--json"])
    out = capsys.readouterr()
    assert code == 3 and "Traceback" not in out.err
    assert "stopped early: cost limit of 0.01 USD reached" in out.err and "Rerun the same command" in out.err
    assert json.loads(out.out)["stopped"].startswith("cost limit of 0.01 USD")


def test_max_cost_stops_build_refs_cleanly(build_refs, capsys, priced):
    with FakeLLMServer() as srv:
        code = build_refs(*priced(srv), "--n-iter", "3")
    err = capsys.readouterr().err
    assert code == 3 and "Traceback" not in err and "stopped early: cost limit" in err


def test_max_cost_stops_pairwise_judge_cleanly(examples, tmp_path, capsys, priced):
    pairs = examples / "pairwise" / "pairs.jsonl"
    rec = json.loads(pairs.read_text().splitlines()[0])
    rec["audio_a"], rec["audio_b"] = (str(pairs.parent / rec[k]) for k in ("audio_a", "audio_b"))
    (tmp_path / "one.jsonl").write_text(json.dumps(rec) + "\n")
    with FakeLLMServer() as srv:
        argv = ["pairwise", "judge", "--pairs", str(tmp_path / "one.jsonl"), *priced(srv), "--samples", "2"]
        code = main([*argv, "--out", str(tmp_path / "j.jsonl")])
    err = capsys.readouterr().err
    assert code == 3 and "Traceback" not in err and "stopped early: cost limit" in err
    records = [json.loads(line) for line in (tmp_path / "j.jsonl").read_text().splitlines()]
    assert records and all(r["error"] and "not asked" in r["error"] and r["abstained"] for r in records)


def test_dry_run_needs_no_key(build_refs, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code = build_refs("--n-iter", "2", "--judge", "openai/gpt-4o-mini", "--dry-run")
    out = capsys.readouterr()
    assert code == 0 and json.loads(out.out)["requests"] > 0 and not (tmp_path / "t.jsonl").exists()
    (tmp_path / "r.txt").write_text("the cat sat on the mat\n")
    (tmp_path / "h.txt").write_text("the bat sat on mat\n")
    asr = ["asr", "score", "--ref", str(tmp_path / "r.txt"), "--hyp", str(tmp_path / "h.txt")]
    assert main([*asr, "--judge", "openai/gpt-4o-mini", "--dry-run"]) == 0
    est = json.loads(capsys.readouterr().out)
    assert est["requests"] == 1 and est["judge"] == "openai/gpt-4o-mini"  # two pairs, one batch
    assert main([*asr, "--judge", "openai/gpt-4o-mini", "--dry-run", "--mode", "sentence"]) == 0
    assert json.loads(capsys.readouterr().out)["requests"] == 1
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"id": "a", "prompt": "hi"}\n')
    assert main(["llm", "run", str(prompts), "--judge", "openai/gpt-4o-mini", "--dry-run"]) == 0
    # without --dry-run the missing key is one clear line, exit 2
    assert main(["llm", "run", str(prompts), "--judge", "openai/gpt-4o-mini"]) == 2
    assert "voxjudge: error: openai: no API key" in capsys.readouterr().err


def test_llm_run_exit_status_and_notice(tmp_path, capsys):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"id": "a", "prompt": "hi"}\n{"id": "b", "prompt": "ho"}\n')
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}))
    with FakeLLMServer(quirk="llama-cpp") as srv:
        args = ["llm", "run", str(prompts), "--judge", "openai/smol", "--base-url", srv.url + "/v1", "--no-cache"]
        assert main([*args, "--schema", str(schema)]) == 0
        assert capsys.readouterr().err.count("voxjudge: note:") == 1
        srv.responder = lambda provider, body: "not json"
        assert main([*args, "--schema", str(schema), "--max-retries", "0", "--seed", "3"]) == 3
        assert "incomplete: 2 of 2 samples unscored" in capsys.readouterr().err


def test_pairwise_dry_run_needs_no_key(examples, capsys, monkeypatch, tmp_path):
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    pairs = examples / "pairwise" / "pairs.jsonl"
    n = len(pairs.read_text().splitlines())
    args = ["pairwise", "judge", "--pairs", str(pairs), "--judge", "gemini/gemini-2.5-flash", "--dry-run"]
    assert main([*args, "--samples", "4", "--out", str(tmp_path / "j.jsonl")]) == 0
    est = json.loads(capsys.readouterr().out)
    assert est["requests"] == 2 * n and not (tmp_path / "j.jsonl").exists()  # one call per order, n=2 each
    assert main([*args, "--samples", "4", "--mode", "per-dimension", "--out", str(tmp_path / "j.jsonl")]) == 0
    assert json.loads(capsys.readouterr().out)["requests"] == 2 * n * 7
