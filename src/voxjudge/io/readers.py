"""Readers for utterance texts: line-aligned text, Kaldi ``id text``, TSV/CSV with a header, JSONL.

Every problem is an ``InputError`` naming the file and line and saying how to fix it.

``read_texts`` reads a file whole. ``scan_texts`` + ``iter_texts`` read it line by line, in
constant memory (for corpora of millions of utterances): the scan checks the file as
``read_texts`` would and keeps 8 bytes per utterance (a hash of its id); on any problem it lets
``read_texts`` raise, so the message is the same whichever way the file is read.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import count, repeat
from operator import itemgetter, methodcaller
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError, shown_id
from voxjudge.io.line_records import LineRecords
from voxjudge.io.text_record import TextRecord

FORMATS = ("auto", "text", "kaldi", "tsv", "csv", "jsonl")
_BY_SUFFIX = {".tsv": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_LINE_END = re.compile(r"\r\n|\r|\n")
# Long-form transcripts can exceed the csv module's default 131,072-character field limit.
_CSV_FIELD_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class TextSet:
    """The utterances of one file. ``has_ids`` is False for line-aligned text (ids are line numbers)."""

    path: str
    records: Sequence[TextRecord]  # a list, or ``LineRecords`` for line-aligned text
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

    A regular file is decoded as it is read, a block at a time: holding its bytes and its whole
    text beside the lines touched three times the memory, and a fresh process pays for every new
    page. Anything else (a pipe such as ``/dev/stdin``, read once) and every problem go through
    the whole-file path, which words the error."""
    p = Path(path)
    if _is_file(p):
        try:
            with open(p, encoding="utf-8-sig", newline="") as f:
                # newline="": lines end at \n, \r\n or \r, as in split_lines, and keep their ending
                lines = list(map(str.rstrip, f, repeat("\r\n")))
        except (OSError, UnicodeDecodeError):
            pass
        else:
            if any(map(str.strip, lines)):
                return lines
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a file") from None
    except PermissionError:
        raise InputError(f"{p}: permission denied") from None
    except OSError as e:  # a name too long for the file system, an I/O error...
        raise InputError(f"{p}: cannot be read ({e.strerror or e})") from None
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


def _is_file(p: Path) -> bool:
    """``Path.is_file``, False where it would raise (a name too long): the reading then words it."""
    try:
        return p.is_file()
    except OSError:
        return False


def iter_lines(path: str | Path) -> Iterator[str]:
    """The lines ``read_lines`` gives, read one at a time. A decoding problem raises
    ``UnicodeDecodeError``: the scan lets ``read_lines`` word it."""
    # newline="": lines end at \n, \r\n or \r, as in split_lines, and keep their ending
    with open(path, encoding="utf-8-sig", newline="") as f:
        for line in f:
            yield line.rstrip("\r\n")


def table_rows(path: str | Path, lines: list[str], delimiter: str) -> tuple[list[str], list[tuple[int, dict]]]:
    """The header and ``(line number, row)`` pairs of a CSV/TSV file given as lines."""
    header, rows = _table_rows(path, io.StringIO("\n".join(lines)), delimiter)
    return header, list(rows)


def _table_rows(path, source: Iterable[str], delimiter: str) -> tuple[list[str], Iterator[tuple[int, dict]]]:
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    reader = csv.DictReader(source, delimiter=delimiter)
    kind = "TSV" if delimiter == "\t" else "CSV"
    try:
        header = reader.fieldnames or []
    except csv.Error as e:
        raise InputError(f"{path}:{reader.line_num}: not valid {kind} ({e})") from None

    def rows() -> Iterator[tuple[int, dict]]:
        try:
            for row in reader:
                yield reader.line_num, row
        except csv.Error as e:
            raise InputError(f"{path}:{reader.line_num}: not valid {kind} ({e})") from None

    return list(header), rows()


