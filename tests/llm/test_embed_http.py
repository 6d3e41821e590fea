"""Embedding servers over real sockets on 127.0.0.1 (``FakeLLMServer``): OpenAI-compatible
``/v1/embeddings`` through the aiohttp transport and the official SDK, Gemini's
``batchEmbedContents`` through google-genai. Retries, 413 and llama.cpp's "too large" 500
halving, malformed answers asked again one by one, unnormalised vectors, cost, fail-fast."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from voxjudge.llm import ConfigError, JudgeOptions, open_embedder
from voxjudge.llm.errors import Unreachable
from voxjudge.llm.fakeserver import FakeLLMServer
from voxjudge.llm.records import read_records
from voxjudge.llm.scripts import hashed_vector

TEXTS = ["the cat sat on the mat", "a dog barked", "le chat", "the cat sat on the mat", "quatre", "", "cinq"]
DISTINCT = ["the cat sat on the mat", "a dog barked", "le chat", "quatre", "cinq"]


def oracle(text: str, dim: int = 16) -> np.ndarray:
    v = hashed_vector("hash", text, dim).astype(np.float64)
    return v / np.linalg.norm(v)


def fast(embedder):
    embedder.retry.base_delay = 0.001
    return embedder


def check(result, texts=TEXTS, dim=16):
    for i, t in enumerate(texts):
        if t and i not in result.failed:
            assert np.allclose(result.vectors[i], oracle(t, dim), atol=1e-6), t


_OPENED: list = []


@pytest.fixture(autouse=True)
def _close_embedders():
    yield
    while _OPENED:
        _OPENED.pop().close()


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


def embedder(server, spec="openai/nomic-embed", **kw):
    kw.setdefault("cache", False)
    e = fast(open_embedder(spec, base_url=server.url + "/v1", **kw))
    _OPENED.append(e)
    return e


def test_openai_compatible_server_dedups_and_never_sends_empty(server):
    r = embedder(server).embed(TEXTS)
    check(r)
    assert r.failed == {5: "empty text"}
    assert server.count("openai-embed") == 1
    body = server.requests[0][1]
    assert body["input"] == DISTINCT and body["encoding_format"] == "float" and body["model"] == "nomic-embed"


def test_unnormalised_server_vectors_are_normalised():
    with FakeLLMServer(normalise=False) as s:
        r = embedder(s).embed(["a", "b c"])
    check(r, ["a", "b c"])
    assert np.allclose(np.linalg.norm(r.vectors, axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize("fault", ["429", "503", "reset", "garbage"])
def test_transient_faults_are_retried(server, fault):
    server.faults = [fault]
    r = embedder(server).embed(DISTINCT)
    check(r, DISTINCT)
    assert r.failed == {} and r.usage["retries"] == 1 and server.count("openai-embed") == 2


def test_a_413_halves_the_batch_down_to_the_servers_cap():
    with FakeLLMServer(embed_cap=2) as s:
        r = embedder(s).embed(DISTINCT)
        sizes = [len(b["input"]) for _, b in s.requests]
    check(r, DISTINCT)
    assert r.failed == {} and sizes == [5, 2, 3, 1, 2]


def test_llama_cpp_too_large_500_halves_instead_of_retrying(server):
    server.faults = ["too_large_500"]
    r = embedder(server).embed(DISTINCT)
    check(r, DISTINCT)
    assert r.failed == {} and r.usage["retries"] == 0
    assert [len(b["input"]) for _, b in server.requests] == [5, 2, 3]


@pytest.mark.parametrize("fault", ["wrong_count", "nan", "per_token", "malformed"])
def test_a_malformed_answer_is_asked_again_text_by_text(server, fault):
    server.faults = [fault]
    r = embedder(server).embed(DISTINCT)
    check(r, DISTINCT)
    sizes = [len(b["input"]) for _, b in server.requests]
    if fault == "malformed":  # a broken body is transient: retried whole
        assert r.failed == {} and sizes == [5, 5]
    else:
        assert r.failed == {} and sizes == [5, 1, 1, 1, 1, 1]


def test_a_text_that_keeps_failing_is_unscored_with_the_reason(server):
    server.faults = ["wrong_count", "ok", "nan"]  # the batch, then each text alone
    r = embedder(server).embed(["a", "b", "c"])
    assert r.failed == {1: "openai: NaN or infinite values in the vectors"}
    assert np.isnan(r.vectors[1]).all() and not np.isnan(r.vectors[[0, 2]]).any()


def test_cache_records_and_cost(tmp_path, server):
    log = tmp_path / "calls.jsonl"
    options = JudgeOptions(cache=tmp_path / "c.sqlite", records=log)
    e = fast(open_embedder("openai/text-embedding-3-small", base_url=server.url + "/v1", options=options))
    r = e.embed(DISTINCT)
    assert r.usage["requests"] == 1 and r.usage["input_tokens"] > 0
    assert r.usage["cost_usd"] == pytest.approx(r.usage["input_tokens"] * 0.02 / 1e6)
    again = e.embed(DISTINCT)
    assert again.usage["requests"] == 0 and again.usage["cache_hits"] == 5 and again.usage["cost_usd"] == 0
    assert server.count("openai-embed") == 1
    e.close()
    calls = [r for r in read_records(log) if r.get("event") == "call"]
    assert len(calls) == 1 and calls[0]["embedder"] == "openai/text-embedding-3-small"
    assert calls[0]["base_url"] == server.url + "/v1" and calls[0]["texts"] == 5


def test_openai_sdk_transport(server):
    r = embedder(server, "openai/m?transport=sdk").embed(DISTINCT)
    check(r, DISTINCT)
    assert server.count("openai-embed") == 1


def test_gemini_embeddings_through_google_genai(server):
    pytest.importorskip("google.genai")
    e = fast(open_embedder("gemini/gemini-embedding-001?output_dimensionality=16", base_url=server.url, cache=False))
    assert e.spec == "gemini/gemini-embedding-001?output_dimensionality=16&task_type=SEMANTIC_SIMILARITY"
    r = e.embed(DISTINCT)
    check(r, DISTINCT)
    path_body = server.requests[0][1]
    assert len(path_body["requests"]) == 5


def test_unreachable_server_fails_fast():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        e = fast(open_embedder("openai/m", base_url=f"http://127.0.0.1:{port}/v1", cache=False))
        with pytest.raises(Unreachable, match="connection refused"):
            e.embed(["a", "b"])
        with pytest.raises(Unreachable):  # later calls stop at once
            e.embed(["c"])


def test_a_400_fails_the_text_with_the_key_redacted(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-key-1234567890")
    server.faults = ["echo_key"]  # a careless server quoting the credentials it was sent
    r = embedder(server).embed(["a"])
    assert list(r.failed) == [0] and "HTTP 400" in r.failed[0] and "sk-secret" not in r.failed[0]


def test_openai_without_key_or_base_url_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        open_embedder("openai/text-embedding-3-small", cache=False)


def test_per_token_vectors_are_mean_pooled_only_when_asked(server):
    server.faults = ["per_token", "per_token"]
    pooled = embedder(server, "openai/m?pooling=mean")
    assert pooled.spec == "openai/m?pooling=mean"  # pooling changes the vectors: in the name and key
    r = pooled.embed(["a b", "c"])
    check(r, ["a b", "c"])
    assert r.usage["requests"] == 1
    refused = embedder(server).embed(["a b"])
    assert "start it with mean pooling" in refused.failed[0] and "?pooling=mean" in refused.failed[0]


def test_max_cost_holds_the_calls_in_flight_and_keeps_what_they_paid_for(tmp_path):
    # 12 texts of 4 tokens at 1 USD a token, 3 calls in flight: the limit of 20 USD is never
    # passed (the worst case of every call in flight is held, as the judges hold theirs), and
    # every call sent is committed to the cache, so the rerun pays only for the rest
    import json

    from voxjudge.llm.errors import BudgetExceeded

    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"models": {"openai/pricey": {"input_per_mtok": 1e6, "output_per_mtok": 0}}}))
    texts = [f"text number {i:02d}" for i in range(12)]  # 14 bytes: 4 tokens each
    cache = tmp_path / "c.sqlite"
    with FakeLLMServer(latency=0.05) as s:

        def run(limit: float):
            options = JudgeOptions(max_cost=limit, prices=prices, concurrency=3, cache=cache)
            e = embedder(s, "openai/pricey?batch_size=1", options=options, cache=True)
            try:
                return e.embed(texts)
            finally:
                _OPENED.remove(e)
                e.close()

        with pytest.raises(BudgetExceeded, match="cost limit of 20 USD"):
            run(20)
        first = s.count("openai-embed")
        assert first * 4 <= 20  # never past the limit
        run(1000)
        sent = [b["input"][0] for _, b in s.requests]
    assert s.count("openai-embed") == 12 and sorted(sent) == texts  # nothing paid twice


def test_a_server_that_keeps_failing_stops_the_run_without_asking_text_by_text(server):
    """Retried to the end, a batch is not asked again one text at a time (each with every retry:
    hours against a dead server); the run stops, and a rerun resumes from the cache."""
    server.faults = ["503"] * 20
    e = embedder(server)
    e.retry.max_retries = 2
    with pytest.raises(Unreachable, match="openai/nomic-embed kept failing: gave up after 3 attempts"):
        e.embed(DISTINCT)
    assert server.count("openai-embed") == 3


def test_a_request_level_400_reads_the_servers_message(server):
    """vLLM's error body has no "error" object: its message is read (it was "None"). With every
    text refused, each is asked alone once (a 400 is not retried), and each fails with it."""
    server.faults = ["vllm_400"] * 11
    texts = [f"text {k}" for k in range(10)]
    r = embedder(server).embed(texts)
    assert server.count("openai-embed") == 11 and set(r.failed) == set(range(10))
    assert all("does not support matryoshka" in why for why in r.failed.values()), r.failed


def test_texts_that_fail_alone_leave_the_good_ones_between_them_scored():
    """A batch spoilt by its first and last texts: each is asked alone, the good ones scored."""
    e = open_embedder("fake/hash?reject=BAD", cache=False)
    _OPENED.append(e)
    r = e.embed(["BAD one", "good a", "good b", "good c", "BAD two"])
    assert sorted(r.failed) == [0, 4] and not np.isnan(r.vectors[1:4]).any()


def test_a_stop_is_for_that_run_only(server):
    """A server that kept failing stops one embed(); the embedder still works when it recovers."""
    e = embedder(server)
    e.retry.max_retries = 1
    server.faults = ["503", "503"]
    with pytest.raises(Unreachable, match="kept failing: gave up after 2 attempts"):
        e.embed(["one text", "another"])
    r = e.embed(["one text", "another"])
    assert r.failed == {}


def test_a_batch_that_times_out_is_halved_once(server):
    server.faults = ["timeout", "ok", "ok"]
    server.slow_seconds = 5
    e = embedder(server)
    e.retry.max_retries, e.timeout = 0, 0.5
    r = e.embed(DISTINCT)
    check(r, DISTINCT)
    assert r.failed == {} and [len(b["input"]) for _, b in server.requests] == [5, 2, 3]


def test_retry_after_unreadable_backs_off_and_a_days_wait_stops_at_once(server):
    server.faults = ["429_soon"]
    r = embedder(server).embed(DISTINCT)
    assert r.failed == {} and r.usage["retries"] == 1
    server.faults = ["429_day"]  # a day's wait: the call gives up at once and says so
    with pytest.raises(Unreachable, match="the server asks to wait 86,400 s before a retry"):
        embedder(server).embed(["another text"])
    assert server.count("openai-embed") == 3


def test_a_gateway_timeout_is_retried_not_read_as_too_large(server):
    server.faults = ["504_slow"]
    r = embedder(server).embed(DISTINCT)
    check(r, DISTINCT)
    assert r.failed == {} and [len(b["input"]) for _, b in server.requests] == [5, 5]


def test_a_server_without_usage_is_billed_by_estimate(tmp_path, server):
    server.faults = ["no_usage"]
    e = fast(open_embedder("openai/text-embedding-3-small", base_url=server.url + "/v1", cache=False))
    _OPENED.append(e)
    r = e.embed(DISTINCT)
    from voxjudge.llm.usage import estimate_tokens

    assert r.usage["input_tokens"] == sum(map(estimate_tokens, DISTINCT)) and r.usage["cost_usd"] > 0


@pytest.mark.parametrize("fault", ["strings", "dimensions"])
def test_vectors_not_of_numbers_or_not_of_the_asked_size_are_refused(server, fault):
    if fault == "strings":
        server.faults = ["strings"] * 4
        e, why = embedder(server), "not a numeric matrix"
    else:
        e, why = embedder(server, "openai/nomic-embed?dimensions=4"), "asked for 4 dimensions, answered 16"
    r = e.embed(["a b", "c d", "e f"])
    assert set(r.failed) == {0, 1, 2} and all(why in w for w in r.failed.values()), r.failed


def test_cached_vectors_of_two_sizes_are_a_clear_error(tmp_path):
    from voxjudge.llm.cache import Cache

    path = tmp_path / "c.sqlite"
    e = open_embedder("fake/hash", cache=path)
    _OPENED.append(e)
    keys = e.keys(["a", "b"])
    cache = Cache(path)
    cache.put_vectors(
        "fake", "hash", [(keys[0], np.ones(2, "<f4").tobytes(), 2), (keys[1], np.ones(4, "<f4").tobytes(), 4)]
    )
    cache.close()
    with pytest.raises(ConfigError, match="vectors of 2 and 4 dimensions for fake/hash.*: the model behind that name"):
        e.embed(["a", "b"])


def test_what_reads_as_too_large():
    from voxjudge.llm.errors import PermanentError, TransientError
    from voxjudge.llm.providers.embed_http import too_large

    assert too_large(PermanentError("openai: HTTP 400: too many inputs: 64 > 16", status=400))  # a count cap
    assert too_large(PermanentError("openai: HTTP 413: Payload Too Large", status=413))
    assert not too_large(TransientError("openai: HTTP 504: upstream server took too long to respond", status=504))
    assert not too_large(TransientError("openai: HTTP 429: too many requests", status=429))


@pytest.mark.parametrize("fault", ["garbage", "malformed"])
def test_a_body_that_is_not_json_is_retried_through_the_sdk_too(server, fault):
    """The SDK handed a text/html body back as a str (a traceback) and failed a broken JSON body
    without a retry; both transports now retry it."""
    server.faults = [fault]
    r = embedder(server, "openai/nomic-embed?transport=sdk").embed(DISTINCT)
    check(r, DISTINCT)
    assert r.failed == {} and r.usage["retries"] == 1 and server.count("openai-embed") == 2
