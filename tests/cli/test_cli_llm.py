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


def test_ping_failure_exits_1(capsys):
    code = main(["llm", "ping", "fake/schema?fail_first=99", "--max-retries", "0"])
    assert code == 1 and "failed" in capsys.readouterr().out


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
