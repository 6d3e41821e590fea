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
    column_setting: str | None = None,
) -> TextSet:
    """Read scores as text records. Plain text files with two fields per line are read as ``id score``.

    The file is read once, so a pipe works. ``column_setting`` names the caller's setting that
    picks the score column, for error messages (the command line words it as its flag); None:
    this function's ``column`` (the command line's ``human_col``)."""
    lines = read_lines(path)
    if fmt == "auto" and Path(path).suffix.lower() not in (".tsv", ".csv", ".jsonl", ".ndjson"):
        lines = [line for line in lines if line.strip()]
        fmt = "kaldi" if all(len(line.split()) == 2 for line in lines) else "text"
    setting = column_setting or "human_col"
    try:
        return read_texts(
            path,
            fmt=fmt,
            text_field=column,
            id_field=id_field,
            speaker_field=None,
            lines=lines,
            text_setting=setting,
        )
    except InputError as e:
        if column_setting or setting not in e.options:
            raise
        # the reader names the setting as it is spelled; called here, it is this function's ``column``
        raise InputError(e.template, options={**e.options, setting: "column="}) from None


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


def read_scores(path: str | Path, column: str = "score", column_setting: str | None = None) -> dict[str, float]:
    """Scores by id from a score file (``id score`` text, TSV/CSV/JSONL with ``column``);
    ``column_setting`` as in ``read_score_file``."""
    ts = read_score_file(path, column=column, column_setting=column_setting)
    scores = {}
    for r in ts.records:
        try:
            scores[r.id] = float(r.text)
        except ValueError:
            raise InputError(f"{path}:{r.line}: score {r.text!r} is not a number") from None
    return scores
