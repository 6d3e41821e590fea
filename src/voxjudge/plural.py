"""Counts in words: ``counted(1, "annotator")`` is "1 annotator", ``counted(3, "annotator")`` is
"3 annotators". One helper for every message, table and report, library and command line alike."""

from __future__ import annotations

# nouns whose plural is not the noun + "s"
_IRREGULAR = {
    "child": "children",
    "hypothesis": "hypotheses",
    "analysis": "analyses",
    "entry": "entries",
    "datum": "data",
}


def plural(noun: str) -> str:
    """The plural of ``noun`` (its last word is inflected: "abstained cell" -> "abstained cells")."""
    head, _, last = noun.rpartition(" ")
    if last in _IRREGULAR:
        word = _IRREGULAR[last]
    elif last.endswith(("s", "x", "ch", "sh")):
        word = last + "es"
    elif last.endswith("y") and len(last) > 1 and last[-2] not in "aeiou":
        word = last[:-1] + "ies"
    else:
        word = last + "s"
    return f"{head} {word}" if head else word


def counted(n: int | float, noun: str, plural_form: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one: "1 pair", "0 pairs", "2 pairs"."""
    number = str(n) if isinstance(n, int) else f"{n:g}"
    return f"{number} {noun if n == 1 else (plural_form or plural(noun))}"


__all__ = ["counted", "plural"]
