"""Kaldi 'id text' files read without --ids: the ids would count as words. The library reports
what it found (``Paired.leading_ids``); the command warns once, naming --ids; --no-ids silences it."""

from __future__ import annotations

import json

import jiwer
import pytest

from voxjudge.cli.main import main
from voxjudge.io import pair_texts, read_texts
from voxjudge.io.matching import leading_ids

EN = "examples/asr/en"


def test_the_library_finds_leading_ids(examples):
    ref, hyp = examples / "asr/en/ref.txt", examples / "asr/en/sys_a.txt"
    paired = pair_texts(read_texts(ref), read_texts(hyp))
    assert paired.leading_ids == ("f01-en001", "m02-en002", "f03-en003", "m04-en004", "f01-en005")
    assert pair_texts(read_texts(ref, ids=True), read_texts(hyp, ids=True)).leading_ids == ()


@pytest.mark.parametrize(
    "refs, hyps, found",
    [
        (["utt1 a b", "utt2 c"], ["utt1 a", "utt2 c d"], ("utt1", "utt2")),
        (["1 a", "2 b"], ["1 a", "2 c"], ("1", "2")),
        (["the cat", "the dog"], ["the cat", "the dog"], ()),  # words, and the same on every line
        (["utt1 a", "utt1 b"], ["utt1 a", "utt1 b"], ()),  # not unique: not ids
        (["utt1 a", "utt2 b"], ["utt1 a", "utt3 b"], ()),  # differ between the sides
        (["utt1 a", "hello b"], ["utt1 a", "hello b"], ()),  # not every line
        (["cat a", "dog b"], ["cat a", "dog b"], ()),  # no digit: words
        (["utt1 a", ""], ["utt1 a", ""], ()),  # an empty line
    ],
)
def test_what_counts_as_leading_ids(refs, hyps, found):
    assert leading_ids(refs, hyps) == found


def _metrics(capsys, *extra):
    assert main(["asr", "metrics", "--ref", f"{EN}/ref.txt", "--hyp", f"{EN}/sys_a.txt", "--json", *extra]) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


def test_metrics_warns_once_naming_ids_and_the_numbers_show_why(capsys, monkeypatch, examples):
    monkeypatch.chdir(examples.parent)
    plain, err = _metrics(capsys)
    assert err.count("voxjudge: warning:") == 1 and "--ids" in err and "'f01-en001'" in err and "--no-ids" in err
    with_ids, err_ids = _metrics(capsys, "--ids")
    assert err_ids == ""
    silenced, err_silenced = _metrics(capsys, "--no-ids")
    assert err_silenced == "" and silenced == plain
    # the ids counted as words: 50 more reference words, each a hit, so a lower WER (oracle: jiwer)
    refs = [line.split(maxsplit=1)[1] for line in (examples / "asr/en/ref.txt").read_text().splitlines()]
    hyps = [line.split(maxsplit=1)[1] for line in (examples / "asr/en/sys_a.txt").read_text().splitlines()]
    assert with_ids["wer"] == pytest.approx(jiwer.wer(refs, hyps))
    assert plain["ref_words"] == with_ids["ref_words"] + 50 and plain["wer"] < with_ids["wer"]


@pytest.mark.parametrize(
    "argv",
    [
        ["asr", "align", "--ref", f"{EN}/ref.txt", "--hyp", f"{EN}/sys_a.txt", "--limit", "1"],
        ["asr", "compare", "--ref", f"{EN}/ref.txt", "--hyp-a", f"{EN}/sys_a.txt", "--hyp-b", f"{EN}/sys_b.txt",
         "--resamples", "200"],
        ["asr", "score", "--ref", f"{EN}/ref.txt", "--hyp", f"{EN}/sys_a.txt"],
    ],
    ids=["align", "compare", "score"],
)  # fmt: skip
def test_every_ref_hyp_command_warns_once(argv, capsys, monkeypatch, examples):
    monkeypatch.chdir(examples.parent)
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("--ids if they are utterance ids") == 1
    assert main([*argv, "--no-ids"]) == 0
    assert "--ids if they are utterance ids" not in capsys.readouterr().err
