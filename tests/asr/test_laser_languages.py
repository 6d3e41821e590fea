"""LASER in any language: codes, script detection, script-aware folds, phonetic evidence (real
espeak-ng phonemes from the espeakng-loader wheel), speech phenomena, and the learned calibration."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voxjudge.asr.laser import LaserRubric, RubricPair, score
from voxjudge.asr.laser.calibration import (
    Calibration,
    Task,
    _best_curve,
    load,
    preference_agreement,
    prepare,
    rated,
    read_hats,
    read_ratings,
    shipped_data,
    shipped_path,
    train_files,
)
from voxjudge.asr.laser.judges import offline_labeler, rules_labeler_for
from voxjudge.asr.laser.lang import fold
from voxjudge.asr.laser.phonetics import _cache, evidence, phonemes, prefetch, voice_for
from voxjudge.asr.laser.profiles import canonical, detect
from voxjudge.asr.laser.rules import classify
from voxjudge.asr.laser.training import pair_of
from voxjudge.errors import InputError

RUBRIC = LaserRubric.load()
AR_REF = "وَأَمَّا الشِّبْرُ الثَّالِثُ فَهَيْهَاتَ لَا يَنَالُهُ أَحَدٌ أَبَدًا"
AR_HYP = "وأما الشبر الثالث فهيهات لا يناله أحد أبدا"  # the same without tashkeel: raters gave 4.2/5


@pytest.mark.parametrize("code, want", [("fr", "fr"), ("fr-CA", "fr"), ("zh_Hans", "zh"), ("AR", "ar"), ("ta", "ta")])
def test_any_bcp47_code_is_reduced_to_its_language(code, want):
    assert canonical(code) == want


@pytest.mark.parametrize("bad", ["", "f", "french!", "12"])
def test_a_bad_code_is_refused(bad):
    with pytest.raises(InputError, match="BCP-47"):
        canonical(bad)


@pytest.mark.parametrize(
    "text, lang",
    [
        (AR_REF, "ar"),
        ("et on voit aujourd'hui où se trouve la grèce", "fr"),
        ("the cat sat on the mat", "en"),
        ("der Hund ist nicht hier", "de"),
        ("நான் வீட்டுக்கு போனேன்", "ta"),
        ("我们今天去学校", "zh"),
        ("मैं घर गया", "hi"),
        ("xq zzv", "und"),  # Latin script and no function word: the generic profile, not English
    ],
)
def test_the_script_decides_and_latin_text_votes_by_function_words(text, lang):
    assert detect(text) == lang


def test_arabic_tashkeel_and_tatweel_and_compatibility_forms_fold_away():
    assert fold("الشِّبْرُ") == fold("الشبر") == "الشبر"
    assert fold("كـتـاب") == "كتاب"  # tatweel
    assert fold("ﬁne") == "fine" and fold("ＡＢＣ") == "abc"  # ligature, full-width (NFKC)


def test_arabic_without_diacritics_is_no_error_and_is_scored_as_arabic():
    (u,) = score([AR_REF], [AR_HYP])
    assert u.lang == "ar" and u.laser == 1.0
    assert all(p.label in ("match", "no_penalty") for p in u.pairs)


def test_french_is_scored_as_french_not_english():
    (u,) = score(["le début de centres nucléaires militaires"], ["le début de centres nuclé militaires"])
    assert u.lang == "fr"
    (bad,) = [p for p in u.pairs if p.label != "match"]
    assert bad.error_type == "partial_word" and "/nykleɛʁ/ ~ /nykle/" in bad.reason


def test_a_language_without_its_own_lists_gets_the_generic_profile():
    # English contractions are English: in German the rules do not borrow them
    assert classify(pair_of("going to", "gonna"), "en").error_type == "slang_colloquial"
    assert classify(pair_of("going to", "gonna"), "de").error_type != "slang_colloquial"
    assert classify(pair_of("zehn", "zehn."), "de").label == "match"
    assert voice_for("de") == "de" and voice_for("und") is None


@pytest.mark.parametrize(
    "lang, a, b, ipa_a, ipa_b",
    [
        ("en", "Houghton", "Horton", "hɔːtən", "hɔːɹtən"),
        ("hi", "हेयर", "हेअर", "heːjəɾ", "heːəɾ"),
        ("fr", "nucléaires", "nuclé", "nykleɛʁ", "nykle"),
        ("ml", "ബസ്", "ബസ്സ്", "bɐsɨ", "bɐssɨ"),
        ("ar", "الطالب", "الطلاب", "ʔat̪aːlab", "ʔat̪laːb"),  # the student / the students
    ],
)
def test_real_phonemes_from_the_wheel(lang, a, b, ipa_a, ipa_b):
    assert phonemes(a, lang) == ipa_a and phonemes(b, lang) == ipa_b
    ev = evidence((a,), (b,), lang)
    assert ev.sounds() == f"/{ipa_a}/ ~ /{ipa_b}/" and 0 < ev.sound < 1


def test_phonemes_are_cached_per_word_after_one_batch():
    words = ["éléphant", "girafe", "hippopotame"]
    prefetch(words, "fr")
    assert all(("fr-fr", fold(w)) in _cache for w in words)


@pytest.mark.parametrize(
    "ref, hyp, lang, label, etype, evidence_text",
    [
        ("eucaryote", "eukaryote", "fr", "no_penalty", "homophone", "pronounced alike: /økaʁjɔt/ ~ /økaʁjɔt/"),
        ("weak", "week", "en", "major", "wrong_word", "another word pronounced alike"),  # the rubric's example
        ("their", "there", "en", "major", "wrong_word", "/ðɛɹ/ ~ /ðɛɹ/"),  # a function word stays major
        ("nucléaire", "nucléaires", "fr", "minor", "grammar_agreement", "the ending is silent"),
        ("train", "rain", "en", "major", "wrong_word", "neither sounds nor looks alike"),
    ],
)
def test_every_mismatch_names_its_evidence(ref, hyp, lang, label, etype, evidence_text):
    got = classify(pair_of(ref, hyp), lang, RUBRIC.conventions(lang))
    assert (got.label, got.error_type) == (label, etype) and evidence_text in got.reason


def test_fillers_repetitions_false_starts_and_compounds_where_pairs_are_formed():
    rules = rules_labeler_for(RUBRIC)
    (u,) = score(
        ["je pense que le début du hawk-eagle"], ["euh je je pense que le dé- début du hawk eagle"], labeler=rules
    )
    extra = {(p.ref, p.hyp): (p.label, p.error_type) for p in u.pairs if p.label != "match"}
    assert extra == {
        ("", "euh"): ("no_penalty", "filler"),
        ("", "je"): ("no_penalty", "repetition"),
        ("", "dé-"): ("minor", "partial_word"),
        ("hawk-eagle", "hawk eagle"): ("no_penalty", "compound_word"),
    }
    # the edit script pairs a dropped filler with an added repetition: two phenomena, not a wrong word
    (u,) = score(["euh je pense"], ["je je pense"], labeler=rules)
    assert [(p.ref, p.hyp, p.error_type) for p in u.pairs if p.label != "match"] == [
        ("euh", "", "filler"),
        ("", "je", "repetition"),
    ]
    (u,) = score(["aujourd'hui"], ["aujourd' hui"], lang="fr", labeler=rules)
    assert [p.error_type for p in u.pairs] == ["compound_word"]


@pytest.mark.parametrize(
    "ref, hyp, label, reason",
    [
        ("pôle", "pole", "minor", "an accent slip"),  # HATS: people preferred it to 'paul'
        ("événement", "évènement", "minor", "an accent slip"),
        ("décidemment", "décidément", "minor", "an accent slip"),  # and a doubled letter
        ("installé", "installlé", "minor", "doubled or transposed letter"),
        ("à", "a", "major", "a function word was replaced"),  # a preposition for a verb: two words
        ("où", "ou", "major", "a function word was replaced"),
    ],
)
def test_french_accent_and_doubled_letter_slips(ref, hyp, label, reason):
    got = classify(pair_of(ref, hyp), "fr", RUBRIC.conventions("fr"))
    assert got.label == label and got.reason.startswith(reason)


def test_a_capital_on_a_contraction_or_function_word_is_no_name():
    """The sentence ratings' raters: 'We're' -> 'weare' is a wrong word, not another rendering
    of a name; 'Kerry' -> 'Carey' still is."""
    assert classify(pair_of("We're", "weare"), "en").label == "major"
    assert classify(pair_of("I'll", "i'l"), "en").label == "major"
    assert classify(pair_of("Kerry", "Carey"), "en").error_type == "proper_noun"


@pytest.mark.parametrize(
    "lang, ref, hyp, filler",
    [
        ("fr", "je pense que oui", "euh je pense que oui", "euh"),  # as HATS transcribes it
        ("fr", "c' est vrai", "ben c' est vrai", "ben"),
        ("en", "I think so", "I um think so", "um"),
        ("en", "we went home", "we er went home", "er"),
        ("de", "ich glaube es", "ich äh glaube es", "äh"),
        ("hi", "मैं घर जा रहा हूँ", "मैं अं घर जा रहा हूँ", "अं"),
        ("ar", "ذهبت إلى المدرسة", "ذهبت امم إلى المدرسة", "امم"),
    ],
)
def test_fillers_per_language_from_the_rubric(lang, ref, hyp, filler):
    (u,) = score([ref], [hyp], lang=lang, labeler=rules_labeler_for(RUBRIC))
    assert [(p.hyp, p.error_type, p.label) for p in u.pairs if p.label != "match"] == [(filler, "filler", "no_penalty")]


def test_a_filler_of_another_language_is_an_addition():
    (u,) = score(["I think so"], ["I euh think so"], lang="en", labeler=rules_labeler_for(RUBRIC))
    assert [(p.hyp, p.error_type) for p in u.pairs if p.label != "match"] == [("euh", "addition")]


def test_graded_penalty_by_hand():
    """Per character edit of a penalised pair (``edit``) and per case/punctuation edit of a pair
    that matches apart from them (``surface``); nothing for the rules judge."""
    cal = Calibration(edit=2**-6, surface=2**-3)
    refs, hyps = ["She knows the gene."], ["she knows the gin"]
    (u,) = score(refs, hyps, lang="en", labeler=rules_labeler_for(RUBRIC, {"*": cal}))
    got = {(p.ref, p.hyp): (p.label, p.penalty) for p in u.pairs if p.ref != p.hyp}
    # She/she: 1 case edit; gene/gin (folded: gene -> gin): e->i and a dropped e, 2 edits on a major
    assert got == {("She", "she"): ("match", 1 / 8), ("gene.", "gin"): ("major", 1 + 2 / 64)}
    assert u.laser == 1 - (1 / 8 + 1 + 2 / 64) / 4
    assert "graded +0.03125 (character edits: 2)" in [p.reason for p in u.pairs if p.ref == "gene."][0]
    (plain,) = score(refs, hyps, lang="en", labeler=rules_labeler_for(RUBRIC))
    assert plain.laser == 0.75


def test_the_shipped_judge_breaks_a_tie_people_did_not_see_as_one():
    """A HATS triplet (7 of 7 people chose A): both hypotheses have one major, a tie for the
    rules judge; the default judge's graded penalty prefers the one spelled closer (1 edit, not 2)."""
    ref = "il reconnaît sans langue de bois ses difficultés"
    a, b = "il reconnaît sans lanque de bois ses difficultés", "il reconnaît sans manque de bois ses difficultés"
    rules = [u.laser for u in score([ref, ref], [a, b], lang="fr", labeler=rules_labeler_for(RUBRIC))]
    default = [u.laser for u in score([ref, ref], [a, b], lang="fr", labeler=offline_labeler(None, RUBRIC)[0])]
    assert rules[0] == rules[1] and default[0] > default[1]


