"""A first-time user's review of asr score / classify / export-pairs / train: what each command
writes must keep what it was given, and an option that would do nothing is refused."""

from __future__ import annotations

import csv
import json

import pytest

from voxjudge.cli.main import main

LABELLED = "ref,hyp,label\nघर,घर,match\nबाज़ार,बाजार,major\nखाते,गाते,no_penalty\n"


def test_classify_out_keeps_the_given_label_beside_the_prediction(tmp_path, capsys):
    # The input's true labels used to be overwritten by the judge's: the --eval output file could
    # no longer show where the judge and the annotators disagree.
    pairs, out = tmp_path / "labelled.csv", tmp_path / "out.csv"
    pairs.write_text(LABELLED, encoding="utf-8")
    argv = ["asr", "classify", str(pairs), "--lang", "hi", "--judge", "rules", "--eval", "--out", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["given_label"] for r in rows] == ["match", "major", "no_penalty"]
    assert [r["label"] for r in rows] == ["match", "no_penalty", "major"]  # the rules' labels
    assert list(rows[0])[:3] == ["ref", "hyp", "given_label"]


def test_classify_without_label_columns_writes_the_same_columns(tmp_path, capsys):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("ref,hyp\nघर,घर\n", encoding="utf-8")
    assert main(["asr", "classify", str(pairs), "--lang", "hi", "--judge", "rules"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header == "ref,hyp,label,error_type,reason"


def test_classify_eval_error_names_the_jsonl_line(tmp_path, capsys):
    # A JSONL file has no header: its second object is on line 2 (it was reported as line 3).
    pairs = tmp_path / "labelled.jsonl"
    rows = [{"ref": "घर", "hyp": "घर", "label": "match"}, {"ref": "घर", "hyp": "घर", "label": "bogus"}]
    pairs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["asr", "classify", str(pairs), "--lang", "hi", "--judge", "rules", "--eval"]) == 2
    assert f"{pairs}:2: label must be one of" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, named",
    [(["--json"], "--json goes"), (["--resamples", "50"], "--resamples goes"), (["--json", "--resamples", "0"], "go")],
)
def test_classify_eval_options_without_eval_are_refused(tmp_path, capsys, extra, named):
    pairs = tmp_path / "labelled.csv"
    pairs.write_text(LABELLED, encoding="utf-8")
    assert main(["asr", "classify", str(pairs), "--lang", "hi", "--judge", "rules", *extra]) == 2
    captured = capsys.readouterr()
    assert named in captured.err and "with --eval" in captured.err and captured.out == ""


