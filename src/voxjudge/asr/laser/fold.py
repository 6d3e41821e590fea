"""The spelling fold: what two spellings of one word keep in common, in any script.

It stands below the language lists, the word frequencies and the language detection, which all
look words up by their fold (a module of its own so that none of them has to import another for it).
The script fold is the shared Indic one (``voxjudge.asr.lang.indic``); LASER adds Unicode
compatibility forms (NFKC), case, edge punctuation, Arabic tashkeel and tatweel, candra vowels in
loan words and the Hindi य-glide spellings on top.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from voxjudge.asr.lang.indic import fold as indic_fold

# Arabic short vowels, tanwin, shadda, sukun, dagger alef, Quranic marks and tatweel: readers
# take a word with and without them as the same word (most ASR output has none)
_ARABIC_MARKS = dict.fromkeys(
    [*range(0x064B, 0x0660), 0x0670, *range(0x06D6, 0x06DD), *range(0x06DF, 0x06E5), 0x06E7, 0x06E8]
    + [*range(0x06EA, 0x06EE), 0x0640],
    None,
)
# ... and the hamza's seat on an alef (أ إ آ ٱ -> ا): writers and ASR systems drop or move it
# freely (اريد/أريد, الاختصار/الإختصار); the same word to a reader
_ARABIC_MARKS.update({0x0623: "ا", 0x0625: "ا", 0x0622: "ا", 0x0671: "ا"})


# English loan words: candra o / candra e are written either way (डॉक्टर/डाक्टर, ऑटो/आटो)
_CANDRA = str.maketrans({0x0949: "\u093e", 0x0911: "\u0906", 0x0945: "\u0947", 0x090D: "\u090f"})
# य-glide spellings: गयी/गई, लिये/लिए, जायेगा/जाएगा (not word-initial, not after a virama)
_YA_GLIDE = re.compile("(?<=[\u0901-\u094c])य([ीे])")


def strip_edges(word: str, keep: frozenset[str] = frozenset()) -> str:
    """The word without punctuation and spaces at its edges, but the characters in ``keep``."""
    start, end = 0, len(word)
    while start < end and unicodedata.category(word[start])[0] in "PZ" and word[start] not in keep:
        start += 1
    while end > start and unicodedata.category(word[end - 1])[0] in "PZ" and word[end - 1] not in keep:
        end -= 1
    return word[start:end]


@lru_cache(maxsize=200_000)
def fold(word: str) -> str:
    """Spelling fold: NFKC (compatibility forms: ligatures, full-width and presentation forms),
    case, edge punctuation, Arabic tashkeel, tatweel and hamza seats on alef, ZWJ/ZWNJ, nukta, chandrabindu, homorganic
    nasal + virama -> anusvara, Malayalam chillu, Hindi य-glide spellings (गयी/गई, लिये/लिए)."""
    w = unicodedata.normalize("NFKC", word).casefold()
    if any("\u0600" <= ch <= "\u06ff" for ch in w):
        w = unicodedata.normalize("NFC", w.translate(_ARABIC_MARKS))
    w = strip_edges(w)
    w = unicodedata.normalize("NFC", indic_fold(w).translate(_CANDRA))
    return _YA_GLIDE.sub(lambda m: {"ी": "ई", "े": "ए"}[m.group(1)], w)


__all__ = ["fold", "strip_edges"]
