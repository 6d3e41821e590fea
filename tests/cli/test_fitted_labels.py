"""Whatever is fitted to people is named as such everywhere it appears (house rule): laser_calibrated
in asr score --human's agreement table (text and HTML report: its row, its per-utterance column
and its chart; the JSON keeps its key) and the judge card's calibrated row (text, differences, JSON label)."""

from __future__ import annotations

import json
from html import escape

from voxjudge.cli.main import main

LABEL = "laser_calibrated (fitted to people)"


def test_asr_score_human_names_laser_calibrated_as_fitted(capsys, examples, tmp_path):
    d = examples / "asr" / "hi"
    argv = ["asr", "score", "--ref", d / "ref.txt", "--hyp", d / "sys_b.txt", "--ids", "--human", d / "human_b.tsv"]
    argv += ["--resamples", "50"]
    report = tmp_path / "r.html"
    capsys.readouterr()
    assert main([str(a) for a in [*argv, "--report", report]]) == 0
    text = capsys.readouterr().out
    table = text.split("Agreement with human scores", 1)[1]
    rows = [line.split("│")[1].strip() for line in table.splitlines() if line.startswith("│")]
    assert rows == ["laser", LABEL, "one_minus_wer"]
    html = report.read_text(encoding="utf-8")
    agreement = html.split("Agreement with human scores", 1)[1]
    assert f'<td class="text">{escape(LABEL)}</td>' in agreement and ">laser_calibrated</" not in html
    assert f"<th>{escape(LABEL)}</th>" in html  # the per-utterance column
    assert f"{LABEL} vs human score" in html  # its chart
    assert main([str(a) for a in [*argv, "--json"]]) == 0
    s = json.loads(capsys.readouterr().out)
    # the JSON has keys, not labels (the API's names, as in every record); the model says it is fitted
    assert list(s["agreement"]) == ["laser", "laser_calibrated", "one_minus_wer"]
    assert s["laser_calibrated_model"] == "fitted to people from the rubric score"


def test_the_judge_card_names_its_calibrated_row_as_fitted(capsys, examples):
    ratings = examples / "human" / "ratings_sample.csv"
    argv = ["asr", "judge-card", "--ratings", str(ratings), "--resamples", "50", "--split-halves", "10"]
    capsys.readouterr()
    assert main([*argv, "--methods", "pearson"]) == 0
    text = capsys.readouterr().out
    card, differences = text.split("Differences, ratings", 1)
    rows = [line.split("│")[1].strip() for line in card.splitlines() if line.startswith("│")]
    assert "LASER default calibrated (fitted to people)" in rows and "LASER default calibrated" not in rows
    pairs = [line.split("│")[1].strip() for line in differences.splitlines() if line.startswith("│")]
    assert "LASER default calibrated (fitted to people) - LASER default" in pairs
    footnote = " ".join(text.split())
    assert "LASER default calibrated (fitted to people) = laser_calibrated, fitted to people from" in footnote
    assert "LASER default calibrated (fitted to people): the card correlates 1 -" not in footnote
    assert main([*argv, "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    labels = {m["name"]: m["label"] for m in s["metrics"]}
    # the key keeps the metric's own name (--out columns, by_metric); the label says it is fitted
    assert labels["LASER default calibrated"] == "LASER default calibrated (fitted to people)"
    assert labels["LASER default"] == "LASER default" and labels["WER"] == "1 - WER"
