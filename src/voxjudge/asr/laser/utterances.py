"""Utterances as LASER sees them: words (punctuation-only tokens dropped) and their rubric
alignment, with speech phenomena flagged, in one language per utterance. Scoring, calibration,
the LLM judges and the studio start from here."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from voxjudge.asr.laser.align import RubricPair, rubric_align
from voxjudge.asr.laser.lang import detect_language
from voxjudge.asr.laser.rules import equivalent
from voxjudge.asr.laser.speech import flag
from voxjudge.asr.longform import LineTooLong
from voxjudge.errors import shown_id


def words(text: str) -> list[str]:
    """The words LASER scores in ``text``: split on whitespace, tokens made only of punctuation
    and symbols dropped (``words("Hello , world !")`` is ``["Hello", "world"]``); a word keeps
    the punctuation attached to it."""
    return [w for w in text.split() if not all(unicodedata.category(ch)[0] in "PS" for ch in w)]


def utterance_language(ref: str, hyp: str, lang: str | None = None) -> str:
    """``lang`` when given, else the language detected from both sides of one utterance."""
    return lang or detect_language(ref + " " + hyp)


def align_utterance(ref: str, hyp: str, lang: str | None = None) -> tuple[str, list[RubricPair]]:
    """One utterance as the scorer aligns it: its language (``utterance_language``) and its word
    pairs, speech phenomena flagged."""
    language = utterance_language(ref, hyp, lang)
    rw, hw = words(ref), words(hyp)
    return language, flag(rubric_align(rw, hw, equivalent(language)), rw, hw, language)


def align_utterances(
    references: Sequence[str], hypotheses: Sequence[str], ids: Sequence[str], lang: str | None
) -> list[tuple[str, str, list[RubricPair]]]:
    out = []
    for uid, ref, hyp in zip(ids, references, hypotheses):
        try:
            out.append((uid, *align_utterance(ref, hyp, lang)))
        except LineTooLong as e:
            raise in_utterance(e, uid) from None
    return out


def in_utterance(error: LineTooLong, uid: str) -> LineTooLong:
    """A refusal from inside a line (a stretch too long to align) naming the utterance it is in."""
    if error.template.startswith("utterance "):  # it names it already
        return error
    return LineTooLong(f"utterance {shown_id(uid)}: {error.template}", options=error.options)
