"""Devanagari fold: map spelling variants that readers of Hindi and Marathi accept as one form.

Applied to both reference and hypothesis, so it only ever removes distinctions, never adds them:

* nukta: ``क़ ख़ ग़ ज़ ड़ ढ़ फ़ य़ ऩ ऱ ऴ`` (precomposed or with U+093C) lose the nukta;
* chandrabindu ``ँ`` becomes anusvara ``ं``;
* a nasal consonant + virama before a stop of its own class becomes anusvara
  (``हिन्दी`` → ``हिंदी``, ``सम्बन्ध`` → ``संबंध``, ``गङ्गा`` → ``गंगा``); other clusters such as
  ``अन्य`` are left alone because there the anusvara spelling is not an accepted variant;
* zero-width joiner and non-joiner are removed; no-break spaces become ordinary spaces.
"""

from __future__ import annotations

import re

NUKTA = "\u093c"
VIRAMA = "\u094d"
ANUSVARA = "\u0902"
CHANDRABINDU = "\u0901"

_TABLE = str.maketrans(
    {
        "\u0929": "\u0928",  # ऩ -> न
        "\u0931": "\u0930",  # ऱ -> र
        "\u0934": "\u0933",  # ऴ -> ळ
        "\u0958": "\u0915",  # क़ -> क
        "\u0959": "\u0916",  # ख़ -> ख
        "\u095a": "\u0917",  # ग़ -> ग
        "\u095b": "\u091c",  # ज़ -> ज
        "\u095c": "\u0921",  # ड़ -> ड
        "\u095d": "\u0922",  # ढ़ -> ढ
        "\u095e": "\u092b",  # फ़ -> फ
        "\u095f": "\u092f",  # य़ -> य
        NUKTA: None,
        CHANDRABINDU: ANUSVARA,
        "\u200c": None,  # zero-width non-joiner
        "\u200d": None,  # zero-width joiner
        "\u00a0": " ",  # no-break space
        "\u202f": " ",  # narrow no-break space
        "\u2007": " ",  # figure space
    }
)

# Each nasal with the stops of its own class (velar, palatal, retroflex, dental, labial).
_HOMORGANIC = re.compile("ङ्(?=[कखगघ])|ञ्(?=[चछजझ])|ण्(?=[टठडढ])|न्(?=[तथदध])|म्(?=[पफबभ])")


def fold(text: str) -> str:
    """Fold Devanagari spelling variants (see module docstring). Other scripts pass through."""
    return _HOMORGANIC.sub(ANUSVARA, text.translate(_TABLE))
