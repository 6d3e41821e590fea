"""Devanagari fold: map spelling variants that readers of Hindi and Marathi accept as one form.

Applied to both reference and hypothesis, so it only ever removes distinctions, never adds them:

* nukta: ``क़ ख़ ग़ ज़ ड़ ढ़ फ़ य़ ऩ ऱ ऴ`` (precomposed or with U+093C) lose the nukta;
* chandrabindu ``ँ`` becomes anusvara ``ं``;
* a nasal consonant + virama before a stop of its own class becomes anusvara
  (``हिन्दी`` → ``हिंदी``, ``सम्बन्ध`` → ``संबंध``, ``गङ्गा`` → ``गंगा``); other clusters such as
  ``अन्य`` are left alone because there the anusvara spelling is not an accepted variant;
* zero-width joiner and non-joiner are removed; no-break spaces become ordinary spaces.

It is the Devanagari part of the shared Indic fold (``voxjudge.asr.lang.indic``).
"""

from __future__ import annotations

from voxjudge.asr.lang.indic import ScriptFold

fold = ScriptFold(("deva",))
fold.__doc__ = "Fold Devanagari spelling variants (see the module docstring). Other scripts pass through."
