from __future__ import annotations

import pytest

from voxjudge.llm import AudioPart, Message, Request, TextPart
from voxjudge.llm.cache import Cache, default_cache_path, request_key
from voxjudge.llm.errors import ConfigError
from voxjudge.llm.spec import parse_spec


def test_parse_spec_forms():
    s = parse_spec("openai/gpt-4o-mini", base_url="http://127.0.0.1:8000/v1/")
    assert (s.provider, s.model, s.base_url) == ("openai", "gpt-4o-mini", "http://127.0.0.1:8000/v1")
    assert parse_spec("local/models/tiny.gguf").model == "models/tiny.gguf"
    f = parse_spec("fake/echo?latency=0.2&error_rate=0.1")
    assert f.model == "echo" and f.options == {"latency": "0.2", "error_rate": "0.1"}


@pytest.mark.parametrize(
    "spec, message",
    [("gpt-4o", "is not provider/model"), ("openai/", "is not provider/model"), ("acme/x", "unknown provider 'acme'")],
)
def test_bad_specs(spec, message):
    with pytest.raises(ConfigError, match=message):
        parse_spec(spec)


def test_base_url_only_for_http_providers():
    with pytest.raises(ConfigError, match="base_url applies"):
        parse_spec("fake/echo", base_url="http://127.0.0.1:1")


def test_key_depends_on_allow_listed_fields_only():
    spec = parse_spec("openai/m")
    req = Request.simple("hello", temperature=0.0, seed=1)
    k = request_key(spec, req, 0)
    assert k == request_key(spec, Request.simple("hello", temperature=0.0, seed=1), 0)
    assert k != request_key(spec, req, 1)  # sample index
    assert k != request_key(spec, Request.simple("hello!", temperature=0.0, seed=1), 0)
    assert k != request_key(spec, Request.simple("hello", temperature=0.5, seed=1), 0)
    assert k != request_key(spec, Request.simple("hello", temperature=0.0, seed=2), 0)
    assert k != request_key(parse_spec("openai/m", base_url="http://127.0.0.1:1"), req, 0)
    assert k != request_key(spec, Request.simple("hello", temperature=0.0, seed=1, template="v2"), 0)
    # n is not part of the key: samples are cached one by one
    assert k == request_key(spec, Request.simple("hello", temperature=0.0, seed=1, n=5), 0)


def test_audio_is_keyed_by_content():
    spec = parse_spec("gemini/m")

    def req(data):
        return Request((Message("user", (TextPart("x"), AudioPart(data, "wav"))),))

    assert request_key(spec, req(b"abc"), 0) == request_key(spec, req(b"abc"), 0)
    assert request_key(spec, req(b"abc"), 0) != request_key(spec, req(b"abd"), 0)


def test_cache_persists_and_reports(tmp_path):
    path = tmp_path / "c.sqlite"
    spec = parse_spec("fake/echo")
    c = Cache(path)
    c.put("k1", spec, {"text": "नमस्ते"})
    c.close()
    c = Cache(path)
    assert c.get("k1") == {"text": "नमस्ते"} and c.get("nope") is None
    stats = c.stats()
    assert stats["entries"] == 1 and stats["judges"][0]["judge"] == "fake/echo"
    assert c.clear("openai/x") == 0 and c.clear() == 1 and c.stats()["entries"] == 0


def test_cache_location(monkeypatch, tmp_path):
    monkeypatch.delenv("VOXJUDGE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "voxjudge" / "llm-cache.sqlite"
    monkeypatch.setenv("VOXJUDGE_CACHE", str(tmp_path / "mine.sqlite"))
    assert default_cache_path() == tmp_path / "mine.sqlite"


def test_grammar_file_is_keyed_by_its_content_not_its_path(tmp_path):
    req = Request.simple("hello", temperature=0.0, seed=1)
    a, b = tmp_path / "a.gbnf", tmp_path / "b.gbnf"
    a.write_text('root ::= "yes"\n')
    b.write_text('root ::= "yes"\n')
    key = lambda path: request_key(parse_spec(f"local/m.gguf?grammar={path}"), req, 0)  # noqa: E731
    assert key(a) == key(b)  # same grammar, another path: same answers
    before = key(a)
    a.write_text('root ::= "no"\n')
    assert key(a) != before  # an edited grammar changes the key
    assert parse_spec(f"local/m.gguf?grammar={a}").identity()["options"]["grammar"].startswith("sha256:")
