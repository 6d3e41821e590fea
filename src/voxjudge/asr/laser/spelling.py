"""Spelling evidence for the rules judge: is one word another's spelling variant or slip?

British/American spellings, consonant skeletons across scripts (transliteration), stems and their
endings, vowel-length and one-letter slips, accent slips, compounds written as one. Each function
answers one question about two words; ``rules`` decides what the answer is worth.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from operator import ne

from rapidfuzz.fuzz import ratio

from voxjudge.asr.laser.fold import fold
from voxjudge.asr.laser.lang import ENDINGS, is_function_word, script_of

_UK_US = [
    (r"our$", "or"),
    (r"ise$", "ize"),
    (r"ised$", "ized"),
    (r"ising$", "izing"),
    (r"yse$", "yze"),
    (r"tre$", "ter"),
    (r"ogue$", "og"),
    (r"ence$", "ense"),
    (r"lled$", "led"),
    (r"lling$", "ling"),
]
_ITRANS_SCRIPTS = {"deva": "devanagari", "knda": "kannada", "mlym": "malayalam"}
_DIGRAPHS = [
    ("ph", "f"),
    ("th", "t"),
    ("kh", "k"),
    ("gh", "g"),
    ("chh", "c"),
    ("ch", "c"),
    ("jh", "j"),
    ("dh", "d"),
    ("bh", "b"),
    ("sh", "s"),
    ("ck", "k"),
    ("w", "v"),
    ("q", "k"),
    ("x", "ks"),
    ("z", "j"),
    ("c", "k"),
]
# vowel length: long -> short, at the same offsets in the Devanagari, Kannada and Malayalam blocks
_SHORTEN = {}
for _base in (0x0900, 0x0C80, 0x0D00):
    _SHORTEN.update(
        {
            _base + 0x40: chr(_base + 0x3F),
            _base + 0x42: chr(_base + 0x41),
            _base + 0x08: chr(_base + 0x07),
            _base + 0x0A: chr(_base + 0x09),
        }
    )


@lru_cache(maxsize=100_000)
def _plain(word: str) -> str:
    return (
        unicodedata.normalize("NFC", word)
        .casefold()
        .strip("".join(ch for ch in word if unicodedata.category(ch)[0] == "P"))
    )


def _uk_us(a: str, b: str) -> bool:
    if a[:1] != b[:1]:
        return False  # every rewrite in _us_spellings keeps a word's first letter
    return b in _us_spellings(a) or a in _us_spellings(b)


_UK_US_SUBS = [(re.compile(uk).sub, us) for uk, us in _UK_US[1:]]  # compiled once (a lookup per call cost 5%)


@lru_cache(maxsize=100_000)
def _us_spellings(word: str) -> frozenset[str]:
    """What each British->American rewrite makes of a word (once per word, not per pair)."""
    out = {sub(us, word) for sub, us in _UK_US_SUBS}
    if len(word) > 5:  # colour/color, favourite/favorite (not four/for: short words are left alone)
        out.add(word.replace("our", "or"))
    return frozenset(out)


@lru_cache(maxsize=100_000)
def skeleton(word: str) -> str:
    """Consonant skeleton of a word in Latin letters (Indic words transliterated first)."""
    script = script_of(word)
    if script in _ITRANS_SCRIPTS:
        from indic_transliteration import sanscript

        w = fold(word)
        if script == "mlym":
            w = w.replace("\u0d31\u0d4d\u0d31", "\u0d1f\u0d4d\u0d1f")  # റ്റ spells /tt/ in loan words
        text = sanscript.transliterate(w, _ITRANS_SCRIPTS[script], sanscript.ITRANS)
    else:
        text = word
    s = re.sub(r"[^a-z]", "", text.lower())
    for a, b in _DIGRAPHS:
        s = s.replace(a, b)
    if not s:
        return ""
    body = re.sub(r"[aeiouyh]", "", s[1:])
    s = re.sub(r"(.)\1+", r"\1", s[0] + body)
    return re.sub(r"m(?=[kgcjtd])", "n", s)  # a nasal takes the place of the next consonant (anusvara)


def _transliterated(a: str, b: str) -> bool:
    ka, kb = skeleton(a), skeleton(b)
    return len(ka) >= 2 and len(kb) >= 2 and (ka == kb or ratio(ka, kb) >= 80)


IRREGULAR_EN = [
    {"be", "am", "is", "are", "was", "were", "been"},
    {"have", "has", "had"},
    {"do", "does", "did"},
    {"go", "goes", "went", "gone"},
    {"child", "children"},
    {"man", "men"},
    {"woman", "women"},
    {"person", "people"},
    {"foot", "feet"},
    {"tooth", "teeth"},
    {"mouse", "mice"},
    {"this", "these"},
    {"that", "those"},
    {"come", "came"},
    {"take", "took", "taken"},
    {"give", "gave", "given"},
    {"see", "saw", "seen"},
    {"say", "said"},
    {"make", "made"},
    {"get", "got"},
    {"know", "knew", "known"},
]


@lru_cache(maxsize=200_000)
def _stems(word: str, lang: str) -> frozenset[str]:
    """The word and what is left after removing one inflection ending (an ending may be empty)."""
    if lang == "en":  # close/closed/closes/closing, light/lights
        stem = _EN_ENDING.sub("", word) if len(word) > 4 else word
        stems = {word, stem[:-1] if stem.endswith("e") and len(stem) > 3 else stem}
        stems |= {f"irregular:{k}" for k, forms in enumerate(IRREGULAR_EN) if word in forms}
        return frozenset(stems)
    # Indic stems can be a single consonant (गया/गई/गए, का/की/के); French ones are 3+ letters (not le/les)
    least = 3 if lang == "fr" else 1
    return frozenset(
        {word} | {word[: -len(e)] for e in ENDINGS.get(lang, []) if word.endswith(e) and len(word) - len(e) >= least}
    )


_EN_ENDING = re.compile(r"(ing|ed|es|s|d)$")


def same_stem(a: str, b: str, lang: str) -> bool:
    """Two forms of one word with another inflection ending (both folded already)."""
    sa, sb = _stems(a, lang), _stems(b, lang)
    if sa.isdisjoint(sb):  # most pairs: no set built
        return False
    if lang != "en":
        return True
    # in English one side must carry an ending (close/closed, make/making): two bare words that
    # differ by a final e are two words (gene/gen), unless they are listed irregular forms
    inflected = any(len(w) > 4 and _EN_ENDING.search(w) for w in (a, b))
    return inflected or any(k.startswith("irregular:") for k in sa & sb)


def _stem(word: str, lang: str) -> str:
    """One representative stem (the shortest), for features."""
    return min(_stems(word, lang), key=len)


def _vowel_length_only(a: str, b: str) -> bool:
    if a.isascii() and b.isascii():
        return False  # no vowel sign to shorten: nothing to translate
    return a != b and a.translate(_SHORTEN) == b.translate(_SHORTEN)


def _english_slip(a: str, b: str) -> bool:
    """A doubled or transposed letter in Latin-script words (occured/occurred, installé/installlé)."""
    if min(len(a), len(b)) < 4 or script_of(a) != "latn" or script_of(b) != "latn":
        return False
    if _undoubled(a) == _undoubled(b):
        return True  # a doubled letter: occured / occurred
    if len(a) == len(b) and sum(map(ne, a, b)) == 2:  # counted in C before positions are listed
        diff = [k for k in range(len(a)) if a[k] != b[k]]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    return False


_DOUBLED = re.compile(r"(.)\1+")


@lru_cache(maxsize=100_000)
def _undoubled(word: str) -> str:
    return _DOUBLED.sub(r"\1", word)


def _name_like(word: str, lang: str) -> bool:
    """Capitalised, and neither a function word nor a contraction: the capital of a sentence's
    first word (I'll, We're) is no sign of a name."""
    if not word[:1].isupper():
        return False  # most words: no fold looked up
    w = fold(word)
    return not is_function_word(w, lang) and "'" not in w and "\u2019" not in w


@lru_cache(maxsize=100_000)
def _strip_accents(word: str) -> str:
    bare = "".join(ch for ch in unicodedata.normalize("NFD", word) if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", bare)


def _accent_slip(a: str, b: str, lang: str) -> bool:
    """Latin-script words that differ only in accents (pole/pôle, événement/évènement), or in
    accents and a doubled letter (décidemment/décidément); not two function words (à/a, ou/où
    are two words)."""
    if a == b or (a.isascii() and b.isascii()):
        return False  # plain ASCII words carry no accent
    if script_of(a) != "latn" or script_of(b) != "latn":
        return False
    if is_function_word(a, lang) and is_function_word(b, lang):
        return False
    sa, sb = _strip_accents(a), _strip_accents(b)
    return (sa != a or sb != b) and (sa == sb or _english_slip(sa, sb))


def joined(words: tuple[str, ...]) -> str:
    """The words folded and written as one, without hyphens or apostrophes: hawk-eagle, hawk eagle
    and hawkeagle; aujourd'hui and aujourd' hui."""
    return joined_word(words[0]) if len(words) == 1 else "".join(map(joined_word, words))


@lru_cache(maxsize=200_000)
def joined_word(word: str) -> str:
    """One word folded, without hyphens or apostrophes (what it adds to ``joined``)."""
    return fold(word).replace("-", "").replace("'", "").replace("\u2019", "")
