"""Phonetic and orthographic evidence for a mismatched word pair.

Phonemes come from espeak-ng through ``phonemizer``, with the library and voice data that ship in
the ``espeakng-loader`` wheel (pip alone; no system package, no download). They are cached per
(voice, word) and asked for in batches (:func:`prefetch`): one phonemizer call costs ~0.4 ms per
word alone and ~0.2 ms per word in a batch. The character distance (rapidfuzz, on the spelling
fold) sits beside it. Words are phonemized after the spelling fold, so an Arabic word with and
without its tashkeel is read the same way.

``evidence(a, b, lang)`` returns both similarities and the phoneme strings; the rules turn them
into a tier with a reason that names them (``rules.py``). A language espeak-ng has no voice for
(and ``und``) has character evidence only, and says so in the reason.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from voxjudge.asr.laser.fold import fold

# espeak voices for codes whose voice has another name (the rest: the code itself, or its first
# regional voice: 'de' -> de, 'pt' -> pt, 'fr' -> fr-fr)
_VOICE = {"en": "en-us", "fr": "fr-fr", "zh": "cmn", "nb": "nb", "no": "nb", "fa": "fa", "ms": "ms"}
# marks that carry stress, length or syllable breaks, not which sounds were said
_PROSODIC = dict.fromkeys(map(ord, "ˈˌːˑ‿.-_ "), None)
_lock = threading.Lock()
_cache: dict[tuple[str, str], str] = {}
_MAX_CACHE = 500_000


@lru_cache(maxsize=1)
def _espeak():
    """phonemizer's backend class, pointed at espeakng-loader's library and data (once)."""
    import espeakng_loader
    from phonemizer.backend import EspeakBackend
    from phonemizer.backend.espeak.wrapper import EspeakWrapper

    EspeakWrapper.set_library(espeakng_loader.get_library_path())
    EspeakWrapper.set_data_path(espeakng_loader.get_data_path())
    return EspeakBackend


@lru_cache(maxsize=1)
def _voices() -> frozenset[str]:
    return frozenset(_espeak().supported_languages())


@lru_cache(maxsize=256)
def voice_for(lang: str) -> str | None:
    """The espeak-ng voice for a language code, or None when it has none."""
    if not lang or lang == "und":
        return None
    voices = _voices()
    for v in (_VOICE.get(lang), lang):
        if v and v in voices:
            return v
    regional = sorted(v for v in voices if v.startswith(lang + "-"))
    return regional[0] if regional else None


@lru_cache(maxsize=64)
def _backend(voice: str):
    quiet = logging.getLogger("voxjudge.phonemizer")
    quiet.setLevel(logging.ERROR)
    return _espeak()(voice, language_switch="remove-flags", logger=quiet)


_key = fold  # what a word is phonemized as: its spelling fold


def prefetch(words, lang: str) -> None:
    """Phonemize every word not yet cached, in one batch (call before labelling many pairs)."""
    voice = voice_for(lang)
    if voice is None:
        return
    todo = sorted({k for k in map(_key, words) if k and (voice, k) not in _cache})
    if not todo:
        return
    with _lock:
        out = _backend(voice).phonemize(todo, strip=True, njobs=1)
        if len(_cache) + len(todo) > _MAX_CACHE:
            _cache.clear()
        for k, p in zip(todo, out):
            _cache[(voice, k)] = p


def prefetch_items(items) -> None:
    """Phonemize, one batch per language, every word of the mismatched pairs of a labeler's
    (id, pair, lang) items."""
    by_lang: dict[str, set[str]] = {}
    for _, pair, lang in items:
        if pair.op in ("substitute", "merge") and pair.ref and pair.hyp:
            by_lang.setdefault(lang, set()).update(pair.ref, pair.hyp)
    for lang, words in by_lang.items():
        prefetch(words, lang)


def phonemes(word: str, lang: str) -> str | None:
    """The word's phonemes (IPA, with stress and length marks), or None without a voice."""
    voice = voice_for(lang)
    return None if voice is None else _voiced(word, voice, lang)


