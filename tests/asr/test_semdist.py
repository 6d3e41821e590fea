"""SemDist: 1 - cosine against an independent oracle (the fake embedder's vectors, normalised by
hand), its rules without a model call, its stop on a failed text, and where it shows up
(asr metrics, compare with significance, score records)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from voxjudge.asr.compare import compare_systems
from voxjudge.asr.measures import compute_metrics
from voxjudge.asr.semdist import EmbedderFailed, compute_semdist, semantic_distances, semdist_text
from voxjudge.cli.main import main
from voxjudge.llm.options import open_embedder
from voxjudge.llm.scripts import hashed_vector


def _oracle(ref: str, hyp: str) -> float:
    a, b = hashed_vector("hash", ref, 64), hashed_vector("hash", hyp, 64)
    return 1.0 - float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_semdist_is_one_minus_the_cosine_and_asks_only_what_it_needs():
    refs = ["the cat sat", "the cat sat", "", "", "a dog", "وَأَمَّا الشِّبْرُ"]
    hyps = ["the bat sat", "the  cat sat", "", "words", "a dog", "وأما الشبر"]
    embedder = open_embedder("fake/hash", cache=False)
    try:
        found = semantic_distances(embedder, refs, hyps)
        sent = [t for batch in embedder.backend.sent for t in batch]
    finally:
        embedder.close()
    assert found.distances[0] == pytest.approx(_oracle("the cat sat", "the bat sat"), abs=1e-6)
    # the same after white space and tashkeel are folded: 0; both empty 0; one empty 1; no call for them
    assert list(found.distances[1:]) == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert sorted(sent) == ["the bat sat", "the cat sat"]
    assert found.mean() == pytest.approx(np.mean(found.distances)) and not found.failed
    assert semdist_text("  a\u0651  b ") == "a b"


def test_a_text_the_embedder_cannot_embed_stops_the_run_naming_the_utterance():
    with pytest.raises(EmbedderFailed, match="could not embed 1 utterance.*first u2: .*nothing was scored"):
        compute_semdist("fake/hash?reject=BAD", ["a b", "c d"], [["a c", "BAD d"]], ["u1", "u2"])


def test_metrics_and_compare_carry_semdist_with_a_paired_bootstrap():
    refs, a = ["one two three", "four five", "six"], ["one two tree", "four five", "sex"]
    b = ["on to three", "for", "x"]
    result = compute_metrics(refs, a, embedder="fake/hash")
    want = [_oracle(r, h) if r != h else 0.0 for r, h in zip(refs, a)]
    assert [u["semdist"] for u in result.per_utterance()] == pytest.approx(want, abs=1e-6)
    assert result.summary()["semdist"] == pytest.approx(np.mean(want), abs=1e-6)
    assert result.summary()["embedder"].startswith("fake/hash")
    comparison = compare_systems(refs, a, b, embedder="fake/hash", n_resamples=200)
    s = comparison.summary()
    want_b = [_oracle(r, h) for r, h in zip(refs, b)]
    assert s["semdist"]["delta"] == pytest.approx(np.mean(want) - np.mean(want_b), abs=1e-6)
    boot = s["significance_semdist"]["paired_bootstrap_semdist"]
    assert boot["ci_low"] <= boot["difference"] <= boot["ci_high"] and boot["n_items"] == 3
    assert "semdist" not in compare_systems(refs, a, b, n_resamples=50).summary()


def test_asr_score_with_an_embedder_writes_semdist_in_every_record(tmp_path, capsys):
    ref, hyp, out = tmp_path / "ref.txt", tmp_path / "hyp.txt", tmp_path / "out.jsonl"
    ref.write_text("the cat sat on the mat\nI like the cat.\n", encoding="utf-8")
    hyp.write_text("the cat sat on a mat\nI like cat\n", encoding="utf-8")
    code = main(["asr", "score", "--ref", str(ref), "--hyp", str(hyp), "--judge", "rules", "--lang", "en",
                 "--embedder", "fake/hash", "--out", str(out), "--no-cache"])  # fmt: skip
    assert code == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["semdist"] for r in records] == pytest.approx(
        [_oracle("the cat sat on the mat", "the cat sat on a mat"), _oracle("I like the cat.", "I like cat")], abs=1e-6
    )
    assert records[1]["laser"] == 0.75 and records[1]["format_errors"] == 1
    shown = capsys.readouterr().out
    assert "SemDist (mean" in shown and "case/punctuation only: 1 word pairs" in shown


def test_an_unreachable_embedding_server_fails_fast_with_status_3(tmp_path, capsys):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("a b\n", encoding="utf-8")
    hyp.write_text("a c\n", encoding="utf-8")
    code = main(["asr", "metrics", "--ref", str(ref), "--hyp", str(hyp), "--embedder", "openai/x",
                 "--embedder-base-url", f"http://127.0.0.1:{port}/v1"])  # fmt: skip
    err = capsys.readouterr().err
    assert code in (2, 3) and "127.0.0.1" in err and "Traceback" not in err
