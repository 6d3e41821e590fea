"""Text normalization as a composable pipeline of named steps, with named presets.

A spec is a preset name (``basic``) or steps joined by ``+`` (``nfkc+casefold+punct+whitespace``);
presets may appear inside a spec too (``basic+devanagari``). The same spec always gives the same
pipeline, and its name is recorded in results so a number can be traced to its normalization.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from voxjudge.errors import InputError

Step = Callable[[str], str]

_KALDI_NONWORDS = re.compile(r"[<\[][^>\]]*[>\]]")  # jiwer's RemoveKaldiNonWords
_punct_pattern = None
_symbol_pattern = None


def _strip_punct(text: str) -> str:
    """Unicode punctuation (category P) becomes a space, except an apostrophe inside a word."""
    global _punct_pattern
    if _punct_pattern is None:
        import regex

        _punct_pattern = regex.compile(r"(?![\'\u2019](?<=[\p{L}\p{M}][\'\u2019])(?=\p{L}))\p{P}")
    return _punct_pattern.sub(" ", text)


def _strip_symbols(text: str) -> str:
    """Unicode symbols (category S: currency, math, emoji...) become a space."""
    global _symbol_pattern
    if _symbol_pattern is None:
        import regex

        _symbol_pattern = regex.compile(r"\p{S}")
    return _symbol_pattern.sub(" ", text)


def _devanagari(text: str) -> str:
    from voxjudge.asr.lang.devanagari import fold

    return fold(text)


def _strip_marks(text: str) -> str:
    """Every combining mark (Unicode category Mn) dropped after NFKD, then NFC: Arabic tashkeel and
    the hamza written on a seat, Latin accents. What Whisper's normaliser does to remove
    diacritics; not for Indic scripts, whose vowel signs are marks too."""
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn"))


STEPS: dict[str, tuple[Step, str]] = {
    "nfc": (lambda t: unicodedata.normalize("NFC", t), "Unicode NFC composition"),
    "nfkc": (lambda t: unicodedata.normalize("NFKC", t), "Unicode NFKC (compatibility) composition"),
    "nfd": (lambda t: unicodedata.normalize("NFD", t), "Unicode NFD decomposition"),
    "lower": (str.lower, "lower case"),
    "casefold": (str.casefold, "aggressive case folding (ß -> ss)"),
    "punct": (_strip_punct, "punctuation -> space, keeping apostrophes inside words"),
    "symbols": (_strip_symbols, "symbols (currency, math, emoji) -> space"),
    "kaldi-nonwords": (lambda t: _KALDI_NONWORDS.sub("", t), "drop [noise] and <unk> style tokens"),
    "devanagari": (_devanagari, "fold Devanagari spelling variants (nukta, chandrabindu, nasals, ZWJ/ZWNJ, NBSP)"),
    "marks": (
        _strip_marks,
        "combining marks dropped (Arabic tashkeel and hamza seats, accents; do not use on Indic "
        "scripts: it drops their vowel signs, virama and anusvara)",
    ),
    "tatweel": (lambda t: t.replace("\u0640", ""), "Arabic tatweel (elongation) dropped"),
    "whitespace": (lambda t: " ".join(t.split()), "collapse whitespace runs, strip the ends"),
}

PRESETS: dict[str, tuple[str, ...]] = {
    "none": (),
    "basic": ("nfc", "lower", "punct", "whitespace"),
    "strict": ("nfkc", "casefold", "kaldi-nonwords", "punct", "symbols", "whitespace"),
    "hindi": ("nfc", "lower", "punct", "devanagari", "whitespace"),
    "marathi": ("nfc", "lower", "punct", "devanagari", "whitespace"),
    # Arabic written with and without tashkeel is the same text to a reader (and to LASER's fold)
    "arabic": ("nfkc", "lower", "punct", "marks", "tatweel", "whitespace"),
}


@dataclass(frozen=True)
class Normalizer:
    """A callable pipeline of named steps; ``name`` is the spec it was built from."""

    name: str
    steps: tuple[str, ...]

    def __call__(self, text: str) -> str:
        for step in self.steps:
            text = STEPS[step][0](text)
        return text


def get_normalizer(spec: str | None) -> Normalizer | None:
    """Build a pipeline from a preset name or ``+``-joined step names; ``none`` gives None."""
    if spec is None or spec.strip() in ("", "none"):
        return None
    steps: list[str] = []
    for part in spec.replace(",", "+").split("+"):
        part = part.strip().lower()
        if part in PRESETS:
            steps.extend(PRESETS[part])
        elif part in STEPS:
            steps.append(part)
        else:
            raise InputError(
                f"unknown normalization {part!r} in {spec!r}; presets: {', '.join(PRESETS)}; steps: {', '.join(STEPS)}"
            )
    return Normalizer(spec, tuple(steps))


def describe() -> str:
    """Human-readable list of presets and steps, for --help."""
    lines = ["presets:"]
    lines += [f"  {name:<16} {' + '.join(steps) or '(no change)'}" for name, steps in PRESETS.items()]
    lines.append("steps:")
    lines += [f"  {name:<16} {doc}" for name, (_, doc) in STEPS.items()]
    return "\n".join(lines)
