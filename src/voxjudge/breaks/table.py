"""Reference tables: for each normalized text, the valid phrasings with counts and provenance.

JSONL, one text per line::

    {"text": "their poor parents were just starving as usual",
     "words": ["their", "poor", "parents", "were", "just", "starving", "as", "usual"],
     "labels": ["NB", "AP", "IP", "SB"], "normalization": "casefold+strip-punct",
     "references": [{"annotation": "their poor parents <IP> were ... <SB>",
                     "levels": "00200010", "count": 14,
                     "generators": ["openai/gpt-4.1"], "iterations": ["openai/gpt-4.1#3", ...]}]}

``levels`` is authoritative: one digit per juncture, the label's index in ``labels`` (compact and
fast to load). ``annotation`` is the same phrasing for people; a hand-written table may give
``boundaries`` (labels) or only ``annotation`` instead. Two references are the same phrasing when their
boundaries agree on every juncture but the last (the sentence end).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from voxjudge._gc import gc_paused
from voxjudge.breaks.annotation import TEXT_NORMALIZATION, Annotation, cleaned, parse_inline
from voxjudge.breaks.labels import LabelSet
from voxjudge.errors import InputError


@dataclass(slots=True)
class Reference:
    """One phrasing of a text. ``code`` holds one digit per juncture: the label's index in the
    table's label set (compact, and loads straight into numpy)."""

    code: str
    words: tuple[str, ...]
    labels: tuple[str, ...]  # the table's label set
    count: int = 1
    generators: list[str] = field(default_factory=list)
    iterations: list[str] = field(default_factory=list)
    _annotation: Annotation | None = field(default=None, repr=False)

    @property
    def phrasing(self) -> str:
        return self.code[:-1]

    @property
    def annotation(self) -> Annotation:
        if self._annotation is None:
            self._annotation = Annotation(self.words, tuple(self.labels[int(c)] for c in self.code))
        return self._annotation

    def inline(self) -> str:
        """The inline form, straight from the digits (no Annotation needed)."""
        labels = self.labels
        return " ".join(w if c == "0" else f"{w} <{labels[int(c)]}>" for w, c in zip(self.words, self.code))


def encode(annotation: Annotation, labelset: LabelSet) -> str:
    if len(labelset.labels) > 10:
        raise InputError("reference tables hold at most 10 boundary labels")
    return "".join(str(v) for v in annotation.levels(labelset))


@dataclass
class TableEntry:
    text: str
    words: tuple[str, ...]
    references: dict[str, Reference] = field(default_factory=dict)
    _levels: np.ndarray | None = field(default=None, repr=False)
    _ranked: list[Reference] | None = field(default=None, repr=False)

    def ranked(self) -> list[Reference]:
        """Most frequent first; ties in the order first seen."""
        if self._ranked is None:
            self._ranked = sorted(self.references.values(), key=lambda r: -r.count)
        return self._ranked

    def changed(self) -> None:
        self._levels = self._ranked = None

    def levels(self, labelset: LabelSet | None = None) -> np.ndarray:
        """References x compared junctures (the final one left out), in ``ranked()`` order."""
        if self._levels is None:
            refs = self.ranked()
            width = max(len(self.words) - 1, 0)
            digits = "".join(r.phrasing for r in refs).encode("ascii")
            self._levels = (np.frombuffer(digits, dtype=np.uint8) - 48).astype(np.int8).reshape(len(refs), width)
        return self._levels