def test_a_flag_is_part_of_the_pair_identity():
    plain = RubricPair((), ("je",), "insert", 1, 1)
    flagged = RubricPair((), ("je",), "insert", 1, 1, "repetition")
    assert plain != flagged and hash(plain) != hash(flagged)
    assert classify(plain, "fr").label == "major" and classify(flagged, "fr").label == "no_penalty"


def test_preference_agreement_by_hand():
    # votes 7:0 A better, 4:3 B better, 3:3 tie (disagreement), 0:7 B better
    va, vb = np.array([7, 3, 3, 0]), np.array([0, 4, 3, 7])
    sa, sb = np.array([0.9, 0.8, 0.5, 0.5]), np.array([0.5, 0.5, 0.4, 0.5])
    assert preference_agreement(sa, sb, va, vb, 1.0) == pytest.approx(1 / 2)  # the score tie disagrees
    assert preference_agreement(sa, sb, va, vb, 0.0) == pytest.approx(1 / 4)


def test_the_tuning_loop_agrees_with_the_judge_card_on_hats():
    """The fast objective of the calibration search against voxjudge.asr.preference (an
    independent implementation) on the shipped HATS triplets and CER scores."""
    from rapidfuzz.distance import Levenshtein

    from voxjudge.asr.preference import preference_agreement as card
    from voxjudge.asr.preference import read_preferences

    _, hats = shipped_data()
    rows, prefs = read_hats(hats), read_preferences(hats)
    cer = lambda r, h: -Levenshtein.distance(r, h) / len(r)  # noqa: E731
    sa = np.array([cer(r["reference"], r["hyp_a"]) for r in rows])
    sb = np.array([cer(r["reference"], r["hyp_b"]) for r in rows])
    va, vb = np.array([int(r["votes_a"]) for r in rows]), np.array([int(r["votes_b"]) for r in rows])
    theirs = card(prefs, sa.tolist(), sb.tolist(), higher_is_better=True, n_resamples=10)
    ours = [preference_agreement(sa, sb, va, vb, c) for c in (1.0, 0.7, 0.0)]
    assert ours == pytest.approx([lv.agreement for lv in theirs])


