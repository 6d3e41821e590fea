"""The rules' one-word fast path against the whole rule chain, label for label.

``rules._classify_words`` sends a one-word pair straight to the evidence when a few cached facts
per word prove that no rule can apply (``_no_rule_applies``); ``rules.rule_chain`` runs every step
in order and stays the reference. Both must give the same label, error type, reason and evidence
for any pair: the rubric's examples, the shipped data's words, numbers, contractions, names,
Hindi, Arabic and French pairs, and random edits of all of them. The one-word evidence
(``phonetics.word_evidence``) is checked against the general ``evidence`` the same way.
"""

from __future__ import annotations

import csv
import json
import random
from functools import lru_cache
from importlib import resources

import pytest

from voxjudge.asr.laser import LaserRubric, rules
from voxjudge.asr.laser.calibration_file import conventions_source
from voxjudge.asr.laser.calibration_file import load as shipped_calibrations
from voxjudge.asr.laser.conventions import conventions_for
from voxjudge.asr.laser.lang import has_function_word
from voxjudge.asr.laser.phonetics import evidence, prefetch
from voxjudge.asr.laser.spelling import joined

LANGS = ("en", "fr", "hi", "ar", "mr", "ml", "kn", "de", "und")
HANDPICKED = [
    ("10", "ten"), ("ten", "10"), ("15%", "fifteen"), ("3rd", "third"), ("१०", "10"), ("١٠", "10"), ("½", "half"),
    ("①", "one"), ("²", "two"), ("don't", "dont"), ("it's", "its"), ("I'll", "ill"), ("j'ai", "jai"),
    ("colour", "color"), ("realise", "realize"), ("Dr", "doctor"), ("dr.", "doctor"), ("km", "kilometres"),
    ("gonna", "going"), ("ok", "okay"), ("yeah", "yes"), ("cause", "because"), ("nuclé", "nucléaires"),
    ("nuclé-", "nucléaires"), ("care", "careful"), ("occured", "occurred"), ("recieve", "receive"),
    ("pôle", "pole"), ("événement", "évènement"), ("à", "a"), ("où", "ou"), ("Smith", "Smyth"), ("smith", "smyth"),
    ("Mohan", "Mohun"), ("school", "स्कूल"), ("स्कूल", "school"), ("doctor", "डॉक्टर"), ("closed", "close"),
    ("light", "lights"), ("gene", "gen"), ("went", "go"), ("sea", "see"), ("weak", "week"), ("the", "a"),
    ("The", "the"), ("cat,", "cat"), ("hawk-eagle", "hawkeagle"), ("a", "b"), ("x", "xy"), ("-", "--"),
    ("", "a"), ("ab", "ba"), ("abcd", "abdc"), ("मैं", "में"), ("है", "हैं"), ("गई", "गयी"), ("बाज़ार", "बाजार"),
    ("जाकर", "जाके"), ("हिन्दी", "हिंदी"), ("कि", "की"), ("أريد", "اريد"), ("الشِّبْرُ", "الشبر"), ("hआपh", "आप"),
]  # fmt: skip
EDITS = "substitute delete insert transpose double capital punctuation apostrophe digit accent hyphen".split()


@lru_cache(maxsize=1)
def _conventions() -> list[tuple[str, object]]:
    """(lang, conventions) the judges use: the rubric's, and the default judge's calibrated ones."""
    calibrated = conventions_source(LaserRubric.load(), shipped_calibrations())
    return [(lang, conv) for lang in LANGS for conv in (conventions_for(lang), calibrated(lang))]


def _data(name: str) -> str:
    return str(resources.files("voxjudge.asr.laser").joinpath("data", name))


def _rubric_examples() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    rubric = json.loads(resources.files("voxjudge.asr.laser").joinpath("rubric.json").read_text("utf-8"))
    out = []
    for kind in rubric["types"]:
        for examples in (kind.get("examples") or {}).values():
            for ref, hyp in examples:
                out += [(tuple(ref.split()), tuple(hyp.split())), (tuple(hyp.split()), tuple(ref.split()))]
    return out


