"""Speech phenomena, flagged where the word pairs are formed: fillers and hesitations, immediate
repetitions, false starts (a partial word just before the word it starts).

A flag is context (a repetition is only one beside its twin), so it travels on the pair
(``RubricPair.note``) and is part of its identity; the labeler stays a function of the pair and
its language. The filler lists ship in the rubric (``speech.fillers``, per language, plus ``*``
for every language); the tiers are those of the rubric's ``filler``, ``repetition`` and
``partial_word`` types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from voxjudge.asr.laser.align import RubricPair, word_key
from voxjudge.asr.laser.lang import fold
from voxjudge.asr.laser.spelling import joined_word as _joinkey

FILLER, REPETITION, FALSE_START = "filler", "repetition", "false_start"


@lru_cache(maxsize=64)
def fillers(lang: str, rubric_path: str | None = None) -> frozenset[str]:
    from voxjudge.asr.laser.rubric import LaserRubric

    return LaserRubric.load(rubric_path).fillers(lang)


def flag(pairs: Sequence[RubricPair], ref: Sequence[str], hyp: Sequence[str], lang: str, filler_words=None):
    """The pairs with insertions and deletions that are speech phenomena noted (the streamed
    path's runs of identical words pass through). Mirrored for plain lines in ``_plain.c``
    (``phenomenon``, ``align_line``): a change here needs the same change there."""
    known = fillers(lang) if filler_words is None else filler_words
    out: list = []
    append = out.append
    for p in pairs:
        if type(p) is tuple:  # the streamed path's (i, j, n) run of identical words
            append(p)
            continue
        op = p.op
        if op == "substitute":
            if len(p.ref) == len(p.hyp) == 1:
                # 'euh je' / 'je je': the edit script pairs a dropped filler with an added repetition;
                # when both sides are phenomena they are two, not one wrong word
                gone = _phenomenon(p.ref[0], ref, p.ref_start, known)
                new = gone and _phenomenon(p.hyp[0], hyp, p.hyp_start, known)  # asked only when it matters
                if gone and new:
                    append(RubricPair(p.ref, (), "delete", p.ref_start, p.hyp_start, gone))
                    append(RubricPair((), p.hyp, "insert", p.ref_start + 1, p.hyp_start, new))
                    continue
        elif op == "insert" and not p.ref and len(p.hyp) == 1:
            note = _phenomenon(p.hyp[0], hyp, p.hyp_start, known)
            if note:
                p = replace(p, note=note)
        elif op == "delete" and not p.hyp and len(p.ref) == 1:
            note = _phenomenon(p.ref[0], ref, p.ref_start, known)
            if note:
                p = replace(p, note=note)
        append(p)
    return out


_FACTS: dict[str, tuple[str, str, str]] = {}  # word -> _facts(word), a plain dict: asked per pair
MAX_FACTS = 200_000  # words; past that the cache starts again (the facts are a function of the word)


def _facts(word: str) -> tuple[str, str, str]:
    """What the phenomena ask of a word, in one lookup: its alignment key, its spelling fold and
    its fold without hyphens or apostrophes."""
    facts = _FACTS.get(word)
    if facts is None:
        if len(_FACTS) >= MAX_FACTS:
            _FACTS.clear()
        facts = _FACTS[word] = (word_key(word), fold(word), _joinkey(word))
    return facts


def _phenomenon(word: str, side: Sequence[str], at: int, known: frozenset[str]) -> str:
    """What a word at ``side[at]`` is as speech: filler, repetition, false start, or ''.
    Mirrored for plain lines in ``_plain.c`` (``phenomenon``)."""
    k, folded, cut = _FACTS.get(word) or _facts(word)
    if folded in known:
        return FILLER
    if k and at > 0 and k == word_key(side[at - 1]):
        return REPETITION
    if at + 1 >= len(side):
        return ""
    nxt, _, full = _FACTS.get(side[at + 1]) or _facts(side[at + 1])
    if k and k == nxt:
        return REPETITION
    # a false start is a start of the next word: that test first, it rules out nearly every pair
    return FALSE_START if nxt and full.startswith(cut.rstrip("-")) and _false_start(word, cut, full) else ""


def _false_start(word: str, cut: str, full: str) -> bool:
    """``nuclé nucléaires``, ``dé- début``: a cut-off start of the next word (``cut`` and ``full``:
    the two words folded, without hyphens or apostrophes)."""
    cut = cut.rstrip("-")
    return (word.endswith("-") and len(cut) >= 1 and full.startswith(cut)) or (
        2 <= len(cut) < len(full) and full.startswith(cut)
    )


__all__ = ["FALSE_START", "FILLER", "REPETITION", "fillers", "flag"]
