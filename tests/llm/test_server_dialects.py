"""Server-side constrained decoding, found from what a server publishes (``voxjudge.llm.servers``)
and sent in its own request fields: llama.cpp's ``grammar`` (the GBNF the in-process path
builds), vLLM's ``structured_outputs`` / ``guided_json``, Ollama's native ``format``. The wire
format is checked here against the fake server on 127.0.0.1; the real llama-cpp-python server is
in tests/local (slow). vLLM and Ollama are not installed here: only their wire formats are tested."""

from __future__ import annotations

import importlib.util
import json

import pytest

from voxjudge.llm import Judge, Request
from voxjudge.llm.fakeserver import FakeLLMServer
from voxjudge.llm.grammar import answer_grammar

pytest.importorskip("aiohttp")

SCHEMA = {
    "type": "object",
    "properties": {"label": {"enum": ["minor", "major"]}},
    "required": ["label"],
    "additionalProperties": False,
}
HAS_CONVERTER = importlib.util.find_spec("llama_cpp") is not None


def ask(srv: FakeLLMServer, **kw) -> tuple[Judge, object]:
    j = Judge("openai/m", base_url=srv.url + "/v1", cache=None, **kw)
    r = j.complete_sync(Request.simple("grade", schema=SCHEMA, max_tokens=64))[0]
    j.close()
    return j, r


def label(provider, body):
    return {"label": "minor"}


@pytest.mark.parametrize("dialect", ["llama-cpp-python", "llama-server"])
def test_llama_cpp_servers_get_the_grammar(dialect):
    with FakeLLMServer(dialect=dialect, responder=label) as srv:
        j, r = ask(srv)
        [(_, body)] = srv.requests
    assert r.ok and r.parsed == {"label": "minor"} and r.structured
    assert j.capabilities.constrained  # the LMRE builder may pin each text's words
    grammar = answer_grammar(SCHEMA, 64)
    if HAS_CONVERTER:
        assert body["grammar"] == grammar.gbnf and "response_format" not in body
    elif dialect == "llama-server":
        assert body["json_schema"] == grammar.schema  # llama-server converts the grammar schema itself
    else:
        assert body["response_format"] == {"type": "json_object", "schema": grammar.schema}


@pytest.mark.parametrize("dialect, field", [("vllm", "structured_outputs"), ("vllm-guided", "guided_json")])
def test_vllm_gets_guided_decoding(dialect, field):
    with FakeLLMServer(dialect=dialect) as srv:
        j, r = ask(srv)
        [(_, body)] = srv.requests
    assert r.ok and r.structured and j.capabilities.constrained
    assert body[field] == ({"json": SCHEMA} if field == "structured_outputs" else SCHEMA)
    assert "response_format" not in body and "grammar" not in body


def test_ollama_gets_its_native_format():
    with FakeLLMServer(dialect="ollama") as srv:
        j, r = ask(srv)
        [(provider, body)] = srv.requests
    assert provider == "ollama" and r.ok and r.parsed == {"label": "minor"} and r.structured
    assert body["format"] == SCHEMA and body["stream"] is False
    assert body["options"] == {"temperature": 0.0, "num_predict": 64, "seed": 0}
    assert j.meter.input_tokens > 0 and j.meter.output_tokens > 0


def test_a_server_that_publishes_nothing_keeps_the_usual_negotiation():
    with FakeLLMServer() as srv:
        j, r = ask(srv)
        [(_, body)] = srv.requests
    assert r.ok and body["response_format"]["type"] == "json_schema" and not j.capabilities.constrained


def test_the_server_is_asked_once_per_process():
    with FakeLLMServer(dialect="vllm") as srv:
        ask(srv)
        probes = list(srv.probes)
        ask(srv)
        assert srv.probes == probes == ["/openapi.json"]


def test_a_fixed_mode_is_sent_as_is_without_asking():
    with FakeLLMServer(dialect="vllm") as srv:
        j = Judge("openai/m?structured=guided", base_url=srv.url + "/v1", cache=None)
        r = j.complete_sync(Request.simple("grade", schema=SCHEMA))[0]
        j.close()
        assert r.ok and srv.requests[0][1]["guided_json"] == SCHEMA and srv.probes == []


def test_build_refs_pins_each_texts_words_on_a_constrained_server(build_refs, capsys):
    with FakeLLMServer(dialect="vllm") as srv:
        code = build_refs("--judge", "openai/m", "--base-url", srv.url + "/v1", "--n-iter", "1", "--no-cache", texts=3)
        bodies = [b for _, b in srv.requests]
    err = capsys.readouterr().err
    assert code == 3  # the fake's answers are not annotations of the texts: refused by the check
    assert "guided decoding" in err
    patterns = [b["structured_outputs"]["json"]["properties"]["items"]["items"]["properties"]["annotation"]
                for b in bodies[:3]]  # fmt: skip
    assert all("pattern" in p for p in patterns)  # one text per request, its words pinned
    words = [line.split() for line in build_refs.texts.read_text().splitlines()]
    assert all(any(w[0] in p["pattern"] and w[-1].strip(".,") in p["pattern"] for p in patterns) for w in words)
    json.loads(json.dumps(bodies))  # plain JSON on the wire


def test_a_schema_no_grammar_can_enforce_goes_in_the_prompt_on_a_grammar_server():
    schema = {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": True, "maxItems": 2}
    with FakeLLMServer(dialect="llama-cpp-python", responder=lambda p, b: ["a"]) as srv:
        j = Judge("openai/m", base_url=srv.url + "/v1", cache=None)
        r = j.complete_sync(Request.simple("pick", schema=schema))[0]
        j.close()
        [(_, body)] = srv.requests
    assert r.ok and r.parsed == ["a"] and not r.structured  # validated here, not enforced
    assert "grammar" not in body and "response_format" not in body and "uniqueItems" in body["messages"][-1]["content"]