def _shipped_pairs() -> list[tuple[str, str]]:
    """Word pairs from the shipped sets: the Hindi pairs as given, sentence words side by side."""
    with open(_data("laser_hindi_pairs_train.csv"), encoding="utf-8", newline="") as f:
        out = [(row["ref"], row["hyp"]) for row in csv.DictReader(f)]
    with open(_data("asr_sentence_ratings_train.csv"), encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            out += list(zip(row["ref"].split(), row["hyp"].split()))
    with open(_data("hats_pairs_train.tsv"), encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            out += list(zip(row["reference"].split(), row["hyp_a"].split()))
    return [(a, b) for a, b in out if " " not in a + b]


def _edited(word: str, rnd: random.Random) -> str:
    """The word with one random slip of the kinds the rules look for (and some they do not)."""
    k = rnd.randrange(max(len(word), 1))
    edit = rnd.choice(EDITS)
    letter = rnd.choice("aeiouxyzstnlé'-1ाीिे")
    if edit == "substitute":
        return word[:k] + letter + word[k + 1 :]
    if edit == "delete":
        return word[:k] + word[k + 1 :]
    if edit == "insert":
        return word[:k] + letter + word[k:]
    if edit == "transpose" and len(word) > k + 1:
        return word[:k] + word[k + 1] + word[k] + word[k + 2 :]
    if edit == "double":
        return word[: k + 1] + word[k:]
    if edit == "capital":
        return word.capitalize()
    if edit == "punctuation":
        return word + rnd.choice(",.!?")
    if edit == "apostrophe":
        return word + rnd.choice(("'s", "n't", "'ll"))
    if edit == "digit":
        return word[:k] + str(rnd.randrange(10)) + word[k:]
    if edit == "accent":
        return word.replace("e", "é", 1).replace("o", "ô", 1)
    return word[:k] + "-" + word[k:]


@lru_cache(maxsize=1)
def _one_word_pairs() -> list[tuple[str, str]]:
    rnd = random.Random(34)
    shipped = _shipped_pairs()
    words = sorted({w for pair in shipped + HANDPICKED for w in pair if w})
    edited = [(w, _edited(w, rnd)) for w in rnd.sample(words, 1500)]
    randoms = [(rnd.choice(words), rnd.choice(words)) for _ in range(1500)]
    return HANDPICKED + rnd.sample(shipped, min(len(shipped), 2500)) + edited + randoms


def _label(lab: rules.Label) -> tuple:
    return lab.label, lab.error_type, lab.reason, lab.disputed, lab.evidence  # evidence: compare=False on Label


@pytest.fixture(scope="module", autouse=True)
def _phonemized():
    """Every word phonemized in one batch per language first (one at a time, the test is slow)."""
    words = {w for pair in _one_word_pairs() for w in pair} | {w for r, h in _rubric_examples() for w in r + h}
    for lang in LANGS:
        prefetch(words, lang)


def test_one_word_pairs_fast_path_equals_rule_chain():
    fast_taken = 0
    pairs = _one_word_pairs()
    for lang, conv in _conventions():
        for r, h in pairs:
            ref, hyp = (r,), (h,) if h else ()
            got = rules._classify_words.__wrapped__(ref, hyp, lang, conv)
            assert _label(got) == _label(rules.rule_chain(ref, hyp, lang, conv)), (r, h, lang)
            fast_taken += bool(ref and hyp) and rules._no_rule_applies(r, h, lang, conv)
    assert fast_taken > len(pairs)  # not vacuous: many pairs took the fast path, in several languages


def test_rubric_examples_and_phrases_fast_path_equals_rule_chain():
    for lang, conv in _conventions():
        for ref, hyp in _rubric_examples():
            got = rules._classify_words.__wrapped__(ref, hyp, lang, conv)
            assert _label(got) == _label(rules.rule_chain(ref, hyp, lang, conv)), (ref, hyp, lang)


def test_one_word_evidence_equals_general_evidence():
    for lang in LANGS:
        for r, h in _one_word_pairs():
            if not (r and h):
                continue
            ev, function, shortest = rules._word_evidence(r, h, lang)
            want = evidence((r,), (h,), lang)
            assert (ev.ipa_ref, ev.ipa_hyp, ev.sound, ev.look) == (want.ipa_ref, want.ipa_hyp, want.sound, want.look)
            assert function == (has_function_word((r,), lang) or has_function_word((h,), lang))
            assert shortest == min(len(joined((r,))), len(joined((h,))))
