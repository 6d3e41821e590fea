"""The rubric aligner compares normalized words and keeps the original ones for display."""

from __future__ import annotations

import pytest

from voxjudge.asr.laser import rubric_align, score
from voxjudge.asr.laser.align import word_key
from voxjudge.asr.laser.scoring import rules_labeler


@pytest.mark.parametrize(
    "ref, hyp, laser, errors",
    [
        # one omission, not "the→cat" plus "cat.→∅": 1 - 1/4
        ("I like the cat.", "I like cat", 0.75, [("the", "", "delete")]),
        # 1 - 1/3: only "home," is missing; "now."/"now" and "Go"/"go" are matches
        ("Go home, now.", "go now", 2 / 3, [("home,", "", "delete")]),
        # the shipped example m02-en006: one omission in eight words
        ("Can you turn the volume down a little?", "can you turn the volume down little", 0.875, [("a", "", "delete")]),
    ],
)
def test_punctuation_and_case_do_not_break_matches(ref, hyp, laser, errors):
    # the rules judge: the default one adds a small calibrated penalty per case/punctuation edit
    u = score([ref], [hyp], lang="en", labeler=rules_labeler)[0]
    assert u.laser == pytest.approx(laser)
    assert [(p.ref, p.hyp, p.op) for p in u.pairs if p.label != "match"] == errors


def test_original_words_are_kept_for_display():
    pairs = rubric_align("Go home, now.".split(), "go now".split())
    assert [(p.ref_text, p.hyp_text, p.op) for p in pairs] == [
        ("Go", "go", "equal"),
        ("home,", "", "delete"),
        ("now.", "now", "equal"),
    ]
    u = score(["Go home, now."], ["go now"], lang="en", labeler=rules_labeler)[0]
    assert u.pairs[2].reason == "identical apart from case or punctuation"
    assert u.pairs[0].label == "match"


def test_swap_is_found_through_punctuation():
    pairs = rubric_align("the dog, bit".split(), "the bit dog".split())
    assert [(p.ref_text, p.hyp_text, p.op) for p in pairs if p.op != "equal"] == [("dog, bit", "bit dog", "swap")]


def test_word_key():
    assert word_key("Cat.") == word_key("cat") == "cat"
    assert word_key("«नहीं»") == "नहीं"
    assert word_key("...") == "..."  # a punctuation-only token keeps itself rather than becoming empty
