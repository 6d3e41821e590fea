"""One pluralisation helper for every count in words: no "1 annotators", "1 utterances"."""

from __future__ import annotations

import pytest

from voxjudge.plural import counted, plural


@pytest.mark.parametrize(
    "n, noun, expected",
    [
        (1, "annotator", "1 annotator"),
        (3, "annotator", "3 annotators"),
        (0, "utterance", "0 utterances"),
        (1, "utterance", "1 utterance"),
        (2, "hypothesis", "2 hypotheses"),
        (2, "abstained cell", "2 abstained cells"),
        (2, "entry", "2 entries"),
        (2, "day", "2 days"),
        (2, "box", "2 boxes"),
        (1.5, "second", "1.5 seconds"),
    ],
)
def test_counted(n, noun, expected):
    assert counted(n, noun) == expected


def test_an_explicit_plural_wins():
    assert counted(2, "person", "people") == "2 people" and counted(1, "person", "people") == "1 person"
    assert plural("child") == "children"


def test_commands_word_their_counts(tmp_path, capsys, monkeypatch, examples):
    from voxjudge.cli.main import main

    monkeypatch.chdir(examples.parent)
    one = tmp_path / "one.txt"
    one.write_text("hello world\n")
    assert main(["asr", "metrics", "--ref", str(one), "--hyp", str(one)]) == 0
    assert "Corpus level: 1 utterance (" in capsys.readouterr().out
    a = examples / "breaks" / "annotator_a.txt"
    assert main(["breaks", "from-annotators", str(a), "--out", str(tmp_path / "t.jsonl")]) == 0
    assert "from 1 file" in capsys.readouterr().out
    pytest.importorskip("starlette")
    pairs = examples / "pairwise" / "pairs.jsonl"
    assert main(["studio", "init", str(tmp_path / "study"), "--task", "pairwise", "--items", str(pairs),
                 "--per-item", "1"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "1 annotator per item" in out and "study study" not in out and "0 repeats per annotator" in out
