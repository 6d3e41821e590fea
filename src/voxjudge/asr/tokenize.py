"""Turn normalized text into the units an error rate counts: words, code points or graphemes.

Two splitting conventions are offered:

* ``unicode`` (default): words are separated by any run of Unicode whitespace (``str.split()``),
  so tabs, newlines, NBSP-like spaces and ideographic spaces all separate words. For character
  units, whitespace runs collapse to a single space and the ends are stripped.
* ``jiwer``: exactly jiwer 4.0's default transforms. Runs of two or more whitespace characters
  become one space, the ends are stripped, and words are split on the ASCII space only -- so a
  single tab or NBSP does *not* separate words. For characters, only the ends are stripped.

On text whose words are separated by single ASCII spaces the two conventions agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Unit = Literal["word", "char", "grapheme"]
Split = Literal["unicode", "jiwer"]
UNITS: tuple[str, ...] = ("word", "char", "grapheme")
SPLITS: tuple[str, ...] = ("unicode", "jiwer")

_JIWER_MULTISPACE = re.compile(r"\s\s+")
_grapheme_pattern = None


def graphemes(text: str) -> list[str]:
    """Extended grapheme clusters (what a reader sees as one character), via the regex module."""
    global _grapheme_pattern
    if _grapheme_pattern is None:
        import regex

        _grapheme_pattern = regex.compile(r"\X")
    return _grapheme_pattern.findall(text)


def collapse_whitespace(text: str) -> str:
    """The code points counted by default: the words joined by single spaces."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Tokenizer:
    """Split a (normalized) string into a sequence of units.

    Words and graphemes come back as lists of strings; code points come back as the string
    itself (a sequence of one-character strings, which the aligner handles fastest).
    """

    unit: Unit = "word"
    split: Split = "unicode"

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"unknown unit {self.unit!r}; choose one of {', '.join(UNITS)}")
        if self.split not in SPLITS:
            raise ValueError(f"unknown split {self.split!r}; choose one of {', '.join(SPLITS)}")

    def __call__(self, text: str) -> Sequence[str]:
        return self.function()(text)

    def function(self) -> Callable[[str], Sequence[str]]:
        """The plain splitting function, resolved once so hot loops skip the dispatch."""
        if self.split == "jiwer":
            if self.unit == "word":
                return lambda t: [w for w in _JIWER_MULTISPACE.sub(" ", t).strip().split(" ") if w]
            if self.unit == "char":
                return str.strip
            return lambda t: graphemes(t.strip())
        if self.unit == "word":
            return str.split
        if self.unit == "char":
            return collapse_whitespace
        return lambda t: graphemes(" ".join(t.split()))

    def join(self, tokens: Sequence[str]) -> str:
        """Inverse of splitting, for display."""
        return " ".join(tokens) if self.unit == "word" else "".join(tokens)
