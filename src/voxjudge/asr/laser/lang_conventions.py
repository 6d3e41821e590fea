"""Per-language conventions: how annotators apply the rubric, kept as data in the rubric file.

The shipped rubric carries the Hindi conventions of the LASER authors' annotators: which spelling
differences are an accepted *alternate spelling* (vowel length, a dropped nasal sign, ै/े ...),
frequent informal spellings, the auxiliaries whose agreement slips cost *minor* even inside a
multi-word phrase, verb endings that say the same in another register (जाकर/जाके) and synonyms
(minor for these annotators). Each variant class is a character map; two words are variants of each other
when they are equal after the maps, and :func:`Conventions.variants` names the classes needed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from functools import cached_property

from voxjudge.asr.laser.align import word_key as _plain
from voxjudge.asr.laser.lang import fold, fold_phrase
from voxjudge.asr.laser.profiles import word_script


@dataclass(frozen=True)
class VariantClass:
    name: str
    table: tuple[tuple[str, str], ...]  # (from, to), longest first

    def apply(self, word: str) -> str:
        for a, b in self.table:
            word = word.replace(a, b)
        return word


@dataclass(frozen=True)
class EndingGroup:
    """Endings that make the same verb form in another register (जाकर/जाके, समझिए/समझें)."""

    name: str
    endings: tuple[str, ...]  # longest first
    min_stem: int

    def stem(self, word: str) -> str | None:
        for e in self.endings:
            if word.endswith(e) and len(word) - len(e) >= self.min_stem:
                return word[: -len(e)]
        return None


@dataclass(frozen=True)
class Calibration:
    """Where phonetic/orthographic evidence turns into tiers (``rules.by_evidence``), and the tiers
    of speech phenomena. The shipped values are fitted on human judgments (``models/evidence.json``,
    ``asr train``); the rubric's are the defaults."""

    near_sound: float = 0.9  # phoneme similarity from which a pair is at most minor
    near_look: float = 0.9  # character similarity from which a pair is at most minor
    min_chars: int = 3  # shorter words get no leniency from evidence
    near: str = "minor"  # the tier of a pair that sounds or looks nearly alike
    homophone: str = "no_penalty"  # another spelling pronounced alike (one side is no word of the language)
    homophone_word: str = "major"  # another word pronounced alike (sea/see; the rubric's weak/week is major)
    filler: str = "no_penalty"  # a filler or hesitation added or dropped
    repetition: str = "no_penalty"  # a word repeated immediately, added or dropped
    partial: str = "minor"  # a word cut off, or a false start


@dataclass(frozen=True)
class Conventions:
    lang: str
    classes: tuple[VariantClass, ...] = ()
    strict: frozenset[str] = frozenset()
    informal: frozenset[frozenset[str]] = frozenset()
    agreement_words: frozenset[str] = frozenset()
    phrase_agreement: str = "major"
    families: tuple[frozenset[str], ...] = ()
    verb_endings: tuple[EndingGroup, ...] = ()
    synonyms: frozenset[frozenset[str]] = frozenset()
    calibration: Calibration = Calibration()
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    _keys: dict = field(default_factory=dict, compare=False, hash=False, repr=False)  # word -> key(word)

    # the rules' label cache hashes the conventions with every pair, and the generated hash walks
    # every field (the variant classes, the calibration) each time: the fields are frozen, so once
    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in fields(self) if f.compare))

    def __getstate__(self) -> dict:
        # the cached hash is this process's (strings hash with a per-process seed): not pickled
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @cached_property
    def has_word_lists(self) -> bool:
        """Any convention beyond the variant classes (the rules' fast path needs none for a pair)."""
        return bool(self.synonyms or self.verb_endings or self.informal or self.families or self.agreement_words)

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
            tuple(
                EndingGroup(str(g["name"]), tuple(sorted(g["endings"], key=len, reverse=True)), int(g["min_stem"]))
                for g in data.get("same_verb_endings", [])
            ),
            frozenset(frozenset(fold_phrase(w) for w in pair) for pair in data.get("synonyms", [])),
        )

    def key(self, word: str, skip: str | None = None) -> str:
        if skip is not None:
            return self._key(word, skip)
        found = self._keys.get(word)
        if found is None:
            if len(self._keys) >= 200_000:
                self._keys.clear()
            found = self._keys[word] = self._key(word, None)
        return found

    def _key(self, word: str, skip: str | None) -> str:
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
        if self.key(a) != self.key(b):
            return None
        cached = self._cache.get((a, b))
        if cached is not None or (a, b) in self._cache:
            return cached
        out = tuple(c.name for c in self.classes if self.key(a, skip=c.name) != self.key(b, skip=c.name))
        if not out and (_strip_markup(a) != a or _strip_markup(b) != b):
            out = ("markup",)
        if len(self._cache) < 200_000:
            self._cache[(a, b)] = out
        return out

    def is_informal(self, a: str, b: str) -> bool:
        return bool(self.informal) and frozenset((fold(a), fold(b))) in self.informal

    def same_auxiliary(self, a: str, b: str) -> bool:
        """Two forms of one auxiliary (है/हैं/हूँ): a person/number/gender slip."""
        if not self.families:
            return False
        fa, fb = fold(a), fold(b)
        return fa != fb and any(fa in fam and fb in fam for fam in self.families)

    def is_agreement_word(self, word: str) -> bool:
        return bool(self.agreement_words) and fold(word) in self.agreement_words

    def are_synonyms(self, a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        return bool(self.synonyms) and frozenset((fold_phrase(" ".join(a)), fold_phrase(" ".join(b)))) in self.synonyms

    def same_verb(self, a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
        """The name of the ending group that makes the two (joined) sides one verb form, or None."""
        if not self.verb_endings:
            return None
        ja, jb = "".join(fold(w) for w in a), "".join(fold(w) for w in b)
        for group in self.verb_endings:
            sa, sb = group.stem(ja), group.stem(jb)
            if sa is not None and sa == sb and ja != jb:
                return group.name
        return None


_LATIN = re.compile(r"[A-Za-z]")


def _strip_markup(word: str) -> str:
    """Latin letters glued to a native-script word (hआपh, sजाएगाs) are transcription markup."""
    if word.isascii() or not _LATIN.search(word) or all(word_script(ch) == "latn" for ch in word if ch.isalpha()):
        return word  # all Latin (nucléaires): nothing to strip
    return _LATIN.sub("", word) or word
