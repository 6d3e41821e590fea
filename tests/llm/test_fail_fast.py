"""What retrying cannot fix is reported at once, with the URL: a refused connection (a real port
on 127.0.0.1 that nothing listens on), a TLS handshake with a plain-HTTP server, a name that does
not resolve. Every provider path that can meet one: the aiohttp transport, the official openai,
anthropic and gemini SDKs, and the labelling engine (label_many) over them."""

from __future__ import annotations

import socket
import ssl
import time

import pytest

from voxjudge.llm import Item, Judge, Request, RetryPolicy, Task, label_many
from voxjudge.llm.errors import TransientError
from voxjudge.llm.fakeserver import FakeLLMServer
from voxjudge.llm.providers._common import classify, unreachable_reason
from voxjudge.llm.records import read_records

SCHEMA = {
    "type": "object",
    "properties": {"label": {"enum": ["minor", "major"]}},
    "required": ["label"],
    "additionalProperties": False,
}
# The default policy (6 retries, backoff up to a minute) that made a refused port take 107 s.
DEFAULT = RetryPolicy()


@pytest.fixture
def refused_port():
    """A port on 127.0.0.1 that refuses connections: bound but not listening, and held for the
    test so that no other process on this busy machine can start a server on it meanwhile."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


SPECS = [
    pytest.param("openai/qwen2.5", "/v1", id="openai-aiohttp"),
    pytest.param("openai/qwen2.5?transport=sdk", "/v1", id="openai-sdk"),
    pytest.param("anthropic/claude-x", "", id="anthropic-sdk"),
    pytest.param("gemini/gemini-x", "", id="gemini-sdk"),
]


def _needs(spec: str) -> None:
    module = {"openai": "openai", "anthropic": "anthropic", "gemini": "google.genai"}[spec.split("/")[0]]
    pytest.importorskip(module)
    if spec.startswith("openai/") and "sdk" not in spec:
        pytest.importorskip("aiohttp")


@pytest.mark.parametrize("spec, path", SPECS)
def test_a_refused_port_fails_in_seconds_naming_the_url(spec, path, refused_port, tmp_path, monkeypatch):
    _needs(spec)
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    url = f"http://127.0.0.1:{refused_port}{path}"
    j = Judge(spec, base_url=url, cache=None, retry=DEFAULT, records=tmp_path / "calls.jsonl")
    start = time.monotonic()
    r = j.complete_sync(Request.simple("x", schema=SCHEMA))[0]
    took = time.monotonic() - start
    j.close()
    assert not r.ok and "cannot reach" in r.error and "connection refused" in r.error
    assert f"127.0.0.1:{refused_port}" in r.error
    assert took < 5, took  # was 46 s through ping, 107 s through asr score
    assert j.stop_reason and "cannot reach" in j.stop_reason
    events = [rec["event"] for rec in read_records(tmp_path / "calls.jsonl")]
    assert events == ["retry", "retry", "error"]  # a bounded quick retry (a server starting up), then stop


def test_after_the_first_refusal_the_run_asks_nothing_more(refused_port, tmp_path):
    pytest.importorskip("aiohttp")
    j = Judge("openai/x", base_url=f"http://127.0.0.1:{refused_port}/v1", cache=None, records=tmp_path / "c.jsonl")
    j.complete_sync(Request.simple("first"))
    start = time.monotonic()
    later = j.complete_sync(Request.simple("second"))[0]
    assert time.monotonic() - start < 0.5 and "cannot reach" in later.error
    j.close()
    assert sum(1 for rec in read_records(tmp_path / "c.jsonl") if rec["item_id"] is None) == 3  # no new attempts


@pytest.mark.parametrize("spec", ["openai/qwen2.5", "openai/qwen2.5?transport=sdk"])
def test_label_many_over_a_refused_port_stops_at_once(spec, refused_port, tmp_path):
    _needs(spec)
    j = Judge(spec, base_url=f"http://127.0.0.1:{refused_port}/v1", cache=None, records=tmp_path / "c.jsonl")
    task = Task("tiers", system="Grade.", user="Pairs:\n$items", item_schema=SCHEMA, batch_size=4)
    items = [Item(f"p{k}", {"ref": "cat", "hyp": "bat"}) for k in range(40)]
    start = time.monotonic()
    outcome = j.run(label_many(j, task, items))
    took = time.monotonic() - start
    j.close()
    assert took < 5, took
    assert len(outcome.unscored) == 40 and not outcome.answers
    assert outcome.stopped and f"127.0.0.1:{refused_port}" in outcome.stopped
    kinds = outcome.as_dict()["unscored_reasons"]
    assert set(kinds) <= {"call failed", "not asked"} and sum(kinds.values()) == 40
    # at most one request per batch in flight when the refusal came, each with its quick retries
    assert len(list(read_records(tmp_path / "c.jsonl"))) <= 3 * 10


def test_tls_to_a_plain_http_server_is_not_retried_for_minutes(tmp_path):
    pytest.importorskip("aiohttp")
    with FakeLLMServer() as srv:
        url = srv.url.replace("http://", "https://") + "/v1"
        j = Judge("openai/x", base_url=url, cache=None, retry=DEFAULT)
        start = time.monotonic()
        r = j.complete_sync(Request.simple("x"))[0]
        j.close()
    assert time.monotonic() - start < 5 and "cannot reach" in r.error and "TLS failed" in r.error


def test_what_counts_as_unreachable():
    httpx = pytest.importorskip("httpx")

    def wrapped(cause: BaseException) -> BaseException:
        try:
            try:
                raise cause
            except BaseException as inner:
                raise httpx.ConnectError(str(inner)) from inner
        except BaseException as outer:
            return outer

    assert unreachable_reason(wrapped(ConnectionRefusedError(111, "Connection refused"))) == "connection refused"
    assert unreachable_reason(wrapped(socket.gaierror(-2, "Name or service not known"))) == (
        "the host name does not resolve"
    )
    assert unreachable_reason(wrapped(ssl.SSLCertVerificationError(1, "certificate verify failed"))).startswith(
        "TLS failed"
    )
    # Timeouts, resets and dropped connections may pass: they stay retried with backoff.
    for passing in (TimeoutError("timed out"), ConnectionResetError(104, "reset"), httpx.ReadTimeout("slow")):
        assert unreachable_reason(wrapped(passing)) is None
    assert isinstance(classify(wrapped(ConnectionResetError(104, "reset")), "openai"), TransientError)


def test_asr_score_on_a_refused_port_stops_in_seconds_and_says_why(examples, refused_port, tmp_path, capsys):
    pytest.importorskip("aiohttp")
    from voxjudge.cli.main import main

    url = f"http://127.0.0.1:{refused_port}/v1"
    hi = examples / "asr" / "hi"
    argv = ["asr", "score", "--ref", str(hi / "ref.txt"), "--hyp", str(hi / "sys_b.txt"), "--ids",
            "--judge", "openai/qwen2.5", "--base-url", url, "--no-cache", "--json"]  # fmt: skip
    start = time.monotonic()
    code = main(argv)
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert code == 3 and took < 10, took  # was 107-116 s
    assert f"stopped early: openai: cannot reach {url}: connection refused" in err
    assert "Once the server answers, rerun the same command" in err and "from the cache" not in err
