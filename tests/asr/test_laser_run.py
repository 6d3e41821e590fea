"""``run_laser``: LASER scoring as one library call, for offline and LLM judges alike."""

from __future__ import annotations

import json

import pytest

from voxjudge.asr.laser.run import LaserOptions, run_laser
from voxjudge.llm.options import JudgeOptions

REFS = ["the cat sat on the mat", "a dog ran"]
HYPS = ["the bat sat on the mat", "a dog ran"]


def _pairs_answer(request, index):
    prompt = next(m.text_content for m in request.messages if "Pairs:\n" in m.text_content)
    items = json.loads(prompt.split("Pairs:\n", 1)[1])
    return {"items": [{"id": it["id"], "error_type": "wrong_word", "tier": "major", "reason": "r"} for it in items]}


def test_offline_judges_by_name():
    rules = run_laser(REFS, HYPS, ["u1", "u2"], judge="rules", options=LaserOptions(lang="en"))
    # hand-computed: one major substitution in 6 words, then a perfect utterance of 3
    assert [u.laser for u in rules.utterances] == [pytest.approx(1 - 1 / 6), 1.0]
    assert rules.summary["laser_micro"] == pytest.approx(1 - 1 / 9) and rules.summary["judge"] == "rules"
    assert rules.estimate is None and "llm" not in rules.summary
    default = run_laser(REFS, HYPS)  # ids default to line numbers
    assert [u.id for u in default.utterances] == ["1", "2"] and default.summary["judge"] == "default"


def test_llm_judge_from_a_spec_and_its_dry_run(tmp_path, monkeypatch):
    from voxjudge.llm.providers import fake

    monkeypatch.setitem(fake._SCRIPTS, "laser-run", _pairs_answer)
    llm = JudgeOptions(cache=tmp_path / "c.sqlite")
    plan = run_laser(REFS, HYPS, judge="fake/laser-run", options=LaserOptions(lang="en", dry_run=True, llm=llm))
    assert plan.utterances == [] and plan.estimate["requests"] == 1
    result = run_laser(REFS, HYPS, judge="fake/laser-run", options=LaserOptions(lang="en", llm=llm))
    assert result.summary["llm"]["sent_to_model"] == 1 and result.summary["usage"]["requests"] == 1
    assert result.summary["laser_micro"] == pytest.approx(1 - 1 / 9) and result.unscored == 0
    assert result.summary["judge"] == "fake/laser-run" and result.summary["batch_size"] == 32


def test_a_judge_passed_in_stays_the_callers(tmp_path, monkeypatch):
    from voxjudge.llm.providers import fake

    monkeypatch.setitem(fake._SCRIPTS, "laser-run2", _pairs_answer)
    judge = JudgeOptions(cache=tmp_path / "c.sqlite").judge("fake/laser-run2")
    try:
        first = run_laser(REFS, HYPS, judge=judge, options=LaserOptions(lang="en"))
        again = run_laser(REFS, HYPS, judge=judge, options=LaserOptions(lang="en"))  # still open: cache hit
    finally:
        judge.close()
    assert first.summary["laser_micro"] == again.summary["laser_micro"] == pytest.approx(1 - 1 / 9)
    assert judge.meter.requests == 1 and judge.meter.cache_hits == 1


def test_progress_is_asked_for_by_what_is_done():
    from contextlib import contextmanager

    seen = []

    @contextmanager
    def progress(what):
        seen.append(what)
        yield lambda done, total: seen.append((done, total))

    run_laser(REFS, HYPS, judge="rules", options=LaserOptions(lang="en"), progress=progress)
    assert seen[0] == "labelling word pairs (rules)" and seen[-1] == (2, 2)  # utterances done, of all
