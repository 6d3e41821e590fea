"""Reference tables: for each normalized text, the valid phrasings with counts and provenance.

JSONL, one text per line::

    {"text": "their poor parents were just starving as usual",
     "words": ["their", "poor", "parents", "were", "just", "starving", "as", "usual"],
     "labels": ["NB", "AP", "IP", "SB"], "normalization": "casefold+strip-punct",
     "references": [{"annotation": "their poor parents <IP> were ... <SB>",
                     "boundaries": ["NB", "NB", "IP", ...], "count": 14,
                     "generators": ["openai/gpt-4.1"], "iterations": ["openai/gpt-4.1#3", ...]}]}

``boundaries`` is authoritative (fast to load); ``annotation`` is the same phrasing for people,
and is parsed when ``boundaries`` is absent. Two references are the same phrasing when their
boundaries agree on every juncture but the last (the sentence end).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from voxjudge.breaks.annotation import TEXT_NORMALIZATION, Annotation, parse_inline
from voxjudge.breaks.labels import LabelSet
from voxjudge.errors import InputError


@dataclass
class Reference:
    annotation: Annotation
    count: int = 1
    generators: list[str] = field(default_factory=list)
    iterations: list[str] = field(default_factory=list)

    @property
    def phrasing(self) -> tuple[str, ...]:
        return self.annotation.labels[:-1]


@dataclass
class TableEntry:
    text: str
    words: tuple[str, ...]
    references: dict[tuple[str, ...], Reference] = field(default_factory=dict)
    _levels: np.ndarray | None = field(default=None, repr=False)

    def ranked(self) -> list[Reference]:
        """Most frequent first; ties in the order first seen."""
        return sorted(self.references.values(), key=lambda r: -r.count)

    def levels(self, labelset: LabelSet) -> np.ndarray:
        """References x compared junctures, in ``ranked()`` order."""
        if self._levels is None:
            refs = self.ranked()
            width = max(len(self.words) - 1, 0)
            self._levels = np.array(
                [[labelset.level(lab) for lab in r.annotation.labels[:-1]] for r in refs], dtype=np.int8
            ).reshape(len(refs), width)
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
        phrasing = annotation.labels[:-1]
        ref = entry.references.get(phrasing)
        if ref is None:
            ref = entry.references[phrasing] = Reference(annotation, 0)
        ref.count += count
        if generator and generator not in ref.generators:
            ref.generators.append(generator)
        if iteration and iteration not in ref.iterations:
            ref.iterations.append(iteration)
        entry._levels = None

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
                        "boundaries": list(r.annotation.labels),
                        "count": r.count,
                        "generators": r.generators,
                        "iterations": r.iterations,
                    }
                    for r in entry.ranked()
                ],
            }

    @classmethod
    def load(cls, path: str | Path, labelset: LabelSet | None = None) -> ReferenceTable:
        from voxjudge.io.readers import jsonl_objects

        rows = jsonl_objects(path)
        if not rows:
            raise InputError(f"{path}: the reference table is empty")
        first_labels = rows[0][1].get("labels")
        table = cls(labelset or (LabelSet(tuple(first_labels)) if first_labels else LabelSet()))
        for n, obj in rows:
            if obj.get("labels") and tuple(obj["labels"]) != table.labelset.labels:
                raise InputError(f"{path}:{n}: label set {obj['labels']} differs from {list(table.labelset.labels)}")
            text, words, refs = obj.get("text"), obj.get("words"), obj.get("references")
            if not isinstance(text, str) or not isinstance(refs, list):
                raise InputError(f"{path}:{n}: a table line needs 'text' and a list of 'references'")
            words = tuple(words) if isinstance(words, list) else tuple(text.split())
            if " ".join(words) != text:
                raise InputError(f"{path}:{n}: 'words' do not spell 'text'")
            if text in table.entries:
                raise InputError(f"{path}:{n}: text {text!r} appears twice; merge tables with 'voxjudge breaks merge'")
            entry = table.entries[text] = TableEntry(text, words)
            for ref in refs:
                annotation = _reference_annotation(path, n, ref, words, table.labelset)
                phrasing = annotation.labels[:-1]
                if phrasing in entry.references:
                    entry.references[phrasing].count += int(ref.get("count", 1))
                    continue
                entry.references[phrasing] = Reference(
                    annotation,
                    int(ref.get("count", 1)),
                    list(ref.get("generators", [])),
                    list(ref.get("iterations", [])),
                )
        return table


def _reference_annotation(path, n, ref, words, labelset) -> Annotation:
    if not isinstance(ref, dict):
        raise InputError(f"{path}:{n}: each reference must be an object")
    boundaries = ref.get("boundaries")
    if isinstance(boundaries, list):
        if len(boundaries) != len(words):
            raise InputError(f"{path}:{n}: a reference has {len(boundaries)} boundaries for {len(words)} words")
        for lab in boundaries:
            try:
                labelset.level(lab)
            except InputError as e:
                raise InputError(f"{path}:{n}: {e}") from None
        return Annotation(words, tuple(boundaries))
    if not isinstance(ref.get("annotation"), str):
        raise InputError(f"{path}:{n}: a reference needs 'boundaries' or an 'annotation'")
    try:
        annotation = parse_inline(ref["annotation"], labelset)
    except InputError as e:
        raise InputError(f"{path}:{n}: {e}") from None
    if annotation.key_words != words:
        raise InputError(f"{path}:{n}: reference {ref['annotation']!r} does not have the words of its text")
    return annotation


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
            if entry.text not in out.entries:
                out.entries[entry.text] = TableEntry(entry.text, entry.words)
            for ref in entry.references.values():
                out.add(ref.annotation, count=ref.count)
                merged = out.entries[entry.text].references[ref.phrasing]
                merged.generators += [g for g in ref.generators if g not in merged.generators]
                merged.iterations += [i for i in ref.iterations if i not in merged.iterations]
    return out