class ReferenceTable:
    def __init__(self, labelset: LabelSet | None = None):
        self.labelset = labelset or LabelSet()
        self.entries: dict[str, TableEntry] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def add(
        self, annotation: Annotation, *, count: int = 1, generator: str | None = None, iteration: str | None = None
    ) -> None:
        key = annotation.text_key
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = TableEntry(key, annotation.key_words)
        code = encode(annotation, self.labelset)
        ref = entry.references.get(code[:-1])
        if ref is None:
            ref = entry.references[code[:-1]] = Reference(
                code, entry.words, self.labelset.labels, 0, _annotation=annotation
            )
        ref.count += count
        if generator and generator not in ref.generators:
            ref.generators.append(generator)
        if iteration and iteration not in ref.iterations:
            ref.iterations.append(iteration)
        entry.changed()

    def filtered(self, min_count: float) -> ReferenceTable:
        """Keep references seen *more than* ``min_count`` times (the paper's N_iter/10 rule)."""
        out = ReferenceTable(self.labelset)
        for key, entry in self.entries.items():
            kept = {p: r for p, r in entry.references.items() if r.count > min_count}
            out.entries[key] = TableEntry(key, entry.words, kept)
        return out

    @property
    def reference_count(self) -> int:
        return sum(len(e.references) for e in self.entries.values())

    def empty_texts(self) -> list[str]:
        return [k for k, e in self.entries.items() if not e.references]

    # ---- files ------------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        from voxjudge.io.writers import write_records

        write_records(path, self.records(), "jsonl")

    def records(self) -> Iterable[dict]:
        for entry in self.entries.values():
            yield {
                "text": entry.text,
                "words": list(entry.words),
                "labels": list(self.labelset.labels),
                "normalization": TEXT_NORMALIZATION,
                "references": [
                    {
                        "annotation": r.annotation.inline(self.labelset),
                        "levels": r.code,
                        "count": r.count,
                        "generators": r.generators,
                        "iterations": r.iterations,
                    }
                    for r in entry.ranked()
                ],
            }

    @classmethod
    def load(cls, path: str | Path, labelset: LabelSet | None = None) -> ReferenceTable:
        with gc_paused():
            return cls._load(path, labelset)

    @classmethod
    def _load(cls, path: str | Path, labelset: LabelSet | None) -> ReferenceTable:
        from voxjudge.io.readers import jsonl_objects

        rows = jsonl_objects(path)
        if not rows:
            raise InputError(f"{path}: the reference table is empty")
        first_n, first = rows[0]
        first_labels = _label_list(path, first_n, first.get("labels"))
        try:
            table = cls(labelset or (LabelSet(tuple(first_labels)) if first_labels else LabelSet()))
        except InputError as e:
            raise InputError(f"{path}:{first_n}: {e}") from None
        line_of: dict[str, tuple[int, str]] = {}  # text key -> the line and text that gave it
        for n, obj in rows:
            labels = _label_list(path, n, obj.get("labels"))
            if labels and tuple(labels) != table.labelset.labels:
                raise InputError(f"{path}:{n}: label set {labels} differs from {list(table.labelset.labels)}")
            text, words, refs = obj.get("text"), obj.get("words"), obj.get("references")
            if not isinstance(text, str) or not isinstance(refs, list):
                raise InputError(f"{path}:{n}: a table line needs 'text' and a list of 'references'")
            if words is not None and not (isinstance(words, list) and all(type(w) is str for w in words)):
                raise InputError(f"{path}:{n}: 'words' must be a list of strings")
            words = tuple(words) if words is not None else tuple(text.split())
            if " ".join(words) != text:
                raise InputError(f"{path}:{n}: 'words' do not spell 'text'")
            # a hand-written text ("Hello, world") is keyed as hypotheses are: normalized
            try:
                key, key_words = _normalized(words, table.labelset)
            except InputError:
                raise InputError(f"{path}:{n}: 'text' has no words") from None
            if key in table.entries:
                first_n, first_text = line_of[key]
                same = "" if first_text == text else f" as {first_text!r} (the same words, normalized)"
                raise InputError(
                    f"{path}:{n}: text {text!r} is on line {first_n} already{same}; give each text one line "
                    "with all its references"
                )
            line_of[key] = (n, text)
            entry = table.entries[key] = TableEntry(key, key_words)
            n_words, top_digit = len(words), str(len(table.labelset.labels) - 1)
            fast = key_words == words
            for ref in refs:
                code = ref.get("levels") if type(ref) is dict else None
                # Fast path for what this module writes; anything else is checked and explained.
                if not (
                    fast and type(code) is str and len(code) == n_words and code.isdigit() and max(code) <= top_digit
                ):
                    code = _reference_code(path, n, ref, words, key_words, table.labelset)
                count = ref.get("count", 1)
                if type(count) is not int or count < 1:
                    raise InputError(f"{path}:{n}: a reference count must be a positive integer")
                existing = entry.references.get(code[:-1])
                if existing is not None:
                    existing.count += count
                    entry.changed()
                    continue
                entry.references[code[:-1]] = Reference(
                    code,
                    key_words,
                    table.labelset.labels,
                    count,
                    list(ref.get("generators", ())),
                    list(ref.get("iterations", ())),
                )
        return table


