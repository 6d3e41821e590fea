"""Readers for utterance texts: line-aligned text, Kaldi ``id text``, TSV/CSV with a header, JSONL.

Every problem is an ``InputError`` naming the file and line and saying how to fix it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple

from voxjudge.errors import InputError

FORMATS = ("auto", "text", "kaldi", "tsv", "csv", "jsonl")
_BY_SUFFIX = {".tsv": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_LINE_END = re.compile(r"\r\n|\r|\n")
# Long-form transcripts can exceed the csv module's default 131,072-character field limit.
_CSV_FIELD_LIMIT = 2**31 - 1


class TextRecord(NamedTuple):
    """One utterance. A NamedTuple: reading builds one per line, and a frozen dataclass cost
    ten times as much to build (half of the reading time of ``asr metrics``)."""

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


def split_lines(text: str) -> list[str]:
    """Lines ending at ``\\n``, ``\\r\\n`` or ``\\r`` only.

    ``str.splitlines`` also breaks at form feeds, vertical tabs, U+001C..U+001E, NEL, U+2028 and
    U+2029, which silently shifts line-aligned utterances and breaks valid JSONL strings."""
    lines = _LINE_END.split(text) if "\r" in text else text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_lines(path: str | Path) -> list[str]:
    """Decode a file as UTF-8 (a BOM is allowed) into lines without their line endings.

    The file is read once, so a pipe (``/dev/stdin``) works."""
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
    return split_lines(text)


def table_rows(path: str | Path, lines: list[str], delimiter: str) -> tuple[list[str], list[tuple[int, dict]]]:
    """The header and ``(line number, row)`` pairs of a CSV/TSV file given as lines."""
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    reader = csv.DictReader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    try:
        header = reader.fieldnames or []
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as e:
        kind = "TSV" if delimiter == "\t" else "CSV"
        raise InputError(f"{path}:{reader.line_num}: not valid {kind} ({e})") from None
    return list(header), rows


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
    lines: list[str] | None = None,
    text_setting: str | None = "text_field",
) -> TextSet:
    """Read one file of utterances.

    ``fmt='auto'`` picks by suffix (.tsv, .csv, .jsonl) and otherwise reads line-aligned text,
    or Kaldi ``id text`` when ``ids`` is true. Tabular formats need ``text_field``; ``id_field``
    and ``speaker_field`` are used when present. ``lines``: the file's lines when the caller has
    read them already (a pipe can be read only once). ``text_setting`` is the caller's setting that
    names the text column (worded as a flag by the CLI), or None when the column's name is fixed.
    """
    kind = _detect(path, fmt, ids)
    if lines is None:
        lines = read_lines(path)
    if kind == "text":
        numbers = range(1, len(lines) + 1)
        fields = zip(map(str, numbers), lines, numbers, repeat(None))
        return TextSet(str(path), list(map(_new_tuple, repeat(TextRecord), fields)), False)  # (all in C)
    if kind == "kaldi":
        records, has_ids = _kaldi(path, lines), True
    elif kind == "jsonl":
        records, has_ids = _jsonl(path, lines, text_field, id_field, speaker_field, text_setting)
    else:
        delimiter = "\t" if kind == "tsv" else ","
        records, has_ids = _table(path, lines, delimiter, text_field, id_field, speaker_field, text_setting)
    if not records:
        raise InputError(f"{path}: no utterances found")
    _check_unique(path, records)
    return TextSet(str(path), records, has_ids)


_new_tuple = tuple.__new__  # a record without the NamedTuple's Python-level __new__


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


def _jsonl(path, lines, text_field, id_field, speaker_field, text_setting) -> tuple[list[TextRecord], bool]:
    records = []
    has_ids = True
    for n, obj in jsonl_objects(path, lines):
        has_ids = has_ids and obj.get(id_field) not in (None, "")
        records.append(_from_mapping(path, n, obj, text_field, id_field, speaker_field, list(obj), text_setting))
    return records, has_ids


def _table(path, lines, delimiter, text_field, id_field, speaker_field, text_setting) -> tuple[list[TextRecord], bool]:
    header, rows = table_rows(path, lines, delimiter)
    if text_field not in header:
        raise InputError(
            f"{path}:1: no column {text_field!r} in the header (columns: {', '.join(header)}); "
            + _name_it(text_field, text_setting, "column"),
            options={text_setting: text_setting} if text_setting else None,
        )
    records = []
    for n, row in rows:
        if all(v in (None, "") for v in row.values()):
            continue
        records.append(_from_mapping(path, n, row, text_field, id_field, speaker_field, header, text_setting))
    return records, id_field in header


def _from_mapping(path, n, obj, text_field, id_field, speaker_field, columns, text_setting) -> TextRecord:
    if text_field not in obj:
        raise InputError(
            f"{path}:{n}: missing field {text_field!r} (fields: {', '.join(map(str, columns))}); "
            + _name_it(text_field, text_setting, "field"),
            options={text_setting: text_setting} if text_setting else None,
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


def _name_it(name: str, setting: str | None, what: str) -> str:
    return f"name the {what} with {{{setting}}}" if setting else f"the file needs a {what} named {name!r}"


def _check_unique(path, records: list[TextRecord]) -> None:
    seen: dict[str, int] = {}
    for r in records:
        if r.id in seen:
            raise InputError(f"{path}:{r.line}: duplicate id {r.id!r} (first on line {seen[r.id]}); ids must be unique")
        seen[r.id] = r.line
