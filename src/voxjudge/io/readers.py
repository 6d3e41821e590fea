"""Readers for utterance texts: line-aligned text, Kaldi ``id text``, TSV/CSV with a header, JSONL.

Every problem is an ``InputError`` naming the file and line and saying how to fix it.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError

FORMATS = ("auto", "text", "kaldi", "tsv", "csv", "jsonl")
_BY_SUFFIX = {".tsv": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


@dataclass(frozen=True)
class TextRecord:
    id: str
    text: str
    line: int
    speaker: str | None = None


@dataclass(frozen=True)
class TextSet:
    """The utterances of one file. ``has_ids`` is False for line-aligned text (ids are line numbers)."""

    path: str
    records: list[TextRecord]
    has_ids: bool

    def __len__(self) -> int:
        return len(self.records)


def read_lines(path: str | Path) -> list[str]:
    """Decode a file as UTF-8 (a BOM is allowed) into lines without their line endings."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a file") from None
    except PermissionError:
        raise InputError(f"{p}: permission denied") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputError(
            f"{p}:{line}: invalid UTF-8 (byte 0x{data[e.start]:02x} at column {column}); "
            "re-encode the file as UTF-8, e.g. with iconv -f <encoding> -t utf-8"
        ) from None
    if not text.strip():
        raise InputError(f"{p}: file is empty; expected one utterance per line")
    lines = text.splitlines()
    return lines


def read_bytes(path: str | Path, what: str = "file") -> bytes:
    """A whole non-empty file; a missing or empty one is an InputError."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: {what} not found") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a {what}") from None
    if not data:
        raise InputError(f"{p}: {what} is empty")
    return data


def read_json(path: str | Path, what: str = "file") -> Any:
    """A whole JSON document; a missing file or bad JSON is an InputError naming file and line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{p}: {what} not found") from None
    except UnicodeDecodeError:
        raise InputError(f"{p}: {what} is not UTF-8") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{p}:{e.lineno}: {what} is not valid JSON ({e.msg})") from None


def _detect(path: str | Path, fmt: str, ids: bool) -> str:
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt != "auto":
        return fmt
    return _BY_SUFFIX.get(Path(path).suffix.lower(), "kaldi" if ids else "text")


def read_texts(
    path: str | Path,
    *,
    fmt: str = "auto",
    ids: bool = False,
    text_field: str = "text",
    id_field: str = "id",
    speaker_field: str | None = "speaker",
) -> TextSet:
    """Read one file of utterances.

    ``fmt='auto'`` picks by suffix (.tsv, .csv, .jsonl) and otherwise reads line-aligned text,
    or Kaldi ``id text`` when ``ids`` is true. Tabular formats need ``text_field``; ``id_field``
    and ``speaker_field`` are used when present.
    """
    kind = _detect(path, fmt, ids)
    lines = read_lines(path)
    if kind == "text":
        return TextSet(str(path), [TextRecord(str(n), t, n) for n, t in enumerate(lines, 1)], False)
    if kind == "kaldi":
        records, has_ids = _kaldi(path, lines), True
    elif kind == "jsonl":
        records, has_ids = _jsonl(path, lines, text_field, id_field, speaker_field)
    else:
        delimiter = "\t" if kind == "tsv" else ","
        records, has_ids = _table(path, lines, delimiter, text_field, id_field, speaker_field)
    if not records:
        raise InputError(f"{path}: no utterances found")
    _check_unique(path, records)
    return TextSet(str(path), records, has_ids)


def _kaldi(path: str | Path, lines: list[str]) -> list[TextRecord]:
    records = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.strip().split(maxsplit=1)
        records.append(TextRecord(parts[0], parts[1] if len(parts) > 1 else "", n))
    return records


def jsonl_objects(path: str | Path, lines: list[str] | None = None) -> list[tuple[int, dict]]:
    """``(line number, object)`` for every non-blank line of a JSONL file; anything else is an error."""
    out = []
    for n, line in enumerate(read_lines(path) if lines is None else lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{n}: not valid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{n}: expected a JSON object per line, got {type(obj).__name__}")
        out.append((n, obj))
    return out


def _jsonl(path, lines, text_field, id_field, speaker_field) -> tuple[list[TextRecord], bool]:
    records = []
    has_ids = True
    for n, obj in jsonl_objects(path, lines):
        has_ids = has_ids and obj.get(id_field) not in (None, "")
        records.append(_from_mapping(path, n, obj, text_field, id_field, speaker_field, list(obj)))
    return records, has_ids


def _table(path, lines, delimiter, text_field, id_field, speaker_field) -> tuple[list[TextRecord], bool]:
    reader = csv.DictReader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    header = reader.fieldnames or []
    if text_field not in header:
        raise InputError(
            f"{path}:1: no column {text_field!r} in the header (columns: {', '.join(header)}); "
            "name the text column with {text_field}",
            options={"text_field": "text_field"},
        )
    records = []
    for row in reader:
        n = reader.line_num
        if all(v in (None, "") for v in row.values()):
            continue
        records.append(_from_mapping(path, n, row, text_field, id_field, speaker_field, header))
    return records, id_field in header


def _from_mapping(path, n, obj, text_field, id_field, speaker_field, columns) -> TextRecord:
    if text_field not in obj:
        raise InputError(
            f"{path}:{n}: missing field {text_field!r} (fields: {', '.join(map(str, columns))}); "
            "name the text field with {text_field}",
            options={"text_field": "text_field"},
        )
    text = obj[text_field]
    if text is None:
        text = ""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = repr(text)  # a numeric field, e.g. a score column in JSONL
    if not isinstance(text, str):
        raise InputError(f"{path}:{n}: field {text_field!r} must be a string, got {type(text).__name__}")
    uid = obj.get(id_field)
    uid = str(n) if uid in (None, "") else str(uid)
    speaker = obj.get(speaker_field) if speaker_field else None
    return TextRecord(uid, text, n, None if speaker in (None, "") else str(speaker))


def _check_unique(path, records: list[TextRecord]) -> None:
    seen: dict[str, int] = {}
    for r in records:
        if r.id in seen:
            raise InputError(f"{path}:{r.line}: duplicate id {r.id!r} (first on line {seen[r.id]}); ids must be unique")
        seen[r.id] = r.line
