"""Reading annotation files: one inline annotation per line (ids are line numbers from 1), or
CSV/TSV/JSONL with ``id`` and ``annotation`` columns; a reference table from annotators' files;
plain texts to annotate; and human scores by id."""

from __future__ import annotations

from pathlib import Path

from voxjudge._gc import gc_paused
from voxjudge.breaks.annotation import Annotation, parse
from voxjudge.breaks.labels import LabelMap, LabelSet
from voxjudge.errors import InputError
from voxjudge.io.readers import read_texts


def read_annotations(
    path: str | Path,
    *,
    fmt: str = "inline",
    labelset: LabelSet | None = None,
    label_map: LabelMap | None = None,
    column: str = "annotation",
    one_per_text: bool = False,
) -> list[tuple[str, Annotation]]:
    """``(id, annotation)`` in file order. Every line must parse; errors name file and line.
    ``one_per_text``: a text annotated twice is an error (a single-reference file)."""
    suffix = Path(path).suffix.lower()
    tabular = suffix in (".tsv", ".csv", ".jsonl", ".ndjson")
    texts = read_texts(path, fmt="auto", text_field=column, speaker_field=None, text_setting=None) if tabular else None
    if texts is None:
        from voxjudge.io.readers import read_lines

        records = [(str(n), line, n) for n, line in enumerate(read_lines(path), 1) if line.strip()]
    else:
        records = [(r.id, r.text, r.line) for r in texts.records]
    if label_map is not None:
        label_map.check(labelset or LabelSet())  # once, before any line uses it
    out = []
    first_line: dict[str, int] = {}
    with gc_paused():
        for uid, text, line in records:
            try:
                out.append((uid, parse(text, fmt, labelset=labelset, label_map=label_map)))
            except InputError as e:
                # the template and options, so a caller can still word the settings it names
                raise InputError(f"{path}:{line}: {e.template}", options=e.options) from None
            if one_per_text:
                key = out[-1][1].text_key
                if key in first_line:
                    raise InputError(
                        f"{path}:{line}: text {key!r} is annotated again (first on line {first_line[key]}); "
                        "a single reference gives one annotation per text"
                    )
                first_line[key] = line
    if not out:
        raise InputError(f"{path}: no annotations found")
    return out


def distinct_files(paths: list[str | Path], what: str) -> None:
    """Refuse a file given twice: it would count its phrasings twice under one name."""
    seen: dict[Path, str | Path] = {}
    for path in paths:
        key = Path(path).resolve()
        if key in seen:
            raise InputError(
                f"{path}: the same {what} is given twice ({seen[key]} and {path}); give each once "
                "(to weight one more, copy it under another name)"
            )
        seen[key] = path


def table_from_annotators(
    paths: list[str | Path], *, fmt: str = "inline", labelset: LabelSet | None = None, label_map: LabelMap | None = None
):
    """A ``ReferenceTable`` from annotation files, one per annotator: a file's phrasing of a text
    counts once; files are named by their names, or by their paths where two names are alike."""
    from voxjudge.breaks.table import ReferenceTable

    labelset = labelset or LabelSet()
    distinct_files(paths, "annotation file")
    table = ReferenceTable(labelset)
    names = [Path(path).name for path in paths]
    if len(set(names)) < len(names):  # d1/ann.txt and d2/ann.txt: provenance needs the paths
        names = [str(path) for path in paths]
    for path, name in zip(paths, names):
        seen = set()
        for uid, ann in read_annotations(path, fmt=fmt, labelset=labelset, label_map=label_map):
            phrasing = (ann.text_key, ann.levels(labelset)[:-1])
            if phrasing in seen:
                continue  # a file is one annotator: its phrasing of a text counts once
            seen.add(phrasing)
            table.add(ann, generator=name, iteration=f"{name}:{uid}")
    return table


def read_human_scores(path: str | Path, column: str = "score") -> dict[str, float]:
    from voxjudge.io.scores import read_scores

    return read_scores(path, column)


def read_plain_texts(path: str | Path, labelset: LabelSet) -> list[tuple[str, str]]:
    """``(id, text)`` of the texts to annotate (one a line, or a table with ``id`` and ``text``),
    blank ones left out; each is plain text (no boundary tag), and a bad one is named by file and line."""
    from voxjudge.breaks.builder import plain_text

    records = [r for r in read_texts(path, speaker_field=None, text_setting=None).records if r.text.strip()]
    for r in records:
        try:
            plain_text(r.text, labelset)
        except InputError as e:
            raise InputError(f"{path}:{r.line}: {e.template}", options=e.options) from None
    return [(r.id, r.text) for r in records]
