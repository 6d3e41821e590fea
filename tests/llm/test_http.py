"""Real sockets: the official SDKs against a fake server this test starts on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from voxjudge.llm import AudioPart, Item, Judge, Message, Request, RetryPolicy, Task, TextPart, label_many
from voxjudge.llm.fakeserver import FakeLLMServer
from voxjudge.llm.records import read_records

pytest.importorskip("openai")

SCHEMA = {
    "type": "object",
    "properties": {"label": {"type": "string", "enum": ["match", "minor", "major"]}},
    "required": ["label"],
    "additionalProperties": False,
}
FAST = RetryPolicy(max_retries=4, base_delay=0.01)


@pytest.fixture
def server():
    # A "timeout" fault hangs for 30 s (or until the server stops): any client timeout fires first.
    with FakeLLMServer(slow_seconds=30.0) as srv:
        yield srv


def openai_judge(server, tmp_path, transport="http", **kw):
    kw.setdefault("cache", tmp_path / "cache.sqlite")
    kw.setdefault("records", tmp_path / "calls.jsonl")
    kw.setdefault("retry", FAST)
    return Judge(f"openai/test-model?transport={transport}", base_url=server.url + "/v1", **kw)


@pytest.mark.parametrize("transport", ["http", "sdk"])
def test_every_fault_is_retried_and_nothing_is_paid_twice(server, tmp_path, monkeypatch, transport):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    server.faults += ["429", "500", "reset", "malformed", "503", "timeout"]
    # the "timeout" fault hangs 30 s; 3 s leaves a loaded CI machine room for the answers that do
    # come (with 0.5 s, one run timed a slow answer out twice: 14 retries instead of 6)
    j = openai_judge(server, tmp_path, transport, timeout=3.0)
    items = [(f"u{k}", Request.simple(f"classify pair {k}", schema=SCHEMA)) for k in range(12)]
    out = j.run(j.complete_many(items))
    assert all(r is not None and r[0].ok and r[0].parsed == {"label": "match"} for r in out)
    assert j.meter.retries == 6 and j.meter.requests == 12
    first = server.count()
    assert first == 18  # 12 answers + 6 faulted attempts
    j.close()
    # The same job again: zero requests reach the server.
    j2 = openai_judge(server, tmp_path, transport)
    j2.run(j2.complete_many(items))
    assert server.count() == first and j2.meter.cache_hits == 12
    j2.close()
    text = "".join(p.read_text() for p in tmp_path.iterdir() if p.suffix == ".jsonl")
    assert "sk-test-not-a-real-key" not in text
    statuses = [r.get("status") for r in read_records(tmp_path / "calls.jsonl") if r["event"] == "retry"]
    assert 429 in statuses and 500 in statuses and 503 in statuses


def test_retry_after_from_the_server_is_used(server, tmp_path):
    server.faults += ["429"]
    j = openai_judge(server, tmp_path, retry=RetryPolicy(max_retries=2, base_delay=30.0))
    # base_delay 30 s would time the test out; the server's Retry-After of 0.05 s is what counts.
    assert j.complete_sync(Request.simple("x"))[0].ok
    j.close()


def test_malformed_answer_text_gets_a_repair_request(server, tmp_path):
    server.faults += ["bad_json"]
    j = openai_judge(server, tmp_path)
    r = j.complete_sync(Request.simple("x", schema=SCHEMA))[0]
    assert r.ok and r.parsed == {"label": "match"} and server.count() == 2
    j.close()


@pytest.mark.parametrize("transport", ["http", "sdk"])
def test_servers_without_json_schema_fall_back_and_remember(server, tmp_path, transport, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    server.faults += ["400_schema"]
    j = openai_judge(server, tmp_path, transport)
    r = j.complete_sync(Request.simple("x", schema=SCHEMA))[0]
    assert r.parsed == {"label": "match"} and not r.structured
    assert j.backend.mode == "json_object"  # remembered for the rest of the run
    assert j.complete_sync(Request.simple("y", schema=SCHEMA))[0].parsed == {"label": "match"}
    sent = [(b.get("response_format") or {}).get("type") for _, b in server.requests]
    assert sent == ["json_schema", "json_object", "json_object"]
    j.close()


def test_n_samples_in_one_call_and_audio_parts(server, tmp_path):
    import io
    import wave

    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x01\x00" * 8000)
    clip = AudioPart(buf.getvalue(), "wav")
    req = Request((Message("user", (TextPart("rate this"), clip)),), schema=SCHEMA, n=3, temperature=0.8)
    j = openai_judge(server, tmp_path)
    out = j.complete_sync(req)
    assert len(out) == 3 and all(r.ok for r in out) and server.count() == 1
    body = server.requests[0][1]
    assert body["n"] == 3 and body["messages"][0]["content"][1]["type"] == "input_audio"
    assert j.meter.audio_seconds == pytest.approx(1.0)
    j.close()


def test_wrong_ids_in_a_batch_are_detected_and_missing_items_retried(server, tmp_path):
    server.faults += ["wrong_ids"]
    j = openai_judge(server, tmp_path)
    items = [(f"p{k}", {"ref": f"r{k}", "hyp": f"h{k}"}) for k in range(5)]

    task = Task("pairs", "", "Classify each pair:\n$items", SCHEMA, batch_size=5)
    outcome = j.run(label_many(j, task, [Item(uid, x) for uid, x in items]))
    assert set(outcome.answers) == {f"p{k}" for k in range(5)} and outcome.complete
    assert outcome.unknown_ids == ["invented-id"] and outcome.retried_individually == ["p0"]
    sent = server.requests[0][1]["response_format"]["json_schema"]["schema"]["properties"]["items"]
    assert sent["minItems"] == sent["maxItems"] == 5
    assert sent["items"]["properties"]["id"]["enum"] == [f"p{k}" for k in range(5)]
    assert server.count() == 2  # the batch and one individual retry
    j.close()


def test_anthropic_sdk_against_local_server(server, tmp_path):
    pytest.importorskip("anthropic")
    server.faults += ["429", "503"]
    j = Judge("anthropic/claude-test", base_url=server.url, cache=tmp_path / "c.sqlite", retry=FAST)
    out = j.complete_sync(Request.simple("x", system="be brief", schema=SCHEMA, n=2))
    assert [r.parsed for r in out] == [{"label": "match"}] * 2 and all(r.structured for r in out)
    bodies = [b for p, b in server.requests if p == "anthropic"]
    assert bodies[-1]["tool_choice"]["type"] == "tool" and bodies[-1]["system"] == "be brief"
    assert j.meter.retries == 2 and j.meter.requests == 2
    j.close()


def test_gemini_sdk_against_local_server(server, tmp_path):
    pytest.importorskip("google.genai")
    server.faults += ["500"]
    j = Judge("gemini/gemini-test", base_url=server.url, cache=tmp_path / "c.sqlite", retry=FAST)
    out = j.complete_sync(Request.simple("x", schema=SCHEMA, n=2, seed=5))
    assert [r.parsed for r in out] == [{"label": "match"}] * 2
    body = [b for p, b in server.requests if p == "gemini"][-1]
    cfg = body["generationConfig"]
    assert cfg["candidateCount"] == 2 and cfg["seed"] == 5 and cfg["responseMimeType"] == "application/json"
    assert j.meter.retries == 1
    j.close()


def test_slow_responses_within_timeout_are_fine(tmp_path):
    with FakeLLMServer(latency=0.2) as srv:
        j = Judge("openai/x", base_url=srv.url + "/v1", cache=None, timeout=2.0, concurrency=8)
        items = [(str(k), Request.simple(str(k))) for k in range(8)]
        out = j.run(j.complete_many(items))
        assert all(r[0].ok for r in out) and j.meter.retries == 0
        assert json.loads(json.dumps(j.meter.as_dict()))["requests"] == 8
        j.close()