def _partial_records(path):
    """'asr score --out' records of an LLM run that left one pair unscored (as fake/schema does)."""
    pair = lambda ref, hyp, op, label, etype: {  # noqa: E731
        "ref": ref,
        "hyp": hyp,
        "op": op,
        "label": label,
        "error_type": etype,
        "reason": "",
        "penalty": 0.0,
        "disputed": False,
    }
    records = [
        {"id": "u1", "lang": "en", "laser": 1.0, "pairs": [pair("the", "the", "equal", "match", None)]},
        {
            "id": "u2",
            "lang": "en",
            "laser": None,
            "unscored": "no valid model answer",
            "pairs": [
                pair("a", "a", "equal", "match", None),
                pair("train", "rain", "substitute", "unscored", None),
                pair("cat", "hat", "substitute", "major", "wrong_word"),
            ],
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_export_pairs_leaves_out_pairs_their_judge_did_not_label(tmp_path, capsys):
    # An unscored pair (no label) was exported as error_type none, tier match: a wrong word taught
    # to a fine-tuned model as a match.
    scored, out, chat = tmp_path / "scored.jsonl", tmp_path / "pairs.csv", tmp_path / "pairs.chat.jsonl"
    _partial_records(scored)
    assert main(["asr", "export-pairs", str(scored), "--out", str(out), "--chat", str(chat)]) == 0
    err = capsys.readouterr().err
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [(r["ref"], r["hyp"], r["tier"]) for r in rows] == [
        ("the", "the", "match"),
        ("a", "a", "match"),
        ("cat", "hat", "major"),
    ]
    assert len(chat.read_text(encoding="utf-8").splitlines()) == 3
    assert "1 unscored pair left out" in err


def test_train_leaves_out_pairs_their_judge_did_not_label(tmp_path, monkeypatch, capsys):
    import voxjudge.asr.laser.training as training

    seen = {}

    def tiers_of(rows, rubric, where, lines=None):
        seen["pairs"] = [(r["ref"], r["hyp"]) for r in rows]
        raise SystemExit(0)  # what was handed to training is all this test needs

    monkeypatch.setattr(training, "tiers_of", tiers_of)
    scored = tmp_path / "scored.jsonl"
    _partial_records(scored)
    with pytest.raises(SystemExit):
        main(["asr", "train", str(scored), "--out", str(tmp_path / "m.json")])
    assert ("train", "rain") not in seen["pairs"] and len(seen["pairs"]) == 3
    assert "1 unscored pair left out" in capsys.readouterr().err


def test_export_pairs_names_the_files_language_not_english(tmp_path, capsys):
    # Pairs without a lang column were all rendered "Language: en" in the chat rows, Hindi too.
    pairs, out, chat = tmp_path / "pairs.csv", tmp_path / "out.csv", tmp_path / "out.chat.jsonl"
    pairs.write_text("ref,hyp,error_type\nफ़ोन,फोन,alternate_spelling\nहै,हैं,grammar_agreement\n", encoding="utf-8")
    assert main(["asr", "export-pairs", str(pairs), "--out", str(out), "--chat", str(chat)]) == 0
    assert "without a lang column taken as hi" in capsys.readouterr().err
    assert [r["lang"] for r in csv.DictReader(out.open(encoding="utf-8"))] == ["hi", "hi"]
    for line in chat.read_text(encoding="utf-8").splitlines():
        user = next(m["content"] for m in json.loads(line)["messages"] if m["role"] == "user")
        assert "Language: hi" in user and "Language: en" not in user


def test_export_pairs_keeps_a_given_lang_column(tmp_path, capsys):
    pairs, out = tmp_path / "pairs.csv", tmp_path / "out.csv"
    pairs.write_text("ref,hyp,lang,error_type\ncolour,color,en,alternate_spelling\n", encoding="utf-8")
    assert main(["asr", "export-pairs", str(pairs), "--out", str(out)]) == 0
    assert "without a lang column" not in capsys.readouterr().err
    assert [r["lang"] for r in csv.DictReader(out.open(encoding="utf-8"))] == ["en"]


@pytest.mark.parametrize(
    "extra, named",
    [
        (["--human-col", "rating"], "--human-col goes with --human FILE"),
        (["--allow-partial"], "--allow-partial goes with --human FILE"),
        (["--resamples", "200"], "--resamples goes with --human FILE"),
        (["--confidence", "0.9"], "--confidence goes with --human FILE"),
        (["--bootstrap-seed", "3"], "--bootstrap-seed goes with --human FILE"),
        (["--allow-partial", "--resamples", "200"], "--allow-partial, --resamples go with --human FILE"),
    ],
)
def test_score_human_options_without_human_are_refused(tmp_path, capsys, extra, named):
    # They set only the agreement with human scores; without --human they did nothing, exit 0.
    ref, hyp, out = tmp_path / "ref.txt", tmp_path / "hyp.txt", tmp_path / "out.jsonl"
    ref.write_text("I like the cat.\n", encoding="utf-8")
    hyp.write_text("I like cat\n", encoding="utf-8")
    argv = ["asr", "score", "--ref", str(ref), "--hyp", str(hyp), "--judge", "rules", "--out", str(out), *extra]
    assert main(argv) == 2
    assert named in capsys.readouterr().err
    assert not out.exists()


def test_score_human_options_with_human_still_work(examples, capsys):
    d = examples / "asr" / "hi"
    argv = ["asr", "score", "--ref", str(d / "ref.txt"), "--hyp", str(d / "sys_b.txt"), "--ids", "--judge", "rules"]
    argv += ["--human", str(d / "human_b.tsv"), "--human-col", "score", "--resamples", "200", "--json"]
    assert main(argv) == 0
    agreement = json.loads(capsys.readouterr().out)["agreement"]
    assert agreement["laser"][0]["n_resamples"] == 200


def test_train_error_names_the_jsonl_line(tmp_path, capsys):
    """A bad label on line 2 of a JSONL file was reported on line 3 (counted as if a CSV header)."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"ref":"a","hyp":"b","label":"major"}\n{"ref":"a","hyp":"c","label":"big"}\n')
    assert main(["asr", "train", str(bad), "--out", str(tmp_path / "m.json")]) == 2
    assert f"{bad}:2: label 'big'" in capsys.readouterr().err
