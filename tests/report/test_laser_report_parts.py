"""The LASER report's parts that need no browser: every weight a penalty is made of, per judge, and
the style a pair is drawn in (a match apart from case or punctuation is not a plain match)."""

from __future__ import annotations

from dataclasses import asdict

from voxjudge.asr.laser.calibration_file import load
from voxjudge.asr.laser.report import CASE_PUNCT, pair_style, weights
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.scoring import ScoredPair


def _rubric() -> dict:
    r = LaserRubric.load()
    return {"name": r.name, "sha256": r.sha256, "tiers": r.tiers}


def test_the_default_judge_lists_its_learned_weights():
    w = weights("default", _rubric())
    assert w["tiers"] == {"no_penalty": 0.0, "minor": 0.5, "major": 1.0}
    assert w["calibration"] == {lang: asdict(cal) for lang, cal in load().items()}
    assert {"near", "near_sound", "homophone"} <= set(w["calibration"]["*"])
    # laser_calibrated's weights are listed apart: they never make a penalty
    from voxjudge.asr.laser.calibration_file import load_people

    fitted = w["laser_calibrated (fitted to people, beside the score)"]
    assert fitted == {k: m.as_dict() for k, m in load_people().items()} and "none" in fitted
    assert weights("model:some.json", _rubric())["calibration"] == w["calibration"]


def test_the_rules_judge_lists_the_rubric_defaults_and_a_model_judge_its_tiers():
    w = weights("rules", _rubric())
    assert w["calibration"]["*"] == asdict(LaserRubric.load().conventions("*").calibration)
    assert "laser_calibrated (fitted to people, beside the score)" not in w
    other = weights("rules", {**_rubric(), "sha256": "another rubric"})
    assert isinstance(other["calibration"], str)
    llm = weights("openai/gpt-4o-mini", _rubric())
    assert llm["tiers"] == _rubric()["tiers"] and "calibration" not in llm


def test_a_pair_that_matches_apart_from_case_or_punctuation_has_its_own_style():
    def pair(ref, hyp, label, penalty=0.0):
        return ScoredPair(ref, hyp, "equal", label, None, "", penalty)

    assert pair_style(pair("The", "the", "match", 0.25)) == CASE_PUNCT
    assert pair_style(pair("morning.", "morning", "match")) == CASE_PUNCT
    assert pair_style(pair("the", "the", "match")) == "match"
    assert pair_style(pair("ten", "10", "no_penalty")) == "no_penalty"
