"""Per-language conventions: how annotators apply the rubric, kept as data in the rubric file.

The shipped rubric carries the Hindi conventions of the LASER authors' annotators: which spelling
differences are an accepted *alternate spelling* (vowel length, a dropped nasal sign, ै/े ...),
frequent informal spellings, and the auxiliaries whose agreement slips cost *minor* even inside a
multi-word phrase. Each variant class is a character map; two words are variants of each other
when they are equal after the maps, and :func:`Conventions.variants` names the classes needed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from voxjudge.asr.laser.align import word_key as _plain
from voxjudge.asr.laser.lang import fold


@dataclass(frozen=True)
class VariantClass:
    name: str
    table: tuple[tuple[str, str], ...]  # (from, to), longest first

    def apply(self, word: str) -> str:
        for a, b in self.table:
            word = word.replace(a, b)
        return word


@dataclass(frozen=True)
class Conventions:
    lang: str
    classes: tuple[VariantClass, ...] = ()
    strict: frozenset[str] = frozenset()
    informal: frozenset[frozenset[str]] = frozenset()
    agreement_words: frozenset[str] = frozenset()
    phrase_agreement: str = "major"
    families: tuple[frozenset[str], ...] = ()
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def from_data(cls, lang: str, data: dict | None) -> Conventions:
        if not data:
            return cls(lang)
        classes = tuple(
            VariantClass(
                str(v["name"]),
                tuple(sorted(v["map"].items(), key=lambda kv: -len(kv[0]))),
            )
            for v in data.get("spelling_variants", [])
        )
        return cls(
            lang,
            classes,
            frozenset(data.get("strict_variants", [])),
            frozenset(frozenset(fold(w) for w in pair) for pair in data.get("informal_forms", [])),
            frozenset(fold(w) for w in data.get("agreement_words", [])),
            str(data.get("phrase_agreement", "major")),
            tuple(frozenset(fold(w) for w in fam) for fam in data.get("auxiliary_families", [])),
        )

    def key(self, word: str, skip: str | None = None) -> str:
        multi, table = self._tables(skip)
        w = _strip_markup(_plain(word))
        for a, b in multi:
            if a in w:
                w = w.replace(a, b)
        return w.translate(table)

    def _tables(self, skip: str | None):
        """The classes (but ``skip``) as multi-character replacements plus one translate table;
        single characters map to where the classes, applied in order, would take them."""
        found = self._cache.get(("tables", skip))
        if found is None:
            used = [c for c in self.classes if c.name != skip]
            multi = tuple((a, b) for c in used for a, b in c.table if len(a) > 1)
            singles = {a for c in used for a, _ in c.table if len(a) == 1}
            table = {}
            for ch in singles:
                out = ch
                for c in used:
                    out = c.apply(out)
                table[ord(ch)] = out
            found = self._cache[("tables", skip)] = (multi, table)
        return found

    def variants(self, a: str, b: str) -> tuple[str, ...] | None:
        """The variant classes that make two words equal, or None when they are not variants."""
        cached = self._cache.get((a, b))
        if cached is not None or (a, b) in self._cache:
            return cached
        out: tuple[str, ...] | None = None
        if self.key(a) == self.key(b):
            out = tuple(c.name for c in self.classes if self.key(a, skip=c.name) != self.key(b, skip=c.name))
            if not out and (_strip_markup(a) != a or _strip_markup(b) != b):
                out = ("markup",)
        if len(self._cache) < 200_000:
            self._cache[(a, b)] = out
        return out

    def is_informal(self, a: str, b: str) -> bool:
        return frozenset((fold(a), fold(b))) in self.informal

    def same_auxiliary(self, a: str, b: str) -> bool:
        """Two forms of one auxiliary (है/हैं/हूँ): a person/number/gender slip."""
        fa, fb = fold(a), fold(b)
        return fa != fb and any(fa in fam and fb in fam for fam in self.families)

    def is_agreement_word(self, word: str) -> bool:
        return fold(word) in self.agreement_words


def _strip_markup(word: str) -> str:
    """Latin letters glued to a native-script word (hआपh, sजाएगाs) are transcription markup."""
    if word.isascii() or not any(ch.isascii() and ch.isalpha() for ch in word):
        return word
    stripped = "".join(ch for ch in word if not (ch.isascii() and ch.isalpha()))
    return stripped or word


@lru_cache(maxsize=64)
def conventions_for(lang: str, rubric_path: str | None = None) -> Conventions:
    from voxjudge.asr.laser.rubric import LaserRubric

    return LaserRubric.load(rubric_path).conventions(lang)
