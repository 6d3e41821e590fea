"""The splitting function of each unit the counting loop is asked for ("word", "char"), and the
exact variant it falls back to when rapidfuzz's token keys collide."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

from voxjudge.asr.tokenize import Tokenizer

# Marks the character unit of the default splitting: the words joined by single spaces, which is
# what " ".join(text.split()) gives, without splitting the text a second time.
JOINED_WORDS = "joined words"


def unit_functions(units: Sequence[str], split: str, char_unit: str) -> dict:
    """``{unit: splitting function}`` for the units asked; ``char`` may be ``JOINED_WORDS``."""
    out: dict = {}
    if "word" in units:
        out["word"] = Tokenizer("word", split).function()  # type: ignore[arg-type]
    if "char" in units:
        joined = "word" in units and split == "unicode" and char_unit == "char"
        out["char"] = JOINED_WORDS if joined else Tokenizer(char_unit, split).function()  # type: ignore[arg-type]
    return out


# Every character str.split() splits at, but the space (tests check the list).
OTHER_WHITESPACE = tuple(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def single_spaced(texts: list[str]) -> bool:
    """Whether every text is already its words joined by single spaces (``" ".join(t.split()) ==
    t``), so that it is its own character string. Checked on a chunk at once, in C: joined by a
    space (empty texts left out), a space at either end of a text or a doubled one shows as a
    doubled space or at either end; then no other whitespace may occur (one fast search per
    character, and none for characters wider than the text's)."""
    joined = " ".join(filter(None, texts))
    if "  " in joined or joined[:1] == " " or joined[-1:] == " ":
        return False
    return not any(map(joined.__contains__, OTHER_WHITESPACE))


# rapidfuzz compares list elements by a 64-bit key: the code point of a one-character string,
# else its Python hash. That is exact unless two distinct tokens share a key, so the counting
# loop collects the vocabulary of the token lists it aligns and checks it; in the (astronomically
# rare) event of a collision the corpus is recounted through an integer vocabulary, exact by
# construction. Strings (code points) are compared as they are.
_UINT64 = (1 << 64) - 1


def rapidfuzz_key(token: str) -> int:
    return ord(token) if len(token) == 1 else hash(token) & _UINT64


def keys_collide(vocabulary: set[str]) -> bool:
    return len({rapidfuzz_key(w) for w in vocabulary}) != len(vocabulary)


def exact_units(units: dict) -> dict:
    """The same units with token lists mapped to integers (exact keys for rapidfuzz)."""
    to_ints = defaultdict(itertools.count().__next__).__getitem__
    out = {}
    for unit, split in units.items():
        if split is JOINED_WORDS:
            out[unit] = Tokenizer("char").function()
        elif isinstance(split("a b"), str):
            out[unit] = split
        else:
            out[unit] = _mapped(split, to_ints)
    return out


def _mapped(split, to_ints):
    return lambda t: list(map(to_ints, split(t)))