def test_calibrated_rescoring_equals_scoring_with_that_calibration():
    """The grid search re-tiers prepared pairs; it must give what a full run under the same
    calibration gives (the calibrated judge is what ships)."""
    refs = ["le début de centres nucléaires militaires", "The eukaryotes grow, slowly.", AR_REF]
    hyps = ["euh le le début de centres nuclé militaires", "the ucariotes grow slowly", "وأما الشبر الثالث"]
    prep = prepare(refs, hyps, None, RUBRIC, rules_labeler_for(RUBRIC))
    tiers = {**RUBRIC.tiers, "match": 0.0}
    graded = Calibration(homophone="minor", filler="minor", partial="major", near_sound=0.6, edit=2**-6, surface=2**-3)
    for cal in (Calibration(), Calibration(homophone="minor", filler="minor", partial="major", near_sound=0.6), graded):
        want = [u.laser for u in score(refs, hyps, rubric=RUBRIC, labeler=rules_labeler_for(RUBRIC, {"*": cal}))]
        assert prep.scores(cal, tiers) == pytest.approx(want)


def test_shipped_calibration_and_its_data_carry_their_licences():
    cals = load()
    assert "*" in cals and isinstance(cals["*"], Calibration)
    ratings, hats = shipped_data()
    assert len(read_ratings(ratings)) == 300 and len(read_hats(hats)) == 499
    for folder in (Path(shipped_path()).parent, Path(ratings).parent):
        assert "MIT" in (folder / "LICENSE-hats.txt").read_text(encoding="utf-8")
        assert "MIT" in (folder / "LICENSE-asr-metric-evaluation.txt").read_text(encoding="utf-8")
    _, name = offline_labeler(None, RUBRIC)
    assert "calibration" in name


