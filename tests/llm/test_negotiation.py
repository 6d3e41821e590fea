"""Structured-output negotiation and honest failure against a fake OpenAI-compatible server
that mimics real servers' quirks (real sockets on 127.0.0.1)."""

from __future__ import annotations

import pytest

from voxjudge.llm import Item, Judge, Request, RetryPolicy, Task, label_many, negotiate
from voxjudge.llm.errors import ConfigError
from voxjudge.llm.fakeserver import FakeLLMServer
from voxjudge.llm.records import read_records

SCHEMA = {
    "type": "object",
    "properties": {"label": {"type": "string", "enum": ["match", "minor", "major"]}},
    "required": ["label"],
    "additionalProperties": False,
}
FAST = RetryPolicy(max_retries=4, base_delay=0.001)
TASK = Task("neg-test", "Label pairs.", "Items:\n$items", SCHEMA, batch_size=3)


def judge(server, tmp_path, transport="http", **kw):
    kw.setdefault("cache", tmp_path / "cache.sqlite")
    kw.setdefault("records", tmp_path / "calls.jsonl")
    kw.setdefault("retry", FAST)
    return Judge(f"openai/smol?transport={transport}", base_url=server.url + "/v1", **kw)


def formats(server):
    return [(b.get("response_format") or {}).get("type", "prompt") for _, b in server.requests]


@pytest.mark.parametrize("transport", ["http", "sdk"])
def test_llama_cpp_server_gets_json_object_with_schema_and_it_is_remembered(tmp_path, transport, monkeypatch):
    if transport == "sdk":
        pytest.importorskip("openai")
        monkeypatch.setenv("OPENAI_API_KEY", "not-needed")
    with FakeLLMServer(quirk="llama-cpp") as server:
        j = judge(server, tmp_path, transport)
        r = j.complete_sync(Request.simple("x", schema=SCHEMA))[0]
        assert r.ok and r.parsed == {"label": "match"}
        assert formats(server) == ["json_schema", "json_object"] and j.meter.retries == 0
        # the grammar schema (voxjudge.llm.grammar): what llama-cpp-python's converter translates exactly
        grammar_schema = {"type": "object", "properties": {"label": {"enum": ["match", "minor", "major"]}},
                          "required": ["label"]}  # fmt: skip
        assert server.requests[1][1]["response_format"]["schema"] == grammar_schema
        j.close()
        # A new judge in the same run starts with what worked.
        j2 = judge(server, tmp_path, transport, cache=None)
        assert j2.complete_sync(Request.simple("y", schema=SCHEMA))[0].ok
        assert formats(server)[2:] == ["json_object"]
        j2.close()
    notes = negotiate.take_notices()
    assert len(notes) == 1 and "json_object with the schema" in notes[0] and server.url in notes[0]
    assert negotiate.take_notices() == []  # said once


def test_a_server_refusing_every_format_without_saying_why_ends_in_prompt_mode(tmp_path):
    with FakeLLMServer(quirk="no-structured", responder=lambda p, b: {"label": "minor"}) as server:
        j = judge(server, tmp_path)
        r = j.complete_sync(Request.simple("x", schema=SCHEMA))[0]
        assert r.ok and r.parsed == {"label": "minor"} and not r.structured
        # Each structured mode is dropped when the same error comes back twice.
        assert formats(server) == ["json_schema", "json_schema", "json_object", "json_object", "prompt"]
        assert "Reply with a single JSON value" in server.requests[-1][1]["messages"][-1]["content"]
        j.close()
    assert "the schema in the prompt" in negotiate.take_notices()[0]


def test_fixed_mode_does_not_negotiate(tmp_path):
    with FakeLLMServer(quirk="llama-cpp") as server:
        j = Judge(
            "openai/smol?structured=json_schema",
            base_url=server.url + "/v1",
            cache=None,
            retry=RetryPolicy(max_retries=6, base_delay=0.001),
        )
        r = j.complete_sync(Request.simple("x", schema=SCHEMA))[0]
        # The identical HTTP 500 body twice is a deterministic rejection: 2 attempts, not 7.
        assert not r.ok and "same error twice" in r.error and server.count() == 2
        j.close()


