from __future__ import annotations

import json

import pytest

from voxjudge.cli.main import main
from voxjudge.llm import Judge, Request
from voxjudge.llm.fakeserver import FakeLLMServer


def test_ping_fake_and_json(capsys):
    assert main(["llm", "ping", "fake/schema", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["structured_output"] and out["judge"] == "fake/schema"


def test_ping_openai_compatible_server(capsys):
    with FakeLLMServer() as srv:
        code = main(["llm", "ping", "openai/local-model", "--base-url", srv.url + "/v1"])
    out = capsys.readouterr().out
    assert code == 0 and "structured output works (enforced by the server)" in out


def test_ping_failure_exits_3(capsys):
    code = main(["llm", "ping", "fake/schema?fail_first=99", "--max-retries", "0"])
    assert code == 3 and "failed" in capsys.readouterr().out


def test_ping_ok_means_the_judge_answered_validly(capsys):
    # A server that answers {"ok": false}: an answer, but not the one asked for.
    with FakeLLMServer(responder=lambda provider, body: {"ok": False}) as srv:
        code = main(["llm", "ping", "--judge", "openai/m", "--base-url", srv.url + "/v1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 3 and out["ok"] is False and out["answer"] == '{"ok": false}' and out["error"]


def test_ping_a_refused_port_fails_at_once_naming_the_url(capsys):
    import socket
    import time

    with socket.socket() as s:  # bound, not listening: connections are refused
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        start = time.monotonic()
        code = main(["llm", "ping", "--judge", "openai/qwen2.5", "--base-url", url, "--json"])
        took = time.monotonic() - start
    out = json.loads(capsys.readouterr().out)
    assert code == 3 and out["ok"] is False and took < 5  # was 46 s over 7 attempts
    assert f"cannot reach {url}: connection refused" in out["error"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["llm", "ping", "nonsense"], "is not provider/model"),
        (["llm", "ping", "openai/gpt-4o-mini"], "no API key; set OPENAI_API_KEY"),
        (["llm", "ping", "fake/schema", "--concurrency", "0"], "--concurrency must be at least 1"),
        (["llm", "ping", "openai/x", "--base-url", "http://127.0.0.1:9/v1", "--max-cost", "1"], "no price known"),
        (["llm", "ping", "fake/schema", "--prices", "/nonexistent.json"], "price table not found"),
    ],
)
def test_ping_config_errors_exit_2(capsys, monkeypatch, argv, message):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_cache_stats_and_clear(capsys, tmp_path, monkeypatch):
    path = tmp_path / "cache.sqlite"
    monkeypatch.setenv("VOXJUDGE_CACHE", str(path))
    j = Judge("fake/echo")  # default cache location follows VOXJUDGE_CACHE
    j.complete_sync(Request.simple("hello"))
    j.close()
    assert main(["cache", "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["entries"] == 1 and stats["judges"][0]["judge"] == "fake/echo"
    assert main(["cache", "stats"]) == 0 and "fake/echo: 1" in capsys.readouterr().out
    assert main(["cache", "clear", "--cache", str(path)]) == 0
    assert "removed 1" in capsys.readouterr().out


SCORE_SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 5}},
    "required": ["score"],
    "additionalProperties": False,
}


@pytest.fixture
def prompts(tmp_path):
    path = tmp_path / "prompts.jsonl"
    path.write_text("".join(json.dumps({"id": f"p{k}", "prompt": f"rate item {k}"}) + "\n" for k in range(6)))
    (tmp_path / "schema.json").write_text(json.dumps(SCORE_SCHEMA))
    return path


def test_llm_run_then_rerun_from_cache(capsys, tmp_path, prompts):
    args = [
        "llm",
        "run",
        str(prompts),
        "--judge",
        "fake/schema",
        "--schema",
        str(tmp_path / "schema.json"),
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--out",
        str(tmp_path / "out.jsonl"),
        "--log",
        str(tmp_path / "log.jsonl"),
    ]
    assert main(args) == 0
    assert "6/6 items, 6 requests, 0 cache hits" in capsys.readouterr().err
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [o["id"] for o in out] == [f"p{k}" for k in range(6)] and out[0]["samples"][0]["parsed"] == {"score": 1}
    assert main(args) == 0
    assert "6/6 items, 0 requests, 6 cache hits" in capsys.readouterr().err
    events = [json.loads(line)["event"] for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert events.count("call") == 6 and events.count("cache_hit") == 6


def test_llm_run_dry_run_and_max_cost(capsys, tmp_path, prompts):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"models": {"openai/pricey": {"input_per_mtok": 100000, "output_per_mtok": 100000}}}))
    with FakeLLMServer() as srv:
        base = [
            "llm",
            "run",
            str(prompts),
            "--judge",
            "openai/pricey",
            "--base-url",
            srv.url + "/v1",
            "--prices",
            str(prices),
            "--cache",
            str(tmp_path / "c.sqlite"),
            "--max-tokens",
            "20",
        ]
        assert main([*base, "--dry-run"]) == 0
        est = json.loads(capsys.readouterr().out)
        assert est["requests"] == 6 and est["output_tokens_max"] == 120 and est["cost_usd_max"] > 0
        assert srv.count() == 0  # a dry run sends nothing
        code = main([*base, "--max-cost", "8", "--concurrency", "1", "--out", str(tmp_path / "out.jsonl")])
        err = capsys.readouterr().err
        assert code == 3 and "stopped early: cost limit of 8 USD reached" in err
        done = len((tmp_path / "out.jsonl").read_text().splitlines())
        assert 0 < done < 6 and srv.count() == done
        # A higher limit continues where it stopped; nothing is paid twice.
        assert main([*base, "--max-cost", "1000"]) == 0
        assert srv.count() == 6


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"id": 1}\n', "needs an 'id' and a string 'prompt'"),
        ('{"id": 1, "prompt": "a"}\n{"id": 1, "prompt": "b"}\n', "duplicate id '1'"),
        ("{nope\n", "not valid JSON"),
        ('{"id": 1, "prompt": "a", "audio": "missing.wav"}\n', "audio file not found"),
        # Bytes that are not audio are refused by the same reader the acoustic judge uses.
        ('{"id": 1, "prompt": "a", "audio": "noise.wav"}\n', "noise.wav"),
    ],
)
def test_llm_run_bad_input(capsys, tmp_path, content, message):
    path = tmp_path / "p.jsonl"
    path.write_text(content)
    (tmp_path / "noise.wav").write_bytes(bytes(range(256)) * 8)
    assert main(["llm", "run", str(path), "--judge", "fake/schema", "--no-cache"]) == 2
    assert message in capsys.readouterr().err


