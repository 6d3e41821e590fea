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


def words(text: str) -> list[str]:
    return [w for w in text.split() if not all(unicodedata.category(ch)[0] in "PS" for ch in w)]


def align_utterances(
    references: Sequence[str], hypotheses: Sequence[str], ids: Sequence[str], lang: str | None
) -> list[tuple[str, str, list[RubricPair]]]:
    out = []
    for uid, ref, hyp in zip(ids, references, hypotheses):
        language = lang or detect_language(ref + " " + hyp)
        rw, hw = words(ref), words(hyp)
        out.append((uid, language, flag(rubric_align(rw, hw, equivalent(language)), rw, hw, language)))
    return out
