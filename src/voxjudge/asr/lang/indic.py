"""Spelling folds shared by the Devanagari, Kannada and Malayalam scripts.

Their Unicode blocks keep one layout (ISCII heritage): the same offset is the same letter, so
one table serves all three. The fold only removes distinctions readers accept as spelling
variants: nukta, chandrabindu -> anusvara, a nasal consonant + virama before a stop of its own
class -> anusvara, Malayalam chillu letters -> consonant + virama, zero-width (non-)joiners, and
no-break spaces. Other scripts pass through.
"""

from __future__ import annotations

import re

BLOCKS = {"deva": 0x0900, "knda": 0x0C80, "mlym": 0x0D00}
NUKTA, VIRAMA, ANUSVARA, CHANDRABINDU = 0x3C, 0x4D, 0x02, 0x01  # offsets inside a block
# Each nasal with the stops of its own class (velar, palatal, retroflex, dental, labial).
HOMORGANIC = {
    0x19: range(0x15, 0x19),
    0x1E: range(0x1A, 0x1E),
    0x23: range(0x1F, 0x23),
    0x28: range(0x24, 0x28),
    0x2E: range(0x2A, 0x2E),
}
_DEVA_NUKTA_LETTERS = {
    0x29: 0x28,
    0x31: 0x30,
    0x34: 0x33,
    0x58: 0x15,
    0x59: 0x16,
    0x5A: 0x17,
    0x5B: 0x1C,
    0x5C: 0x21,
    0x5D: 0x22,
    0x5E: 0x2B,
    0x5F: 0x2F,
}  # क़ ख़ ग़ ज़ ड़ ढ़ फ़ य़ ऩ ऱ ऴ
CHILLU = {  # atomic chillu -> consonant + virama (semdist reads the old spelling with it)
    "\u0d7a": "\u0d23\u0d4d",
    "\u0d7b": "\u0d28\u0d4d",
    "\u0d7c": "\u0d30\u0d4d",
    "\u0d7d": "\u0d32\u0d4d",
    "\u0d7e": "\u0d33\u0d4d",
    "\u0d7f": "\u0d15\u0d4d",
}


class ScriptFold:
    def __init__(self, scripts: tuple[str, ...]):
        table: dict[int, str | None] = {0x200C: None, 0x200D: None, 0x00A0: " ", 0x202F: " ", 0x2007: " "}
        rules = []
        for name in scripts:
            base = BLOCKS[name]
            table[base + NUKTA] = None
            table[base + CHANDRABINDU] = chr(base + ANUSVARA)
            for nasal, stops in HOMORGANIC.items():
                cls = "".join(chr(base + s) for s in stops)
                rules.append(f"{chr(base + nasal)}{chr(base + VIRAMA)}(?=[{cls}])")
        if "deva" in scripts:
            table.update({0x0900 + src: chr(0x0900 + dst) for src, dst in _DEVA_NUKTA_LETTERS.items()})
        if "mlym" in scripts:
            table.update({ord(c): full for c, full in CHILLU.items()})
        self.table = table
        self.nasals = re.compile("|".join(rules))

    def __call__(self, text: str) -> str:
        # the blocks are 0x80-aligned: a letter's block base is its code point with the low 7 bits cleared
        return self.nasals.sub(lambda m: chr((ord(m.group(0)[0]) & ~0x7F) + ANUSVARA), text.translate(self.table))


fold = ScriptFold(tuple(BLOCKS))