def test_deterministic_errors_are_not_retried(tmp_path):
    with FakeLLMServer() as server:
        j = judge(server, tmp_path, cache=None, retry=RetryPolicy(max_retries=6, base_delay=0.001))
        server.faults += ["500", "500"]
        r = j.complete_sync(Request.simple("plain text, no schema"))[0]
        assert not r.ok and "same error twice" in r.error and server.count() == 2
        server.faults += ["400_schema"]  # a 400 is never retried
        r = j.complete_sync(Request.simple("x", schema=SCHEMA, seed=1))[0]
        assert r.ok and formats(server)[2:] == ["json_schema", "json_object"]
        j.close()


def test_faults_in_front_of_a_quirky_server_then_a_rerun_sends_nothing(tmp_path):
    with FakeLLMServer(quirk="llama-cpp", slow_seconds=0.5) as server:
        server.faults += ["429", "500", "reset", "garbage", "malformed", "bad_json", "wrong_ids"]
        j = judge(server, tmp_path, timeout=5.0, retry=RetryPolicy(max_retries=10, base_delay=0.001))
        items = [Item(f"p{k}", {"ref": f"r{k}", "hyp": f"h{k}"}) for k in range(9)]
        outcome = j.run(label_many(j, TASK, items))
        assert outcome.complete and len(outcome.answers) == 9
        assert all(a["label"] in ("match", "minor", "major") for a in outcome.answers.values())
        first = server.count()
        j.close()
        j2 = judge(server, tmp_path)
        again = j2.run(label_many(j2, TASK, items))
        assert server.count() == first and again.answers == outcome.answers and j2.meter.requests == 0
        j2.close()


def test_secrets_echoed_by_a_server_are_redacted_everywhere(tmp_path, monkeypatch):
    pytest.importorskip("openai")
    key = "sk-live-THISisAsecretKEY1234567890"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FakeLLMServer() as server:
        server.faults += ["echo_key"]
        j = judge(server, tmp_path)
        r = j.complete_sync(Request.simple("x"))[0]
        assert not r.ok and "[REDACTED]" in r.error and key not in r.error
        j.close()
    text = (tmp_path / "calls.jsonl").read_text()
    assert key not in text and "[REDACTED]" in text
    assert all(key not in str(rec) for rec in read_records(tmp_path / "calls.jsonl"))


def test_auth_errors_stop_the_run_with_a_redacted_message(tmp_path, monkeypatch, fake_script):
    key = "sk-proj-abcdefghijklmnop123456"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    from voxjudge.llm.errors import PermanentError

    spec = fake_script("no-auth", lambda r, i: PermanentError(f"invalid key {key}", status=401))
    j = Judge(spec, cache=None)
    with pytest.raises(ConfigError) as info:
        j.complete_sync(Request.simple("x"))
    assert key not in str(info.value) and "[REDACTED]" in str(info.value)
    j.close()


def test_a_server_that_ignores_n_gets_one_sample_per_request(tmp_path):
    with FakeLLMServer(quirk="llama-cpp") as server:
        j = judge(server, tmp_path)
        first = j.complete_sync(Request.simple("x", schema=SCHEMA, n=3, temperature=0.8, seed=5))
        assert all(r.ok for r in first) and len(first) == 3
        bodies = [b for _, b in server.requests if (b.get("response_format") or {}).get("type") == "json_object"]
        assert [b.get("n", 1) for b in bodies] == [3, 1, 1] and sorted(b["seed"] for b in bodies[1:]) == [6, 7]
        before = server.count()
        assert all(r.ok for r in j.complete_sync(Request.simple("y", schema=SCHEMA, n=2, temperature=0.8)))
        assert [b.get("n", 1) for _, b in server.requests[before:]] == [1, 1]  # remembered for the run
        j.close()
    notes = negotiate.take_notices()
    assert any("returned 1 of 3 samples" in n for n in notes)
