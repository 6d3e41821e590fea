from __future__ import annotations

import json
import subprocess
import sys

import jiwer
import pytest

from voxjudge.cli.main import main

KEYS = ["wer", "cer", "mer", "wil", "wip", "hits", "substitutions", "deletions", "insertions"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def en(examples):
    d = examples / "asr" / "en"
    return str(d / "ref.txt"), str(d / "sys_a.txt"), str(d / "sys_b.txt")


def _kaldi_texts(path):
    return [line.split(" ", 1)[1].rstrip("\n") for line in open(path, encoding="utf-8")]


def test_metrics_json_matches_jiwer_on_examples(capsys, en):
    ref, hyp, _ = en
    code, out, err = run(capsys, "asr", "metrics", "--ref", ref, "--hyp", hyp, "--ids", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert all(k in data for k in KEYS)
    refs, hyps = _kaldi_texts(ref), _kaldi_texts(hyp)
    oracle = jiwer.process_words(refs, hyps)
    assert [data[k] for k in ("wer", "mer", "wil", "wip")] == [oracle.wer, oracle.mer, oracle.wil, oracle.wip]
    assert [data[k] for k in KEYS[5:]] == [oracle.hits, oracle.substitutions, oracle.deletions, oracle.insertions]
    assert data["cer"] == jiwer.cer(refs, hyps)
    assert "utterances" not in data


def test_metrics_per_utterance_in_input_order(capsys, en, tmp_path):
    ref, hyp, _ = en
    out_file = tmp_path / "utts.jsonl"
    code, out, _ = run(
        capsys,
        "asr",
        "metrics",
        "--ref",
        ref,
        "--hyp",
        hyp,
        "--ids",
        "--json",
        "--per-utterance",
        "--out",
        str(out_file),
    )
    data = json.loads(out)
    ids = [line.split(" ", 1)[0] for line in open(ref, encoding="utf-8")]
    assert [u["id"] for u in data["utterances"]] == ids
    assert all(all(k in u for k in KEYS) for u in data["utterances"])
    first = jiwer.process_words(_kaldi_texts(ref)[0], _kaldi_texts(hyp)[0])
    assert data["utterances"][0]["wer"] == first.wer
    written = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert written == data["utterances"]


def test_metrics_grapheme_unit_and_normalization(capsys, tmp_path):
    (tmp_path / "r.txt").write_text("सफ़र अच्छा था\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("सफर अच्छा था\n", encoding="utf-8")
    args = ["asr", "metrics", "--ref", str(tmp_path / "r.txt"), "--hyp", str(tmp_path / "h.txt"), "--json"]
    plain = json.loads(run(capsys, *args)[1])
    graph = json.loads(run(capsys, *args, "--unit", "grapheme")[1])
    folded = json.loads(run(capsys, *args, "--normalize", "hindi")[1])
    assert plain["wer"] == pytest.approx(1 / 3)
    assert plain["cer_unit"] == "char" and graph["cer_unit"] == "grapheme"
    assert graph["char_counts"] == {"hits": 7, "substitutions": 1, "deletions": 0, "insertions": 0}
    assert folded["wer"] == 0.0 and folded["normalize"] == "hindi"


def test_metrics_table_and_speakers(capsys, en):
    ref, hyp, _ = en
    code, out, _ = run(capsys, "asr", "metrics", "--ref", ref, "--hyp", hyp, "--ids", "--by-speaker", "--per-utterance")
    assert code == 0
    assert "Corpus level: 50 utterances" in out and "Per speaker" in out and "f01-en001" in out
    assert "\x1b[" not in out  # not a terminal: no colour codes


def test_metrics_speakers_from_column(capsys, tmp_path):
    (tmp_path / "r.tsv").write_text("id\tspeaker\ttext\n1\tann\ta b\n2\tbob\tc d\n3\tann\te f\n")
    (tmp_path / "h.tsv").write_text("id\ttext\n1\ta b\n2\tc x\n3\te f\n")
    code, out, _ = run(
        capsys,
        "asr",
        "metrics",
        "--ref",
        str(tmp_path / "r.tsv"),
        "--hyp",
        str(tmp_path / "h.tsv"),
        "--json",
        "--by-speaker",
    )
    speakers = {s["speaker"]: s for s in json.loads(out)["speakers"]}
    assert speakers["ann"]["wer"] == 0.0 and speakers["bob"]["wer"] == 0.5
    assert "semdist" not in speakers["ann"]  # no embedder, no SemDist
    files = ["--ref", str(tmp_path / "r.tsv"), "--hyp", str(tmp_path / "h.tsv"), "--by-speaker"]
    code, out, _ = run(capsys, "asr", "metrics", *files, "--json", "--embedder", "fake/hash", "--per-utterance")
    found = json.loads(out)
    speakers = {s["speaker"]: s for s in found["speakers"]}
    by_id = {u["id"]: u["semdist"] for u in found["utterances"]}
    assert speakers["ann"]["semdist"] == 0.0 and speakers["bob"]["semdist"] == pytest.approx(by_id["2"])
    assert by_id["2"] > 0
    code, out, _ = run(capsys, "asr", "metrics", *files, "--embedder", "fake/hash")
    header = next(line for line in out.splitlines() if "utts" in line)
    assert code == 0 and "SemDist" in header


def test_align_output(capsys, tmp_path):
    (tmp_path / "r.txt").write_text("the cat sat\nok\n")
    (tmp_path / "h.txt").write_text("the bat sat down\nok\n")
    pairs = tmp_path / "pairs.csv"
    code, out, _ = run(
        capsys,
        "asr",
        "align",
        "--ref",
        str(tmp_path / "r.txt"),
        "--hyp",
        str(tmp_path / "h.txt"),
        "--errors-only",
        "--out",
        str(pairs),
    )
    assert code == 0
    assert "REF: the cat sat ****" in out and "HYP: the bat sat down" in out and "2: " not in out
    assert pairs.read_text().splitlines()[0] == "id,ref,hyp,op"
    code, out, _ = run(
        capsys, "asr", "align", "--ref", str(tmp_path / "r.txt"), "--hyp", str(tmp_path / "h.txt"), "--json"
    )
    data = json.loads(out)
    assert data[0]["chunks"][1] == {"type": "substitute", "ref_start": 1, "ref_end": 2, "hyp_start": 1, "hyp_end": 2}


def test_compare_json(capsys, en):
    ref, a, b = en
    code, out, _ = run(
        capsys,
        "asr",
        "compare",
        "--ref",
        ref,
        "--hyp-a",
        a,
        "--hyp-b",
        b,
        "--ids",
        "--json",
        "--resamples",
        "500",
        "--normalize",
        "basic",
    )
    s = json.loads(out)
    assert s["delta"]["wer"] == pytest.approx(s["a"]["wer"] - s["b"]["wer"])
    assert 0 <= s["significance"]["mapsswe"]["p_value"] <= 1
    assert s["significance"]["paired_bootstrap_wer"]["n_resamples"] == 500
    assert s["confusions"]["b"]["substitutions"]


def test_compare_table(capsys, en):
    ref, a, b = en
    code, out, _ = run(
        capsys,
        "asr",
        "compare",
        "--ref",
        ref,
        "--hyp-a",
        a,
        "--hyp-b",
        b,
        "--ids",
        "--names",
        "whisper,ctc",
        "--resamples",
        "200",
    )
    assert code == 0 and "whisper vs ctc" in out and "MAPSSWE" in out and "paired bootstrap" in out


def test_console_script_help_and_version():
    res = subprocess.run([sys.executable, "-m", "voxjudge.cli.main", "--version"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("voxjudge ")
    assert "(LASER plain lines: compiled)" in res.stdout  # CI builds the extension
    res = subprocess.run(
        [sys.executable, "-m", "voxjudge.cli.main", "asr", "metrics", "--help"], capture_output=True, text=True
    )
    assert res.returncode == 0 and "--per-utterance" in res.stdout and "devanagari" in res.stdout


def test_metrics_counts_only_the_units_asked(capsys, en):
    ref, hyp, _ = en
    base = ["asr", "metrics", "--ref", ref, "--hyp", hyp, "--ids", "--json"]
    both = json.loads(run(capsys, *base)[1])
    words = json.loads(run(capsys, *base, "--unit", "word")[1])
    chars = json.loads(run(capsys, *base, "--unit", "char")[1])
    assert {"cer", "ref_chars", "char_counts", "cer_unit"}.isdisjoint(words)
    assert {k: words[k] for k in KEYS if k != "cer"} == {k: both[k] for k in KEYS if k != "cer"}
    assert {"wer", "mer", "hits", "ref_words"}.isdisjoint(chars)
    assert (chars["cer"], chars["char_counts"], chars["ref_chars"]) == (
        both["cer"],
        both["char_counts"],
        both["ref_chars"],
    )
    assert chars["cer"] == jiwer.cer(_kaldi_texts(ref), _kaldi_texts(hyp))
    both_again = json.loads(run(capsys, *base, "--unit", "word", "--unit", "char")[1])
    assert both_again == both
    table = run(capsys, "asr", "metrics", "--ref", ref, "--hyp", hyp, "--ids", "--unit", "word")[1]
    assert "WER" in table and "CER" not in table
    table = run(capsys, "asr", "metrics", "--ref", ref, "--hyp", hyp, "--ids", "--unit", "char", "--per-utterance")[1]
    assert "CER" in table and "WER" not in table and "ref chars" in table


def test_metrics_refuses_two_character_units(capsys, en):
    ref, hyp, _ = en
    code, out, err = run(
        capsys, "asr", "metrics", "--ref", ref, "--hyp", hyp, "--ids", "--unit", "char", "--unit", "grapheme"
    )
    assert code == 2 and out == "" and "choose one" in err
