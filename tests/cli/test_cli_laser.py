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
    for key in ("coverage", "laser_micro", "laser_macro", "wer", "labels", "error_types", "rubric", "agreement"):
        assert key in s
    assert list(s)[0] == "coverage" and "wer_macro" not in s  # one WER: the corpus one
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
        "disputed": False,
    }
    html = report.read_text()
    assert "<svg" in html and "grammar_agreement" in html


def test_score_with_an_llm_judge_sends_only_the_mismatched_pair_and_applies_its_label(capsys, tmp_path, monkeypatch):
    from voxjudge.llm.providers import fake

    def answer(request, index):
        prompt = next(m.text_content for m in request.messages if "Pairs:\n" in m.text_content)
        items = json.loads(prompt.split("Pairs:\n", 1)[1])
        return {"items": [{"id": it["id"], "error_type": "wrong_word", "tier": "major", "reason": "r"} for it in items]}

    monkeypatch.setitem(fake._SCRIPTS, "laser-cli", answer)
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


def test_embedder_with_an_llm_judge_is_refused_naming_every_offline_judge(capsys, tmp_path):
    """The --help says so too: SemDist in asr score goes with default, rules and model:PATH."""
    (tmp_path / "r.txt").write_text("the cat sat\n")
    (tmp_path / "h.txt").write_text("the bat sat\n")
    files = ["--ref", str(tmp_path / "r.txt"), "--hyp", str(tmp_path / "h.txt")]
    code = main(["asr", "score", *files, "--judge", "fake/x", "--embedder", "fake/hash", "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2 and "--embedder goes with the offline judges (default, rules, model:PATH)" in err
    assert main(["asr", "score", *files, "--judge", "rules", "--embedder", "fake/hash", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["embedder"].startswith("fake/hash")


def test_classify_csv_to_stdout(capsys, tmp_path):
    path = tmp_path / "pairs.tsv"
    # two languages in one file: a lang column says which (without one the file has one language)
    path.write_text("ref\thyp\tlang\nबाज़ार\tबाजार\thi\nदस\t10\thi\ntrain\train\ten\nthe\t\ten\n")
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
    out_csv, chat, model = tmp_path / "pairs.csv", tmp_path / "pairs.chat.jsonl", tmp_path / "model.json"
    assert main(["asr", "export-pairs", str(data), "--out", str(out_csv), "--chat", str(chat)]) == 0
    first = json.loads(chat.read_text().splitlines()[0])
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant"]
    answer = json.loads(first["messages"][2]["content"])["items"][0]
    assert answer["id"] == "p0" and answer["error_type"] == "none" and answer["tier"] == "match"
    hindi = tmp_path / "hi.tsv"  # a model is for one language; error types become tiers
    lines = data.read_text(encoding="utf-8").splitlines()
    hindi.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x.startswith("hi\t")]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["asr", "train", str(hindi), "--out", str(model), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["lang"] == "hi" and report["model"] == str(model)
    saved = json.loads(model.read_text(encoding="utf-8"))
    assert saved["format"] == "voxjudge-laser-linear-1" and "Amparulekar" in saved["notice"]
    (tmp_path / "r.txt").write_text("मैंने बाज़ार से दस आम खरीदे\n")
    (tmp_path / "h.txt").write_text("मैंने बाजार से 10 केले खरीदे\n")
    argv = ["asr", "score", "--ref", str(tmp_path / "r.txt"), "--hyp", str(tmp_path / "h.txt"), "--json"]
    assert main([*argv, "--judge", f"model:{model}"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["judge"].startswith("model:") and s["n"] == 1
    # issue 17: a model trained under another rubric is refused unless the user says so
    other = tmp_path / "rubric.json"
    rubric = json.loads((__import__("importlib").resources.files("voxjudge.asr.laser") / "rubric.json").read_text())
    rubric["tiers"]["minor"] = 0.25
    other.write_text(json.dumps(rubric), encoding="utf-8")
    assert main([*argv, "--judge", f"model:{model}", "--rubric", str(other)]) == 2
    assert "was trained under rubric" in capsys.readouterr().err
    assert main([*argv, "--judge", f"model:{model}", "--rubric", str(other), "--allow-rubric-mismatch"]) == 0


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
        (
            ["asr", "train", "{tmp}/nolabel.tsv", "--out", "{tmp}/m.json"],
            "nolabel.tsv:2: a training pair needs a 'label'",
        ),
        (["asr", "train", "{tmp}/badlabel.tsv", "--out", "{tmp}/m.json"], "badlabel.tsv:3: label 'big' is not one of"),
        (["asr", "train", "{tmp}/badlabel.tsv"], "nothing to do"),
        (["asr", "classify", "{tmp}/nolabel.tsv", "--eval"], "nolabel.tsv: --eval needs a 'label' (or 'tier') column"),
        (
            ["asr", "score", "--ref", "{tmp}/r.txt", "--hyp", "{tmp}/r.txt", "--judge", "model:{tmp}/r.txt"],
            "not a voxjudge LASER model",
        ),
        # --base-url is an LLM judge's server: an offline judge refuses it rather than ignore it
        (
            ["asr", "classify", "{tmp}/nohyp.tsv", "--base-url", "http://127.0.0.1:9/v1"],
            "--base-url is an LLM judge's server, and the offline judge 'default' calls none",
        ),
        (
            ["asr", "classify", "{tmp}/nohyp.tsv", "--judge", "rules", "--base-url", "http://127.0.0.1:9/v1"],
            "--base-url is an LLM judge's server, and the offline judge 'rules' calls none",
        ),
        # a server for an embedder a pair model never takes
        (
            ["asr", "train", "{tmp}/badlabel.tsv", "--out", "{tmp}/m.json", "--embedder-base-url", "http://h/v1"],
            "--embedder-base-url names the embedder's server: give --embedder openai/<model> with it",
        ),
    ],
)
def test_bad_input(capsys, tmp_path, argv, message):
    (tmp_path / "pairs.txt").write_text("x")
    (tmp_path / "nohyp.tsv").write_text("ref\tword\na\tb\n")
    (tmp_path / "nolabel.tsv").write_text("ref\thyp\tcomment\na\tb\tx\n")
    (tmp_path / "badlabel.tsv").write_text("ref\thyp\tlabel\na\tb\tmajor\nc\td\tbig\n")
    (tmp_path / "r.txt").write_text("a b\n")
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    assert message in capsys.readouterr().err


def test_classify_eval_prints_agreement(capsys, tmp_path):
    pairs = tmp_path / "labelled.csv"
    pairs.write_text(
        "ref,hyp,label\n"
        "घर,घर,match\n"  # rules: match
        "बाज़ार,बाजार,no_penalty\n"  # rules: no_penalty (nukta)
        "खाते,गाते,major\n"  # rules: major
        "खाते,गाते,major\n"  # the same pair again: one unique pair for the bootstrap
        "घर,घर,no_penalty\n",  # rules: match -> one error (and the same pair as the first row)
        encoding="utf-8",
    )
    assert main(["asr", "classify", str(pairs), "--lang", "hi", "--judge", "rules", "--eval", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["n"] == 5 and r["unique_pairs"] == 3 and r["accuracy"] == pytest.approx(0.8)
    assert r["per_class"]["no_penalty"] == {
        "n": 2,
        "correct": 1,
        "accuracy": 0.5,
        "ci": r["per_class"]["no_penalty"]["ci"],
    }
    labels = r["confusion"]["labels"]
    assert r["confusion"]["rows_true_cols_predicted"][labels.index("no_penalty")][labels.index("match")] == 1
    # po = 4/5; true (match 1, no_penalty 2, major 2), predicted (match 2, no_penalty 1, major 2)
    pe = (1 * 2 + 2 * 1 + 2 * 2) / 25
    assert r["kappa"] == pytest.approx((0.8 - pe) / (1 - pe))
    assert main(["asr", "classify", str(pairs), "--lang", "hi", "--eval"]) == 0
    text = capsys.readouterr().out
    assert "Cohen's kappa" in text and "Confusion matrix" in text and "default judge" in text


def test_classify_defaults_to_the_learned_hindi_judge(capsys, tmp_path):
    pairs = tmp_path / "p.csv"
    pairs.write_text("ref,hyp\nहोती है,होती हैं\nऊपर,उपर\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    assert main(["asr", "classify", str(pairs), "--lang", "hi", "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [r["label"] for r in rows] == ["minor", "no_penalty"] and all(r["reason"] for r in rows)


@pytest.mark.slow
def test_train_reproduces_the_shipped_model_and_reports_grouped_cv(capsys, tmp_path):
    from voxjudge.asr.laser.learned import shipped_data_path, shipped_model_path

    out = tmp_path / "hi.json"
    assert (
        main(["asr", "train", str(shipped_data_path()), "--out", str(out), "--cv", "3", "--resamples", "200", "--json"])
        == 0
    )
    assert out.read_bytes() == shipped_model_path("hi").read_bytes()
    cv = json.loads(capsys.readouterr().out)["cv"]
    assert cv["split"] == "grouped by unique (ref, hyp) pair" and cv["folds"] == 3
    for judge in ("hybrid", "rules"):
        assert set(cv[judge]["per_class"]) == {"match", "no_penalty", "minor", "major"}
        assert 0.7 < cv[judge]["accuracy"] <= 1 and cv[judge]["kappa_ci"][0] <= cv[judge]["kappa"]


def test_train_on_a_lopsided_pairs_file_fits_instead_of_crashing(capsys, tmp_path):
    """One minor pair among forty majors: some inner folds have one tier to learn. Before, the
    classifier was fitted on it anyway and the command died in a scikit-learn traceback."""
    words = ["घर", "पानी", "किताब", "सड़क", "बाजार", "दिन", "रात", "समय", "काम", "नाम"]
    rows = [f"{a},{b},major" for a in words for b in words if a != b][:40] + ["लड़का,लड़के,minor"]
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("ref,hyp,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    assert main(["asr", "train", str(pairs), "--out", str(tmp_path / "m.json")]) == 0
    assert main(["asr", "train", str(pairs), "--out", str(tmp_path / "cv.json"), "--cv", "5"]) == 0
    assert "41 pairs (hi)" in capsys.readouterr().out
