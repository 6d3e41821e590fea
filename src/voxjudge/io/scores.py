"""Per-item numeric scores (metric outputs, human ratings) keyed by id."""

from __future__ import annotations

import math
from pathlib import Path

from voxjudge.errors import InputError
from voxjudge.io.matching import pair_texts
from voxjudge.io.readers import TextSet, read_lines, read_texts


def read_score_file(
    path: str | Path,
    *,
    column: str = "score",
    fmt: str = "auto",
    id_field: str = "id",
    column_setting: str = "human_col",
) -> TextSet:
    """Read scores as text records. Plain text files with two fields per line are read as ``id score``.

    The file is read once, so a pipe works. ``column_setting`` names the setting that picks the
    score column, for error messages."""
    lines = read_lines(path)
    if fmt == "auto" and Path(path).suffix.lower() not in (".tsv", ".csv", ".jsonl", ".ndjson"):
        lines = [line for line in lines if line.strip()]
        fmt = "kaldi" if all(len(line.split()) == 2 for line in lines) else "text"
    return read_texts(
        path,
        fmt=fmt,
        text_field=column,
        id_field=id_field,
        speaker_field=None,
        lines=lines,
        text_setting=column_setting,
    )


def to_float(ts: TextSet, uid: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        line = next((r.line for r in ts.records if r.id == uid), "?")
        raise InputError(f"{ts.path}:{line}: score {text!r} for id {uid!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"{ts.path}: score for id {uid!r} is {text}; scores must be finite numbers")
    return value


def paired_scores(a: TextSet, b: TextSet) -> tuple[list[str], list[float], list[float]]:
    """Match two score sets by id (or line) and parse the numbers."""
    paired = pair_texts(a, b)
    xs = [to_float(a, uid, t) for uid, t in zip(paired.ids, paired.references)]
    ys = [to_float(b, uid, t) for uid, t in zip(paired.ids, paired.hypotheses)]
    return paired.ids, xs, ys


def read_scores(path: str | Path, column: str = "score", column_setting: str = "human_col") -> dict[str, float]:
    """Scores by id from a score file (``id score`` text, TSV/CSV/JSONL with ``column``)."""
    ts = read_score_file(path, column=column, column_setting=column_setting)
    scores = {}
    for r in ts.records:
        try:
            scores[r.id] = float(r.text)
        except ValueError:
            raise InputError(f"{path}:{r.line}: score {r.text!r} is not a number") from None
    return scores
