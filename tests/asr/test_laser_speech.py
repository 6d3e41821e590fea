"""``speech.flag`` reads a plain dict of word facts and tests a false start's prefix first; the
flags as they were (below) are the reference: the same pairs on random utterances with fillers,
repetitions (in other case or with punctuation), false starts (``nuclé nucléaires``, ``dé-
début``) and substitutions whose both sides are phenomena."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

import pytest

from voxjudge.asr.laser.align import RubricPair, rubric_align, word_key
from voxjudge.asr.laser.lang import fold
from voxjudge.asr.laser.rules import equivalent
from voxjudge.asr.laser.speech import FALSE_START, FILLER, REPETITION, fillers, flag
from voxjudge.asr.laser.spelling import joined_word as _joinkey

WORDS = {
    "en": "uh um the The the, cat nuc nuclear nuclear. dé- début go going gone it's its a".split(),
    "fr": "euh ben je je, Je nuclé nucléaires dé- début d' aujourd'hui".split(),
    "hi": "अं हम्म मैं मैं बाज़ार बा बाजार".split(),
}


def _reference_flag(pairs: Sequence[RubricPair], ref: Sequence[str], hyp: Sequence[str], lang: str, filler_words=None):
    """The pairs with insertions and deletions that are speech phenomena noted (the streamed
    path's runs of identical words pass through)."""
    known = fillers(lang) if filler_words is None else filler_words
    out = []
    for p in pairs:
        if type(p) is tuple:  # the streamed path's (i, j, n) run of identical words
            out.append(p)
            continue
        if p.op == "substitute" and len(p.ref) == len(p.hyp) == 1:
            # 'euh je' / 'je je': the edit script pairs a dropped filler with an added repetition;
            # when both sides are phenomena they are two, not one wrong word
            gone = _reference_phenomenon(p.ref[0], ref, p.ref_start, known)
            new = gone and _reference_phenomenon(p.hyp[0], hyp, p.hyp_start, known)  # asked only when it matters
            if gone and new:
                out.append(RubricPair(p.ref, (), "delete", p.ref_start, p.hyp_start, gone))
                out.append(RubricPair((), p.hyp, "insert", p.ref_start + 1, p.hyp_start, new))
                continue
        note = ""
        if p.op in ("insert", "delete") and len(p.ref) + len(p.hyp) == 1:
            word, side, at = (p.hyp[0], hyp, p.hyp_start) if p.op == "insert" else (p.ref[0], ref, p.ref_start)
            note = _reference_phenomenon(word, side, at, known)
        out.append(replace(p, note=note) if note else p)
    return out


@lru_cache(maxsize=200_000)
def _reference_facts(word: str) -> tuple[str, str, str]:
    """What the phenomena ask of a word, in one lookup: its alignment key, its spelling fold and
    its fold without hyphens or apostrophes."""
    return word_key(word), fold(word), _joinkey(word)


def _reference_phenomenon(word: str, side: Sequence[str], at: int, known: frozenset[str]) -> str:
    """What a word at ``side[at]`` is as speech: filler, repetition, false start, or ''."""
    k, folded, cut = _reference_facts(word)
    if folded in known:
        return FILLER
    before = _reference_facts(side[at - 1])[0] if at > 0 else None
    nxt = _reference_facts(side[at + 1]) if at + 1 < len(side) else None
    if k and (k == before or (nxt is not None and k == nxt[0])):
        return REPETITION
    if nxt is not None and nxt[0] and _reference_false_start(word, cut, nxt[2]):
        return FALSE_START
    return ""


def _reference_false_start(word: str, cut: str, full: str) -> bool:
    """``nuclé nucléaires``, ``dé- début``: a cut-off start of the next word (``cut`` and ``full``:
    the two words folded, without hyphens or apostrophes)."""
    cut = cut.rstrip("-")
    return (word.endswith("-") and len(cut) >= 1 and full.startswith(cut)) or (
        2 <= len(cut) < len(full) and full.startswith(cut)
    )


@pytest.mark.parametrize("lang", sorted(WORDS))
@pytest.mark.parametrize("seed", range(10))
def test_flags_are_the_flags_as_they_were(lang, seed):
    rng = random.Random(seed)
    eq = equivalent(lang)
    for _ in range(300):
        ref = rng.choices(WORDS[lang], k=rng.randint(0, 8))
        hyp = [w for w in ref if rng.random() < 0.8]
        for _ in range(rng.randint(0, 3)):
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(WORDS[lang]))
        pairs = rubric_align(ref, hyp, eq)
        assert flag(pairs, ref, hyp, lang) == _reference_flag(pairs, ref, hyp, lang)
