"""Ratings files and the raters' split-half ceiling (against the closed-form reliability of
simulated raters)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from voxjudge.asr.ratings import read_ratings, split_half
from voxjudge.errors import InputError

SHARED = Path("/work/shared/data")


def test_split_half_matches_the_reliability_of_simulated_raters():
    # true score t ~ N(0, 1), each rater adds N(0, 1) noise: a mean of k raters correlates with another
    # such mean at 1 / (1 + 1/k); the 20-rater mean has reliability 1 / (1 + 1/20)
    rng = np.random.default_rng(42)
    truth = rng.normal(size=3000)
    raters = truth[:, None] + rng.normal(size=(3000, 20))
    got = split_half(raters.tolist(), n_splits=40, seed=1)
    assert got["half_r"] == pytest.approx(1 / (1 + 1 / 10), abs=0.01)
    assert got["reliability"] == pytest.approx(1 / (1 + 1 / 20), abs=0.006)
    assert got["ceiling"] == pytest.approx(math.sqrt(1 / (1 + 1 / 20)), abs=0.004)
    assert got["raters_per_item"] == [20, 20] and got["splits"] == 40


def test_split_half_of_raters_who_always_agree_is_one_and_odd_raters_are_fine():
    same = [[s] * 5 for s in (1.0, 2.0, 4.0, 3.5)]  # five raters giving each item the same score
    got = split_half(same, n_splits=10)
    assert got["half_r"] == pytest.approx(1.0) and got["ceiling"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="two raters"):
        split_half([[1.0], [2.0, 3.0], [1.0, 1.0]])


def test_reads_ratings_with_per_rater_scores(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(
        'id,lang,ref,hyp,human_mean,ratings\nx1,en,a b,a b,4.5,"[4, 5]"\nx2,ar,c d,c,2,"[2.0, 2.0]"\n',
        encoding="utf-8",
    )
    rows = read_ratings(path)
    assert [(r.id, r.lang, r.reference, r.hypothesis, r.score, r.raters) for r in rows] == [
        ("x1", "en", "a b", "a b", 4.5, (4.0, 5.0)),
        ("x2", "ar", "c d", "c", 2.0, (2.0, 2.0)),
    ]


@pytest.mark.parametrize(
    "content, message",
    [
        ("ref,hyp,score\na,b,high\n", "r.csv:2: score 'high' is not a number"),
        ("ref,score\na,3\n", "ratings need columns hyp"),
        ("ref,hyp,mos\na,b,3\n", "a score .score, human_mean or rating; another column with column=."),
        ('ref,hyp,score,ratings\na,b,3,"[1, x]"\n', "r.csv:2: ratings must be a JSON list"),
        ("id,ref,hyp,score\n1,a,b,3\n1,a,c,2\n", "r.csv:3: id '1' appears twice"),
    ],
)
def test_bad_ratings_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "r.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message.replace("[", r"\[")):
        read_ratings(path)


def test_a_named_score_column(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"ref": "a", "hyp": "b", "mos": 3, "score": 1}) + "\n", encoding="utf-8")
    assert read_ratings(path, column="mos")[0].score == 3.0
    assert read_ratings(path)[0].score == 1.0


@pytest.mark.skipif(not (SHARED / "asr_sentence_ratings_train.csv").exists(), reason="shared data not here")
def test_reads_the_sentence_ratings_training_file():
    rows = read_ratings(SHARED / "asr_sentence_ratings_train.csv")
    assert len(rows) == 300 and {r.lang for r in rows} == {"en", "ml", "ar"}
    assert all(len(r.raters) == 20 for r in rows)
    assert rows[0].score == pytest.approx(float(np.mean(rows[0].raters)), abs=1e-3)  # human_mean is their mean


@pytest.mark.parametrize(
    "row, message",
    [
        ('{"ref": "a b", "hyp": NaN, "score": 3}', "r.jsonl:1: field 'hyp' is nan, not a text"),
        ('{"ref": ["a"], "hyp": "a", "score": 3}', "r.jsonl:1: field 'ref' must be a string, got list"),
        ('{"ref": "a b", "hyp": true, "score": 3}', "r.jsonl:1: field 'hyp' must be a string, got bool"),
    ],
)
def test_a_text_cell_that_is_no_text_is_refused(tmp_path, row, message):
    """NaN was read as the hypothesis 'nan' (and a list as its repr): the card scored it."""
    path = tmp_path / "r.jsonl"
    path.write_text(row + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_ratings(path)
    path.write_text('{"ref": "one two", "hyp": 12, "score": 3}\n', encoding="utf-8")
    assert read_ratings(path)[0].hypothesis == "12"  # a number is a digit string, as in a transcript file
