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


def test_every_record_names_the_judge_and_the_embedder_as_the_summary_does(tmp_path, monkeypatch):
    """No silent change of meaning: a record read alone says which judge labelled it and which
    embedder gave its SemDist ("none" without one), for offline and LLM judges alike."""
    from voxjudge.llm.providers import fake

    monkeypatch.setitem(fake._SCRIPTS, "laser-run3", _pairs_answer)
    llm = JudgeOptions(cache=tmp_path / "c.sqlite")
    out = tmp_path / "records.jsonl"
    runs = [
        ("rules", LaserOptions(lang="en"), ("rules", "none")),
        ("default", LaserOptions(lang="en", jobs=2), ("default", "none")),
        ("rules", LaserOptions(lang="en", embedder="fake/hash", llm=llm), ("rules", None)),
        ("fake/laser-run3", LaserOptions(lang="en", llm=llm), (None, "none")),
    ]
    for judge, options, (want_judge, want_embedder) in runs:
        result = run_laser(REFS, HYPS, ["u1", "u2"], judge=judge, options=options, out=out)
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert len(records) == 2
        for r in records:
            assert list(r)[:4] == ["id", "lang", "judge", "embedder"]
            assert (r["judge"], r["embedder"]) == (result.summary["judge"], result.summary["embedder"])
        assert want_judge in (None, result.summary["judge"]) and want_embedder in (None, result.summary["embedder"])
        assert (options.embedder is None) == (records[0]["embedder"] == "none")
        assert result.records[0]["judge"] == result.summary["judge"]  # the Python API's records too
    assert records[0]["judge"].startswith("fake/") and "fake" in result.summary["judge"]
