"""The Hindi annotator conventions added from the LASER authors' labels, and the word-frequency
lexicon the learned judge reads."""

from __future__ import annotations

import pytest

from voxjudge.asr.laser import LaserRubric
from voxjudge.asr.laser.judges import offline_labeler
from voxjudge.asr.laser.lexicon import KNOWN_ZIPF, is_known, zipf
from voxjudge.asr.laser.rules import classify
from voxjudge.asr.laser.training import pair_of

RUBRIC = LaserRubric.load()
CONV = RUBRIC.conventions("hi")


@pytest.mark.parametrize(
    "ref, hyp, label, error_type",
    [
        # auxiliaries changed over a phrase: an agreement slip, minor
        ("बोल रहे हैं", "बोल रहें", "minor", "grammar_agreement"),
        ("रही है", "रहे", "minor", "grammar_agreement"),
        # an auxiliary only added or only dropped stays an addition/omission of a word: major
        ("करते", "करते हैं", "major", "wrong_word"),
        ("हुआ है", "हुआ", "major", "wrong_word"),
        # listed synonyms, single words and phrases, either order
        ("संख्या", "तादाद", "minor", "synonym"),
        ("तौर पर", "रूप से", "minor", "synonym"),
        ("मदद", "सहायता", "minor", "synonym"),
        # the same verb with another register's ending
        ("जाकर", "जाके", "no_penalty", "slang_colloquial"),
        ("आ के", "आकर", "no_penalty", "slang_colloquial"),
        ("समझिए", "समझें", "no_penalty", "slang_colloquial"),
        # but not another tense or number: लिया/लें is a different form
        ("लिया", "लें", "minor", "grammar_agreement"),
        # spoken pronoun forms
        ("मुझे", "मेरे को", "no_penalty", "slang_colloquial"),
        ("हमने", "अपन ने", "no_penalty", "slang_colloquial"),
        ("वही", "वो ही", "no_penalty", "slang_colloquial"),
        # the English plural on a loan word
        ("कपल", "कपल्स", "minor", "grammar_agreement"),
    ],
)
def test_rules_follow_the_hindi_conventions(ref, hyp, label, error_type):
    got = classify(pair_of(ref, hyp), "hi", CONV)
    assert (got.label, got.error_type) == (label, error_type), got.reason


def test_synonym_is_a_minor_rubric_type():
    assert RUBRIC.type("synonym").tier == "minor"


def test_lexicon_knows_words_of_the_language_and_not_misspellings():
    assert is_known("हेयर", "hi") and not is_known("हेअर", "hi")
    assert is_known("स्ट्रॉबेरी", "hi") and not is_known("स्टोबेरी", "hi")
    assert zipf("में", "hi") > zipf("समान", "hi") > KNOWN_ZIPF
    assert zipf("नहीं", "xx") == 0.0  # a language without a list: every word unknown, no error


@pytest.mark.parametrize(
    "ref, hyp, label",
    [
        ("सामान", "समान", "major"),  # two real words: a different word
        ("हेयर", "हेअर", "no_penalty"),  # one side no corpus knows: a spelling of the other
        ("computer", "कंप्यूटर", "no_penalty"),  # cross-script loan words stay with the rules
        ("मुझे", "मेरे को", "no_penalty"),  # a listed spoken form is not overruled by the model
    ],
)
def test_default_judge_uses_the_lexicon_and_keeps_rule_certainties(ref, hyp, label):
    labeler, _ = offline_labeler(None, RUBRIC)
    (got,) = labeler([("1", pair_of(ref, hyp), "hi")])
    assert got.label == label, got.reason