def _label_list(path, n, labels) -> list[str] | None:
    if labels is None:
        return None
    if not (isinstance(labels, list) and all(type(lab) is str for lab in labels)):
        raise InputError(f"{path}:{n}: 'labels' must be a list of label names, weakest first")
    return labels


def _normalized(words: tuple[str, ...], labelset: LabelSet) -> tuple[str, tuple[str, ...]]:
    """The text key and its words, normalized as a hypothesis's are (``Annotation.text_key``)."""
    text = " ".join(words)
    if text == text.casefold() and all(w.isalnum() for w in words):  # what this module writes
        return text, words
    ann = cleaned(list(words), [labelset.none] * len(words), labelset)
    return ann.text_key, ann.key_words


def _reference_code(path, n, ref, words, key_words, labelset: LabelSet) -> str:
    """The reference's level digits, from ``levels``, ``boundaries`` or the inline ``annotation``.
    ``levels`` and ``boundaries`` give one label per word of ``text``; the digits returned are per
    normalized word (``key_words``), a punctuation-only word's label moving to the word before it."""
    if not isinstance(ref, dict):
        raise InputError(f"{path}:{n}: each reference must be an object")
    code = ref.get("levels")
    boundaries = ref.get("boundaries")
    if isinstance(code, str):
        if len(code) != len(words) or not code.isdigit() or max(code) >= str(len(labelset.labels)):
            raise InputError(f"{path}:{n}: 'levels' {code!r} needs one digit below {len(labelset.labels)} per word")
        boundaries = [labelset.labels[int(c)] for c in code]
    elif isinstance(boundaries, str):
        boundaries = boundaries.split()
    if isinstance(boundaries, list):
        if len(boundaries) != len(words):
            raise InputError(f"{path}:{n}: a reference has {len(boundaries)} boundaries for {len(words)} words")
        if not all(type(b) is str for b in boundaries):
            raise InputError(f"{path}:{n}: 'boundaries' must be label names")
        try:
            labelset.check(boundaries)
            annotation = cleaned(list(words), list(boundaries), labelset)
        except InputError as e:
            raise InputError(f"{path}:{n}: {e}") from None
        return encode(annotation, labelset)
    if not isinstance(ref.get("annotation"), str):
        raise InputError(f"{path}:{n}: a reference needs 'levels', 'boundaries' or an 'annotation'")
    try:
        annotation = parse_inline(ref["annotation"], labelset)
    except InputError as e:
        raise InputError(f"{path}:{n}: {e}") from None
    if annotation.key_words != key_words:
        raise InputError(
            f"{path}:{n}: reference {ref['annotation']!r} does not have the words of its text "
            f"(compared normalized: {' '.join(annotation.key_words)!r} vs {' '.join(key_words)!r})"
        )
    return encode(annotation, labelset)


def merge(tables: list[ReferenceTable]) -> ReferenceTable:
    """Union of tables (e.g. two LLMs: the paper's Combined setting); counts add up."""
    if not tables:
        raise InputError("nothing to merge")
    labelset = tables[0].labelset
    out = ReferenceTable(labelset)
    for t in tables:
        if t.labelset != labelset:
            raise InputError("tables with different label sets cannot be merged")
        for entry in t.entries.values():
            key, words = _normalized(entry.words, labelset)  # add() keys by the normalized text
            if key not in out.entries:
                out.entries[key] = TableEntry(key, words)
            for ref in entry.references.values():
                out.add(ref.annotation, count=ref.count)
                merged = out.entries[key].references[ref.phrasing]
                merged.generators += [g for g in ref.generators if g not in merged.generators]
                merged.iterations += [i for i in ref.iterations if i not in merged.iterations]
    return out