def _voiced(word: str, voice: str, lang: str) -> str | None:
    """``phonemes`` once the voice is known (``evidence`` asks for two sides under one voice)."""
    key = (voice, _key(word))
    found = _cache.get(key)
    if found is None:
        prefetch([word], lang)
        found = _cache.get(key)
    return found


def _said(words: tuple[str, ...], voice: str, lang: str) -> str:
    """The phonemes of a side's words, read as one phrase ('' when none)."""
    if len(words) == 1:
        return _voiced(words[0], voice, lang) or ""
    return " ".join(p for p in (_voiced(w, voice, lang) for w in words) if p)


def _spelled(words: tuple[str, ...]) -> str:
    """A side's folded words written as one (one word: its fold, no join)."""
    return fold(words[0]) if len(words) == 1 else "".join(map(fold, words))


@lru_cache(maxsize=100_000)
def bare(ipa: str) -> str:
    """Phonemes without stress, length and syllable marks (what tells two words apart)."""
    return unicodedata.normalize("NFC", ipa).translate(_PROSODIC)


@dataclass(frozen=True, init=False)
class Evidence:
    ipa_ref: str | None  # None: no voice for the language
    ipa_hyp: str | None
    sound: float | None  # normalized similarity of the bare phonemes, 0..1
    look: float  # normalized similarity of the folded spellings, 0..1

    def __init__(self, ipa_ref: str | None, ipa_hyp: str | None, sound: float | None, look: float):
        d = self.__dict__  # one per labelled pair: no frozen-dataclass __setattr__ per field
        d["ipa_ref"], d["ipa_hyp"], d["sound"], d["look"] = ipa_ref, ipa_hyp, sound, look

    @property
    def alike(self) -> bool:
        return self.sound is not None and self.sound == 1.0 and bool(self.ipa_ref)

    def sounds(self) -> str:
        if self.ipa_ref is None:
            return "no phonemes for this language"
        return f"/{self.ipa_ref}/ ~ /{self.ipa_hyp}/"

    def describe(self) -> str:
        sound = "" if self.sound is None else f"sound {self.sound:.0%} alike {self.sounds()}, "
        return f"{sound}spelling {self.look:.0%} alike"


def evidence(ref: tuple[str, ...], hyp: tuple[str, ...], lang: str) -> Evidence:
    """How alike two sides sound and look (words of a side are read as one phrase)."""
    fr, fh = _spelled(ref), _spelled(hyp)
    look = Levenshtein.normalized_similarity(fr, fh)
    voice = voice_for(lang)
    if voice is None:
        return Evidence(None, None, None, look)
    pr, ph = _said(ref, voice, lang), _said(hyp, voice, lang)
    br, bh = bare(pr), bare(ph)
    sound = Levenshtein.normalized_similarity(br, bh) if (br or bh) else 0.0
    return Evidence(pr, ph, sound, look)


def word_evidence(a: str, b: str, fa: str, fb: str, lang: str) -> Evidence:
    """``evidence((a,), (b,), lang)`` for one word a side whose folds ``fa``, ``fb`` are known (the
    common pair: no per-side joins, each fold computed once)."""
    look = Levenshtein.normalized_similarity(fa, fb)
    voice = voice_for(lang)
    if voice is None:
        return Evidence(None, None, None, look)
    pa, pb = _cache.get((voice, fa)), _cache.get((voice, fb))
    pa = (_voiced(a, voice, lang) if pa is None else pa) or ""
    pb = (_voiced(b, voice, lang) if pb is None else pb) or ""
    ba, bb = bare(pa), bare(pb)
    sound = Levenshtein.normalized_similarity(ba, bb) if (ba or bb) else 0.0
    return Evidence(pa, pb, sound, look)


__all__ = ["Evidence", "bare", "evidence", "word_evidence", "phonemes", "prefetch", "prefetch_items", "voice_for"]