def test_local_provider_reports_what_is_missing(tmp_path):
    from voxjudge.llm.errors import ConfigError

    try:
        import llama_cpp  # noqa: F401

        expected = "not found"
    except ImportError:
        expected = "pip install 'voxjudge\\[local\\]'"
    with pytest.raises(ConfigError, match=expected):
        Judge(f"local/{tmp_path / 'missing.gguf'}", cache=None)


@pytest.mark.parametrize("url", ["127.0.0.1:1/v1", "not a url"])
def test_a_base_url_without_http_or_https_is_refused_at_once_by_every_command(capsys, tmp_path, prompts, examples, url):
    # `asr score --judge openai/x --base-url 127.0.0.1:1/v1` was retried 7 times (about 100 s), then exit 3
    import time

    hi, pairs = examples / "asr" / "hi", examples / "pairwise" / "pairs.jsonl"
    judge = ["--judge", "openai/x", "--base-url", url, "--no-cache"]
    for argv in (
        ["asr", "score", "--ref", str(hi / "ref.txt"), "--hyp", str(hi / "sys_b.txt"), "--ids", *judge],
        ["asr", "score", "--ref", str(hi / "ref.txt"), "--hyp", str(hi / "sys_b.txt"), "--ids", *judge, "--dry-run"],
        ["llm", "run", str(prompts), *judge],
        ["llm", "ping", *judge],
        ["pairwise", "judge", "--pairs", str(pairs), "--samples", "2", "--out", str(tmp_path / "j.jsonl"), *judge],
    ):
        start = time.monotonic()
        assert main(argv) == 2, argv
        assert time.monotonic() - start < 10, argv
        err = capsys.readouterr().err
        example = f"http://{url}" if " " not in url else "http://127.0.0.1:8080/v1"
        want = f"--base-url {url!r} is not a server URL: it needs http:// or https:// and a host, e.g. {example}"
        assert err == f"voxjudge: error: {want}\n", argv


def test_cache_clear_takes_the_embedder_names_a_run_prints(capsys, tmp_path):
    """`default` and the spec a summary prints (with ?options) clear that model's vectors; a spec
    with nothing cached says so and names what the cache holds."""
    from voxjudge.llm.cache import Cache

    path = tmp_path / "cache.sqlite"

    def filled():
        cache = Cache(path)
        cache.put_vectors("e5", "multilingual-e5-small", [("k1", b"\0" * 8, 2), ("k2", b"\0" * 8, 2)])
        cache.close()

    for spec in ("default", "e5/multilingual-e5-small?prefix=query", "E5/multilingual-e5-small"):
        filled()
        assert main(["cache", "clear", "--cache", str(path), "--judge", spec]) == 0
        out = capsys.readouterr().out
        assert "removed 2 " in out, spec
        assert ("every option's" in out) == ("?" in spec)
    filled()
    assert main(["cache", "clear", "--cache", str(path), "--judge", "openai/text-embedding-3-small"]) == 0
    out = capsys.readouterr().out
    assert "removed 0 " in out
    assert "nothing was cached for openai/text-embedding-3-small; the cache holds: e5/multilingual-e5-small" in out