def read_bytes(path: str | Path, what: str = "file") -> bytes:
    """A whole non-empty file; a missing or empty one is an InputError."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: {what} not found") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected {'an' if what[:1] in 'aeiou' else 'a'} {what}") from None
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
        return TextSet(str(path), LineRecords(lines), False)
    parsed = _Parsed(path, kind, lines, text_field, id_field, speaker_field, text_setting)
    records = list(parsed)
    if not records:
        raise InputError(f"{path}: no utterances found")
    _check_unique(path, records)
    return TextSet(str(path), records, parsed.has_ids)


_new_tuple = tuple.__new__  # a record without the NamedTuple's Python-level __new__


def _joined(lines: Iterable[str]) -> Iterator[str]:
    """Lines as ``io.StringIO("\\n".join(lines))`` gives them back (the csv module's input)."""
    it = iter(lines)
    prev = next(it, None)
    for line in it:
        yield prev + "\n"
        prev = line
    if prev:
        yield prev


class _Parsed:
    """The records of a file's lines, as they are parsed; ``has_ids`` is known once they are all read."""

    def __init__(self, path, kind, lines: Iterable[str], text_field, id_field, speaker_field, text_setting):
        self.path, self.kind, self.lines = path, kind, lines
        self.fields = (text_field, id_field, speaker_field, text_setting)
        self.has_ids = kind != "text"

    def __iter__(self) -> Iterator[TextRecord]:
        path, kind, lines = self.path, self.kind, self.lines
        text_field, id_field, speaker_field, text_setting = self.fields
        if kind == "text":
            numbers = count(1)
            fields = zip(map(str, count(1)), lines, numbers, repeat(None))
            return map(_new_tuple, repeat(TextRecord), fields)  # (all in C)
        if kind == "kaldi":
            return _kaldi(path, lines)
        if kind == "jsonl":
            return self._jsonl(_jsonl_objects(path, lines))
        return self._table(_table_rows(path, _joined(lines), "\t" if kind == "tsv" else ","))

    def _jsonl(self, objects) -> Iterator[TextRecord]:
        text_field, id_field, speaker_field, text_setting = self.fields
        for n, obj in objects:
            self.has_ids = self.has_ids and obj.get(id_field) not in (None, "")
            yield _from_mapping(self.path, n, obj, text_field, id_field, speaker_field, list(obj), text_setting)

    def _table(self, table) -> Iterator[TextRecord]:
        text_field, id_field, speaker_field, text_setting = self.fields
        header, rows = table
        if text_field not in header:
            raise InputError(
                f"{self.path}:1: no column {text_field!r} in the header (columns: {', '.join(header)}); "
                + _name_it(text_field, text_setting, "column"),
                options={text_setting: text_setting} if text_setting else None,
            )
        self.has_ids = id_field in header
        for n, row in rows:
            if all(v in (None, "") for v in row.values()):
                continue
            yield _from_mapping(self.path, n, row, text_field, id_field, speaker_field, header, text_setting)


def _kaldi(path: str | Path, lines: Iterable[str]) -> Iterator[TextRecord]:
    for n, line in enumerate(lines, 1):
        parts = line.split(None, 1)  # what line.strip().split(maxsplit=1) gives, with the tail unstripped
        if parts:
            yield TextRecord(parts[0], parts[1].rstrip() if len(parts) > 1 else "", n)


def kaldi_parts(path: str | Path) -> Iterator[list[str]]:
    """[id] or [id, text] per non-blank line, split in C, as ``_kaldi`` reads them (stripping the
    line's end first leaves the text stripped at its end)."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        # a blank line splits into [] and is dropped after the split: no strip of every line to find it
        yield from filter(None, map(methodcaller("split", None, 1), map(str.rstrip, f)))


def jsonl_objects(path: str | Path, lines: Iterable[str] | None = None) -> list[tuple[int, dict]]:
    """``(line number, object)`` for every non-blank line of a JSONL file; anything else is an error."""
    return list(_jsonl_objects(path, read_lines(path) if lines is None else lines))


def rows_of(path: str | Path, lines: list[str] | None = None, what: str = "rows") -> list[tuple[int, dict]]:
    """``(line number, row)`` of a CSV, TSV or JSONL file, by its suffix; a file without one of
    those suffixes (``<(...)``, ``-``, ``.txt``) by its first line: JSON if it opens with ``{``,
    TSV if it has a tab, else CSV. ``lines``: the file's lines when the caller has read them."""
    suffix = Path(str(path)).suffix.lower()
    if suffix not in (".jsonl", ".ndjson", ".csv", ".tsv"):
        lines = read_lines(path) if lines is None else lines
        first = next((x for x in lines if x.strip()), "")
        suffix = ".jsonl" if first.lstrip().startswith("{") else ".tsv" if "\t" in first else ".csv"
    if suffix in (".jsonl", ".ndjson"):
        return jsonl_objects(path, lines)
    lines = read_lines(path) if lines is None else lines
    return table_rows(path, lines, "\t" if suffix == ".tsv" else ",")[1]


def _jsonl_objects(path, lines: Iterable[str]) -> Iterator[tuple[int, dict]]:
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{n}: not valid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{n}: expected a JSON object per line, got {type(obj).__name__}")
        if "\\ud" in line or "\\uD" in line:  # \ud800-\udfff: half a UTF-16 pair, which no UTF-8 text holds
            _check_surrogates(path, n, obj)
        yield n, obj


def _check_surrogates(path, n: int, obj: dict) -> None:
    for key, value in obj.items():
        for text in (key, value) if isinstance(value, str) else (key,):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as e:
                lone = f"\\u{ord(text[e.start]):04x}"
                raise InputError(
                    f"{path}:{n}: field {key!r} holds {lone}, half of a UTF-16 pair and no character (a text "
                    "cut between the two halves of an emoji or a rare character?); fix or drop it"
                ) from None


def _from_mapping(path, n, obj, text_field, id_field, speaker_field, columns, text_setting) -> TextRecord:
    if text_field not in obj:
        raise InputError(
            f"{path}:{n}: missing field {text_field!r} (fields: {', '.join(map(str, columns))}); "
            + _name_it(text_field, text_setting, "field"),
            options={text_setting: text_setting} if text_setting else None,
        )
    text = obj[text_field]
    text = "" if text is None else text_cell(path, n, text, text_field)
    uid = obj.get(id_field)
    uid = str(n) if uid in (None, "") else str(uid)
    speaker = obj.get(speaker_field) if speaker_field else None
    return TextRecord(uid, text, n, None if speaker in (None, "") else str(speaker))


def text_cell(path, n: int, value: object, field: str) -> str:
    """A text read from a JSON field or a table cell: a string, or a number written as one (a
    numeric field: a digit string as a transcript); JSON's NaN and Infinity, booleans, lists and
    objects are refused, naming the file and line."""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{path}:{n}: field {field!r} is {value!r}, not a text (JSON's NaN or Infinity)")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    raise InputError(f"{path}:{n}: field {field!r} must be a string, got {type(value).__name__}")


def _name_it(name: str, setting: str | None, what: str) -> str:
    return f"name the {what} with {{{setting}}}" if setting else f"the file needs a {what} named {name!r}"


def _check_unique(path, records: list[TextRecord]) -> None:
    seen: dict[str, int] = {}
    for r in records:
        if r.id in seen:
            raise InputError(
                f"{path}:{r.line}: duplicate id {shown_id(r.id)} (first on line {seen[r.id]}); ids must be unique"
            )
        seen[r.id] = r.line


class _Whole(Exception):
    """The file is read whole after all: to word a problem as ``read_texts`` does, or after a hash
    collision between two ids."""


@dataclass(frozen=True)
class TextScan:
    """A file of utterances checked line by line (``scan_texts``): its size, whether it has ids,
    and a 64-bit hash of each id in file order -- or, for a pipe (read once) or after a hash
    collision, the file read whole (``whole``)."""

    path: str
    whole: TextSet | None
    kind: str = "text"
    count: int = 0
    has_ids: bool = False
    id_hashes: array = None  # type: ignore[assignment]
    settings: dict | None = None
    stamp: tuple[int, int] = (0, 0)  # size and modification time before the scan (``changed``)

    def changed(self) -> bool:
        """Whether the file is no longer the one scanned (a line edited in place keeps the count)."""
        if self.whole is not None:
            return False
        try:
            return _stamp(self.path) != self.stamp
        except OSError:  # removed (or moved away) while it was read
            return True

    def records(self) -> Iterator[TextRecord]:
        """The records again, in file order (read from the file once more unless held whole)."""
        if self.whole is not None:
            return iter(self.whole.records)
        s = self.settings or {}
        fields = (s["text_field"], s["id_field"], s["speaker_field"], s["text_setting"])
        return iter(_Parsed(self.path, self.kind, iter_lines(self.path), *fields))

    def text_set(self) -> TextSet:
        return self.whole if self.whole is not None else read_texts(self.path, **(self.settings or {}))


def scan_texts(
    path: str | Path,
    *,
    fmt: str = "auto",
    ids: bool = False,
    text_field: str = "text",
    id_field: str = "id",
    speaker_field: str | None = "speaker",
    text_setting: str | None = "text_field",
) -> TextScan:
    """Check a file as ``read_texts`` does, line by line, keeping 8 bytes per utterance; any problem
    is raised by ``read_texts`` itself (same message, same precedence)."""
    kind = _detect(path, fmt, ids)
    settings = {
        "fmt": fmt,
        "ids": ids,
        "text_field": text_field,
        "id_field": id_field,
        "speaker_field": speaker_field,
        "text_setting": text_setting,
    }
    if not _is_file(Path(path)):  # a pipe can be read only once; a missing file is worded by read_texts
        return TextScan(str(path), read_texts(path, **settings))
    hashes = array("q")
    stamp = _stamp(path)  # before reading: an edit during the scan shows as a change too
    try:
        parsed = _Parsed(path, kind, iter_lines(path), text_field, id_field, speaker_field, text_setting)
        if kind == "kaldi":  # the ids alone, each line's first word (blank lines have none), all in C
            hashes.extend(map(hash, map(itemgetter(0), kaldi_parts(path))))
            n = len(hashes)
            blank = not n
        elif kind == "text":
            n, blank = 0, True
            for r in parsed:
                n += 1
                if blank and r.text.strip():
                    blank = False
        else:
            hashes.extend(map(hash, map(itemgetter(0), parsed)))  # the ids
            n = len(hashes)
            blank = not n
        if blank or _repeats(hashes):
            raise _Whole
    except (InputError, UnicodeDecodeError, _Whole):
        return TextScan(str(path), read_texts(path, **settings))
    return TextScan(str(path), None, kind, n, parsed.has_ids, hashes, settings, stamp)


def _stamp(path: str | Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def _repeats(hashes: array) -> bool:
    """Whether two hashes are equal (a duplicate id, or a collision)."""
    if len(hashes) < 2:
        return False
    import numpy as np

    a = np.sort(np.frombuffer(hashes, dtype=np.int64))
    return bool((a[1:] == a[:-1]).any())
