"""Is a word a word of the language? Word frequencies from ``wordfreq``, for the learned judge.

A mismatch between two words that both occur in the language (सामान/समान, मैं/में) is usually
a different word, while one side that no corpus knows (हेअर beside हेयर, स्टोबेरी beside
स्ट्रॉबेरी) is usually a spelling of the other. The annotators draw that line; the learned model
gets the frequencies as features. wordfreq ships its lists inside the package (no download);
languages it does not cover get 0 (unknown) for every word.
"""

from __future__ import annotations

import math
from functools import lru_cache

from voxjudge.asr.laser.fold import fold

KNOWN_ZIPF = 1.5  # Zipf scale: 1.5 is about once in 30 million words


@lru_cache(maxsize=16)
def _frequencies(lang: str) -> dict[str, float]:
    import wordfreq

    if lang not in wordfreq.available_languages():
        return {}
    return wordfreq.get_frequency_dict(lang)


def zipf(word: str, lang: str) -> float:
    """The word's Zipf frequency (log10 of uses per billion words; 0 when unknown)."""
    freq = _frequencies(lang)
    f = freq.get(word) or freq.get(fold(word))
    return math.log10(f * 1e9) if f else 0.0


def is_known(word: str, lang: str) -> bool:
    return zipf(word, lang) >= KNOWN_ZIPF


__all__ = ["KNOWN_ZIPF", "is_known", "zipf"]
