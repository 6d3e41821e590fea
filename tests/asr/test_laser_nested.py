"""The nested validation of laser_calibrated and its word-pair features (asr.laser.nested)."""

from __future__ import annotations

import numpy as np
import pytest

from voxjudge.asr.laser import LaserRubric
from voxjudge.asr.laser import calibration as C
from voxjudge.asr.laser import nested as N
from voxjudge.asr.laser.calibration import Calibration
from voxjudge.asr.laser.judges import rules_labeler_for

RUBRIC = LaserRubric.load()
TIERS = {**RUBRIC.tiers, "match": 0.0}


def test_negation_words_are_counted_per_language():
    assert N.negations("I did not go, I don't know", "en") == 2
    assert N.negations("I did go", "en") == 0
    assert N.negations("je n' ai pas vu", "fr") == 2
    assert N.negations("لم يذهب", "ar") == 1
    assert N.negations("അവൻ വരില്ല", "ml") == 1


def test_weighted_pairs_score_only_their_subset_and_the_whole_is_the_rubric():
    refs = ["the cat sat on the mat", "I saw 3 dogs"]
    hyps = ["a cat sat in the hat", "I saw 4 dogs"]
    aligned, labels = C.label_utterances(refs, hyps, "en", rules_labeler_for(RUBRIC))
    whole = C.build(aligned, labels, RUBRIC)
    assert whole.scores(Calibration(), TIERS) == pytest.approx(
        C.prepare(refs, hyps, "en", RUBRIC, rules_labeler_for(RUBRIC)).scores(Calibration(), TIERS)
    )
    content = C.build(aligned, labels, RUBRIC, N.weigh_content)
    numbers = C.build(aligned, labels, RUBRIC, N.weigh_numbers)
    pen = 1 - whole.scores(Calibration(), TIERS)
    pen_content = 1 - content.scores(Calibration(), TIERS)
    pen_numbers = 1 - numbers.scores(Calibration(), TIERS)
    assert pen_content[0] == pytest.approx(1 / 6) and pen[0] > pen_content[0]  # the/a, on/in: function words
    assert pen_numbers[0] == 0 and pen[1] > 0 and pen_numbers[1] == pytest.approx(pen[1])


def test_nested_runs_and_picks_a_form_per_outer_fold():
    rng = np.random.default_rng(0)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split()
    ratings = []
    for lang in ("en", "fr"):
        for u in range(8):
            ref = " ".join(rng.choice(words, 6))
            for s in range(3):
                hyp = ref.split()
                for k in rng.choice(6, s, replace=False):
                    hyp[k] = "omega"
                ratings.append(
                    {
                        "lang": lang,
                        "utterance": f"{lang}{u}",
                        "ref": ref,
                        "hyp": " ".join(hyp),
                        "human_mean": str(5 - 1.5 * s + rng.normal(0, 0.2)),
                    }
                )

    def distances(refs, hyps):
        return np.array([0.1 * sum(a != b for a, b in zip(r.split(), h.split())) for r, h in zip(refs, hyps)])

    ts = N.ntasks(ratings, [], RUBRIC, rules_labeler_for(RUBRIC), distances)
    forms = {k: N.FORMS[k] for k in ("rubric", "rubric+semdist", "+content")}
    found = N.nested(ts, RUBRIC, forms, folds=2, inner=2, tune_tiers=False)
    for nt in ts:
        got = found[nt.task.name]
        assert {p["form"] for p in got["picks"]} <= set(forms)
        chosen = got["scores"]["chosen"][0]
        assert not np.isnan(chosen).any()
        assert C.pearson(chosen, nt.task.parts[2]) > 0.8
