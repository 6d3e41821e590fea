"""The public LASER entry: score_files (what 'asr score' calls) and the single-utterance helpers
the studio and the judge card use."""

from __future__ import annotations

import json

import pytest

from voxjudge.asr.laser import (
    LaserFiles,
    LaserOptions,
    LaserRubric,
    align_utterance,
    judge_prompt,
    run_laser,
    score_files,
    utterance_language,
)
from voxjudge.asr.laser.llm_judges import training_chat
from voxjudge.errors import InputError

REFS = ["the cat sat on the mat", "Hello, World", "one two three"]
HYPS = ["the bat sat on mat", "hello world", "one too three four"]


def _files(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("".join(f"u{k} {t}\n" for k, t in enumerate(REFS)), encoding="utf-8")
    hyp.write_text("".join(f"u{k} {t}\n" for k, t in enumerate(HYPS)), encoding="utf-8")
    return str(ref), str(hyp)


def test_score_files_writes_what_run_laser_scores(tmp_path):
    ref, hyp = _files(tmp_path)
    out = tmp_path / "scored.jsonl"
    scored = score_files(LaserFiles(ref, hyp, ids=True, out=str(out)), "rules", LaserOptions(lang="en"))
    direct = run_laser(REFS, HYPS, ["u0", "u1", "u2"], judge="rules", options=LaserOptions(lang="en"))
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert written == direct.records
    assert scored.result.summary["laser_micro"] == direct.summary["laser_micro"]
    assert scored.result.summary["normalize"] == "none" and scored.report is None
    assert list(scored.texts) == list(zip(REFS, HYPS))  # as read, again on every pass


def test_score_files_checks_before_any_work(tmp_path):
    ref, hyp = _files(tmp_path)
    with pytest.raises(InputError, match="does not exist"):
        score_files(LaserFiles(ref, hyp, ids=True, out=str(tmp_path / "no" / "x.jsonl")), "rules")
    with pytest.raises(InputError):
        score_files(LaserFiles(ref, hyp, ids=True, normalize="no-such-step"), "rules")


def test_a_dry_run_writes_nothing(tmp_path):
    ref, hyp = _files(tmp_path)
    out = tmp_path / "scored.jsonl"
    scored = score_files(LaserFiles(ref, hyp, ids=True, out=str(out)), "fake/x", LaserOptions(dry_run=True))
    assert scored.result.estimate is not None and not out.exists()


def test_one_utterance_as_the_scorer_and_the_judges_see_it():
    lang, pairs = align_utterance("the cat sat", "the bat sat")
    assert lang == utterance_language("the cat sat", "the bat sat") == "en"
    assert [(p.ref, p.hyp, p.op) for p in pairs][1] == (("cat",), ("bat",), "substitute")
    rubric = LaserRubric.load()
    sentence = judge_prompt("the cat sat", "the bat sat", lang, rubric, mode="sentence")
    assert "bat" in sentence[-1].text_content
    # pairs mode is the prompt fine-tuning rows are made of
    chat = training_chat("cat", "bat", "en", "none", rubric)
    prompt = judge_prompt("cat", "bat", "en", rubric, uid="p0")
    assert [m.text_content for m in prompt] == [m["content"] for m in chat["messages"][:-1]]