@pytest.mark.slow
def test_training_reproduces_the_shipped_calibration_byte_for_byte():
    ratings, hats = shipped_data()
    text, _ = train_files(ratings, hats, RUBRIC)
    assert text == Path(shipped_path()).read_text(encoding="utf-8")


def test_the_raters_curve_maps_the_score_onto_itself_concave_in_the_errors():
    assert rated(None, 3.0) is None
    assert rated(0.8, 0.0) == 0.8  # no curve: the score itself
    assert (rated(0.0, 3.0), rated(1.0, 3.0)) == (0.0, 1.0)
    # one wrong word in ten, by hand: (e^2.7 - 1) / (e^3 - 1)
    assert rated(0.9, 3.0) == pytest.approx((np.exp(2.7) - 1) / (np.exp(3.0) - 1)) and rated(0.9, 3.0) < 0.73
    grid_ = np.linspace(0, 1, 101)
    values = [rated(float(s), 3.0) for s in grid_]
    assert all(a < b for a, b in zip(values, values[1:]))  # monotone: every order is LASER's
    assert all(v <= s + 1e-12 for v, s in zip(values, grid_))  # the first errors cost more


class _Scores:
    """Prepared utterances reduced to what the curve's fit reads: their scores."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=float)

    def scores(self, cal, tiers):
        return self.values


def test_the_raters_curve_is_fitted_on_ratings_only():
    s = np.linspace(0.0, 1.0, 21)
    people = 5 * (np.expm1(2.0 * s) / np.expm1(2.0))  # raters on a curve with k = 2
    ratings = Task("ratings-xx", "xx", np.arange(21), ("ratings", _Scores(s), people))
    tiers = {**RUBRIC.tiers, "match": 0.0}
    assert _best_curve(Calibration(), [ratings], tiers, [None]) == 2.0
    linear = Task("ratings-yy", "yy", np.arange(21), ("ratings", _Scores(s), 4 * s + 1))
    assert _best_curve(Calibration(), [linear], tiers, [None]) == 0.0
    hats = Task("hats-fr", "fr", np.arange(3), ("hats", _Scores([1, 0, 0]), _Scores([0, 1, 1]), [1, 0, 0], [0, 1, 1]))
    assert _best_curve(Calibration(), [hats], tiers, [None]) == 0.0  # preferences say nothing of it
    # the rows a fold trains on: only they count
    rows = np.arange(0, 21, 2)
    assert _best_curve(Calibration(), [ratings], tiers, [rows]) == 2.0


def test_the_default_judge_gives_laser_on_the_raters_curve_beside_laser_and_rules_does_not(tmp_path):
    from voxjudge.asr.laser import LaserOptions, run_laser
    from voxjudge.asr.laser.judges import rater_curve

    refs = ["the cat sat on the mat", "a quick brown fox", "she is known for her work"]
    hyps = ["the cat sat on a mat", "a quick brown box jumps", "she is known for her work"]
    human = {"1": 3.1, "2": 2.0, "3": 4.9}
    curve = rater_curve("default")
    assert curve == load()["*"].curve and curve > 0 and rater_curve("rules") is None
    out = tmp_path / "records.jsonl"
    result = run_laser(
        refs, hyps, judge="default", options=LaserOptions(lang="en", n_resamples=100), out=out, human=human
    )
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for r in records:
        assert list(r)[:4] == ["id", "lang", "laser", "laser_calibrated"]
        assert r["laser_calibrated"] == rated(r["laser"], curve)
    assert result.summary["rater_curve"] == curve
    assert set(result.summary["agreement"]) == {"laser", "laser_calibrated", "one_minus_wer"}
    plain = run_laser(refs, hyps, judge="rules", options=LaserOptions(lang="en", n_resamples=100), out=out, human=human)
    assert "laser_calibrated" not in out.read_text(encoding="utf-8") and "rater_curve" not in plain.summary
    assert set(plain.summary["agreement"]) == {"laser", "one_minus_wer"}
