"""What retrying cannot fix is reported at once, with the URL: a refused connection (a real port
on 127.0.0.1 that nothing listens on), a TLS handshake with a plain-HTTP server, a name that does
not resolve. Every provider path that can meet one: the aiohttp transport, the official openai,
anthropic and gemini SDKs, and the labelling engine (label_many) over them. And a URL no client
can send a request to (no http:// or https://): refused where the client is made, and, should one
get past (a redirect off HTTP), never retried."""

from __future__ import annotations

import socket
import ssl
import time

import pytest

from tests import servers
from voxjudge.llm import Item, Judge, Request, RetryPolicy, Task, errors, label_many
from voxjudge.llm.errors import ConfigError, TransientError
from voxjudge.llm.fakeserver import FakeLLMServer
from voxjudge.llm.options import JudgeOptions, open_embedder
from voxjudge.llm.providers._common import classify, unreachable_reason
from voxjudge.llm.records import read_records
from voxjudge.llm.spec import JudgeSpec, parse_spec

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


@pytest.fixture
def redirects_off_http():
    """The base URL of a server on 127.0.0.1 whose every answer is a redirect off HTTP."""
    with servers.redirects_off_http() as url:
        yield url


QUICK = RetryPolicy(base_delay=0.01, max_delay=0.02)  # a retry, were there one, costs nothing here


@pytest.mark.parametrize("spec", ["openai/qwen2.5", "openai/qwen2.5?transport=sdk"])
def test_a_url_no_client_can_send_to_stops_the_run_at_once_and_is_never_retried(spec, redirects_off_http, tmp_path):
    # The HTTP layer, whatever let the URL in: a client error about the URL itself is permanent
    # (it was a TransientError: `asr metrics --embedder-base-url 127.0.0.1:8080/v1` took 98 s,
    # 7 attempts, then exit 3). Like a 401 it stops the run: a ConfigError, exit status 2.
    _needs(spec)
    j = Judge(spec, base_url=redirects_off_http, cache=None, retry=QUICK, records=tmp_path / "calls.jsonl")
    with pytest.raises(ConfigError, match="no request can be sent to .*a server URL needs http:// or https://"):
        j.complete_sync(Request.simple("x", schema=SCHEMA))
    j.close()
    assert j.meter.retries == 0
    assert [rec["event"] for rec in read_records(tmp_path / "calls.jsonl")] == ["error"]
    embedder = open_embedder(spec, base_url=redirects_off_http, cache=None)
    embedder.retry = QUICK
    try:
        with pytest.raises(ConfigError, match="no request can be sent to"):
            embedder.embed(["one", "two"])
    finally:
        embedder.close()
    assert embedder.meter.retries == 0


def test_what_counts_as_a_url_no_client_can_send_to():
    aiohttp = pytest.importorskip("aiohttp")
    httpx = pytest.importorskip("httpx")
    openai = pytest.importorskip("openai")
    sdk = openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions"))
    sdk.__cause__ = httpx.UnsupportedProtocol("Request URL is missing an 'http://' or 'https://' protocol.")
    for exc in (
        aiohttp.NonHttpUrlClientError("127.0.0.1:8080/v1/embeddings"),
        aiohttp.InvalidUrlClientError("http://[::1/v1"),
        aiohttp.NonHttpUrlRedirectClientError("ftp://x/v1"),
        sdk,  # the SDK's wrapper is named like a connection error, which is retried
    ):
        found = classify(exc, "openai", "127.0.0.1:8080/v1")
        assert isinstance(found, errors.UnusableURL) and "http:// or https://" in str(found), exc
    assert isinstance(classify(httpx.ConnectTimeout("slow"), "openai"), TransientError)


@pytest.mark.parametrize("url", ["127.0.0.1:8080/v1", "not a url", "localhost:1", "ftp://127.0.0.1/v1", "http://", ""])
def test_a_base_url_without_http_or_https_is_refused_where_the_client_is_made(url):
    pytest.importorskip("aiohttp")
    with pytest.raises(ConfigError, match="needs http:// or https://") as judge:
        Judge("openai/x", base_url=url, cache=None)
    assert judge.value.worded({"base_url": "--base-url"}).startswith(f"--base-url {url!r} is not a server URL")
    with pytest.raises(ConfigError, match="needs http:// or https://") as embedder:
        open_embedder("openai/x", base_url=url, cache=None)
    assert embedder.value.worded({"embedder_base_url": "--embedder-base-url"}).startswith("--embedder-base-url ")
    with pytest.raises(ConfigError, match="needs http:// or https://"):
        JudgeOptions(base_url=url)
    with pytest.raises(ConfigError, match="needs http:// or https://"):  # a spec made by hand, too
        JudgeSpec("openai", "x", url)
    assert parse_spec("openai/x", " http://127.0.0.1:8080/v1/ ").base_url == "http://127.0.0.1:8080/v1"
