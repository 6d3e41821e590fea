from __future__ import annotations

import csv
import io
import json

import pytest

from voxjudge.cli.main import main


@pytest.fixture
def hi(examples):
    d = examples / "asr" / "hi"
    return str(d / "ref.txt"), str(d / "sys_b.txt"), str(d / "human_b.tsv")


def test_score_json_human_agreement_report(capsys, hi, tmp_path):
    ref, hyp, human = hi
    out, report = tmp_path / "res.jsonl", tmp_path / "laser.html"
    code = main(
        [
            "asr",
            "score",
            "--ref",
            ref,
            "--hyp",
            hyp,
            "--ids",
            "--human",
            human,
            "--resamples",
            "500",
            "--out",
            str(out),
            "--report",
            str(report),
            "--json",
        ]
    )
    assert code == 0
    s = json.loads(capsys.readouterr().out)
    for key in ("laser_micro", "laser_macro", "wer_macro", "labels", "error_types", "rubric", "agreement"):
        assert key in s
    laser = {c["method"]: c["estimate"] for c in s["agreement"]["laser"]}
    wer = {c["method"]: c["estimate"] for c in s["agreement"]["one_minus_wer"]}
    assert laser["pearson"] > wer["pearson"]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 50 and {"id", "laser", "wer", "pairs"} <= set(rows[0])
    assert rows[0]["pairs"][0] == {
        "ref": "आज",
        "hyp": "आज",
        "op": "equal",
        "label": "match",
        "error_type": None,
        "reason": "identical",
        "penalty": 0.0,
    }
    html = report.read_text()
    assert "<svg" in html and "grammar_agreement" in html


def test_score_with_fake_llm_and_dry_run_free(capsys, tmp_path):
    from voxjudge.llm.providers.fake import register_fake_script

    def answer(request, index):
        prompt = next(m.text_content for m in request.messages if "Pairs:\n" in m.text_content)
        items = json.loads(prompt.split("Pairs:\n", 1)[1])
        return {"items": [{"id": it["id"], "error_type": "wrong_word", "tier": "major", "reason": "r"} for it in items]}

    register_fake_script("laser-cli", answer)
    (tmp_path / "r.txt").write_text("the cat sat on the mat\n")
    (tmp_path / "h.txt").write_text("the bat sat on the mat\n")
    code = main(
        [
            "asr",
            "score",
            "--ref",
            str(tmp_path / "r.txt"),
            "--hyp",
            str(tmp_path / "h.txt"),
            "--judge",
            "fake/laser-cli",
            "--cache",
            str(tmp_path / "c.sqlite"),
            "--json",
        ]
    )
    s = json.loads(capsys.readouterr().out)
    assert code == 0 and s["llm"]["sent_to_model"] == 1 and s["laser_micro"] == pytest.approx(1 - 1 / 6)


def test_classify_csv_to_stdout(capsys, tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("ref\thyp\nबाज़ार\tबाजार\nदस\t10\ntrain\train\nthe\t\n")
    assert main(["asr", "classify", str(path)]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["label"], r["error_type"]) for r in rows] == [
        ("no_penalty", "alternate_spelling"),
        ("no_penalty", "numerical_phrase"),
        ("major", "wrong_word"),
        ("major", "omission"),
    ]


def test_exported_training_rows_use_the_prompt_sent_at_inference(tmp_path, monkeypatch):
    from voxjudge.llm.providers import fake

    sent = []

    def script(request, index):
        sent.append([{"role": m.role, "content": m.text_content} for m in request.messages])
        return {"items": [{"id": "p0", "error_type": "wrong_word", "tier": "major", "reason": "different word"}]}

    monkeypatch.setitem(fake._SCRIPTS, "laser-capture", script)
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("lang\tref\thyp\terror_type\nhi\tआम\tकेले\twrong_word\n")
    chat = tmp_path / "chat.jsonl"
    assert main(["asr", "classify", str(pairs), "--judge", "fake/laser-capture", "--out", str(tmp_path / "o.csv")]) == 0
    assert main(["asr", "export-pairs", str(pairs), "--out", str(tmp_path / "x.csv"), "--chat", str(chat)]) == 0
    row = json.loads(chat.read_text().splitlines()[0])
    assert row["messages"][:2] == sent[0]  # the same system and user prompt, byte for byte
    assert row["task"] == "laser-pairs" and len(row["task_hash"]) == 16


def test_export_train_and_use_a_model(capsys, tmp_path, examples):
    data = examples.parent / "tests" / "data" / "laser_pairs.tsv"
    out_csv, chat, model = tmp_path / "pairs.csv", tmp_path / "pairs.chat.jsonl", tmp_path / "model.pkl"
    assert main(["asr", "export-pairs", str(data), "--out", str(out_csv), "--chat", str(chat)]) == 0
    first = json.loads(chat.read_text().splitlines()[0])
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant"]
    answer = json.loads(first["messages"][2]["content"])["items"][0]
    assert answer["id"] == "p0" and answer["error_type"] == "none" and answer["tier"] == "match"
    capsys.readouterr()
    assert main(["asr", "train", str(data), "--out", str(model), "--test-fraction", "0.25", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["test_pairs"] > 90 and report["test_tier_accuracy"] > 0.6
    (tmp_path / "r.txt").write_text("मैंने बाज़ार से दस आम खरीदे\n")
    (tmp_path / "h.txt").write_text("मैंने बाजार से 10 केले खरीदे\n")
    assert (
        main(
            [
                "asr",
                "score",
                "--ref",
                str(tmp_path / "r.txt"),
                "--hyp",
                str(tmp_path / "h.txt"),
                "--judge",
                f"model:{model}",
                "--json",
            ]
        )
        == 0
    )
    s = json.loads(capsys.readouterr().out)
    assert s["judge"].startswith("model:") and s["n"] == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["asr", "classify", "{tmp}/pairs.txt"], "must be .csv, .tsv or .jsonl"),
        (["asr", "classify", "{tmp}/nohyp.tsv"], "needs 'ref' and 'hyp' columns"),
        (
            ["asr", "score", "--ref", "{tmp}/r.txt", "--hyp", "{tmp}/r.txt", "--judge", "model:{tmp}/nope.pkl"],
            "model file not found",
        ),
        (
            ["asr", "score", "--ref", "{tmp}/r.txt", "--hyp", "{tmp}/r.txt", "--rubric", "{tmp}/nope.json"],
            "rubric file not found",
        ),
        (["asr", "train", "{tmp}/nolang.tsv", "--out", "{tmp}/m.pkl"], "need error_type and lang"),
    ],
)
def test_bad_input(capsys, tmp_path, argv, message):
    (tmp_path / "pairs.txt").write_text("x")
    (tmp_path / "nohyp.tsv").write_text("ref\tword\na\tb\n")
    (tmp_path / "nolang.tsv").write_text("ref\thyp\terror_type\na\tb\twrong_word\n")
    (tmp_path / "r.txt").write_text("a b\n")
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    assert message in capsys.readouterr().err
