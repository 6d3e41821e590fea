"""Writers for result records and other output files.

Outputs are written whole or not at all: each file goes to a temporary file beside its target
and is renamed into place only when every output of the command has been written. New files get
the usual permissions (0666 less the umask), not the 0600 of a bare temporary file.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError, reason, shown_value

WRITE_FORMATS = ("jsonl", "csv", "tsv", "json")

# What an output holds: text, bytes, or dict records (format chosen by the file's suffix).
Content = str | bytes | Iterable[dict[str, Any]]


# The files this process has put in place, in order (``written``): a command stopped after its
# outputs were saved says so, rather than let the caller assume the old files are still there.
_WRITTEN: list[str] = []


def written() -> list[str]:
    """Every output file renamed into place so far by this process (``forget_written`` clears)."""
    return list(_WRITTEN)


def forget_written() -> None:
    _WRITTEN.clear()


def format_for(path: str | Path) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in WRITE_FORMATS:
        raise InputError(f"{path}: cannot tell the output format; use a .jsonl, .csv, .tsv or .json name")
    return suffix


def check_output(path: str | Path, *, records: bool = False) -> None:
    """Fail now, before any work, if ``path`` cannot be written (or, for records, has no known format);
    a symbolic link's target is what is checked, as it is what will be written."""
    target = _through_link(path)
    size, most = len(target.name.encode("utf-8", "surrogateescape")), _name_max(target.parent)
    if size > most:
        raise InputError(f"{target}: the file name is {size} bytes, longer than the file system allows ({most})")
    if target.is_dir():
        raise InputError(f"{target}: is a directory; give a file name for the output")
    parent = target.parent
    if not parent.is_dir():
        raise InputError(f"{target}: directory {parent} does not exist; create it first")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{target}: cannot write in directory {parent} (permission denied)")
    if target.exists() and not os.access(target, os.W_OK):
        raise InputError(f"{target}: file exists and is not writable")
    if records:
        format_for(target)
    try:  # what the write will do (a name at the file system's limit, /proc...), tried now
        fd, tmp = _staging(target)
    except OSError as e:
        raise InputError(f"{target}: cannot be written ({e.strerror or e})") from None
    os.close(fd)
    os.unlink(tmp)


def _through_link(path: str | Path) -> Path:
    """Where an output goes: a symbolic link's target (the link stays a link, as a shell's
    ``>`` leaves it), else the path itself."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def _staging(target: Path) -> tuple[int, str]:
    """A temporary file beside ``target`` (``.<name>.XXXXXXXX.tmp``), renamed onto it once
    written; a long name is shortened in it, so a name the file system takes is never refused
    for the 14 bytes the staging name adds."""
    name = target.name.encode("utf-8", "surrogateescape")
    room = _name_max(target.parent) - len("..XXXXXXXX.tmp")
    short = name[:room].decode("utf-8", "ignore") if len(name) > room else target.name
    import tempfile  # (not at start-up: tempfile imports random and hashlib)

    return tempfile.mkstemp(dir=target.parent, prefix=f".{short}.", suffix=".tmp")


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def check_outputs(
    records: Iterable[str | Path | None] = (),
    files: Iterable[str | Path | None] = (),
    inputs: Iterable[str | Path | None] = (),
) -> None:
    """Check every output path of a command (None entries are options not given); no path twice,
    and none of the command's ``inputs`` (writing over a file being read would lose it)."""
    read = {os.path.realpath(p) for p in inputs if p is not None and str(p) != "-"}
    seen: set[str] = set()
    for paths, is_records in ((records, True), (files, False)):
        for p in paths:
            if p is None:
                continue
            key = os.path.realpath(p)
            if key in seen:
                raise InputError(f"{p}: named as two different outputs; give each output its own file")
            if key in read:
                raise InputError(f"{p}: is also an input of this command; write the output to another file")
            seen.add(key)
            check_output(p, records=is_records)


def _new_file_mode(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777  # replacing a file keeps its permissions
    except FileNotFoundError:
        pass
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _encode(path: Path, content: Content) -> bytes:
    if isinstance(content, bytes):
        return content
    if isinstance(content, str):
        return content.encode("utf-8")
    return _records_text(list(content), format_for(path)).encode("utf-8")


def _records_text(rows: list[dict[str, Any]], fmt: str) -> str:
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise InputError(
                f"record {n} is {_a(row)} ({shown_value(row)}), not a dict; give each record as a dict of fields"
            )
    try:
        if fmt == "jsonl":
            return "".join(_json(row) + "\n" for row in rows)
        if fmt == "json":
            return _json(rows, _INDENTED) + "\n"
        buf = io.StringIO(newline="")
        columns = list(dict.fromkeys(k for row in rows for k in row))  # every record's keys, first seen first
        writer = csv.DictWriter(buf, fieldnames=columns, delimiter="\t" if fmt == "tsv" else ",")
        writer.writeheader()
        writer.writerows({k: _cell(v) for k, v in row.items()} for row in rows)
        return buf.getvalue()
    except (TypeError, ValueError, RecursionError):
        raise _unwritable(rows) from None


class RecordStream:
    """Records written as they are produced, to a temporary file beside ``path`` (JSONL lines in;
    the file's format out), renamed into place with the command's other outputs by
    ``write_outputs({path: stream, ...})``, or by ``commit()``; ``discard()`` removes it."""

    def __init__(self, path: str | Path):
        self.path = _through_link(path)
        self.format = format_for(self.path)
        check_output(self.path, records=True)
        fd, self.tmp = _staging(self.path)
        self._file = os.fdopen(fd, "w", encoding="utf-8", newline="")
        self._count = 0  # records written, for JSON's brackets (bytes written to JSONL are not counted)
        self._csv: Any = None
        self._columns: set[str] = set()  # the CSV's columns so far (``_header``: in its header)
        self._header = 0

    def write_lines(self, lines: list[str]) -> None:
        """Records as JSON lines (each ending in a newline), in order."""
        if not lines:
            return
        if self.format == "jsonl":
            self._file.writelines(lines)  # no joined copy: a fifth less time than write("".join(...))
        elif self.format == "json":
            text = ",\n".join(
                "  " + json.dumps(json.loads(line), ensure_ascii=False, indent=2).replace("\n", "\n  ")
                for line in lines
            )
            self._file.write(("[\n" if not self._count else ",\n") + text)
        else:
            rows = [json.loads(line) for line in lines]
            if self._csv is None:
                self._csv = csv.DictWriter(self._file, fieldnames=list(rows[0]), delimiter=self._delimiter)
                self._csv.writeheader()
                self._columns, self._header = set(rows[0]), len(rows[0])
            self._csv.writerows(map(self._cells, rows))
        self._count += len(lines)

    @property
    def _delimiter(self) -> str:
        return "\t" if self.format == "tsv" else ","

    def _cells(self, row: dict[str, Any]) -> dict[str, Any]:
        """A CSV row; a key no record before had is a new last column (the header and the rows
        before it are completed when the file is closed: ``_full_header``)."""
        if not row.keys() <= self._columns:
            new = [k for k in row if k not in self._columns]
            self._csv.fieldnames.extend(new)
            self._columns.update(new)
        return {k: _cell(v) for k, v in row.items()}

    def _full_header(self) -> None:
        """The staged CSV again, a row at a time, with every column in the header and each row
        written before a column was added padded to it."""
        columns = self._csv.fieldnames
        fd, tmp = _staging(self.path)
        try:
            with (
                open(self.tmp, encoding="utf-8", newline="") as old,
                os.fdopen(fd, "w", encoding="utf-8", newline="") as new,
            ):
                if csv.field_size_limit() < 2**31 - 1:  # a long line's cell is longer than the default
                    csv.field_size_limit(2**31 - 1)
                rows = csv.reader(old, delimiter=self._delimiter)
                out = csv.writer(new, delimiter=self._delimiter)
                next(rows)
                out.writerow(columns)
                out.writerows(row + [""] * (len(columns) - len(row)) for row in rows)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        os.replace(tmp, self.tmp)

    def write_jsonl(self, data: bytes) -> None:
        """Records as JSON lines encoded in UTF-8, in order: written as they are to a JSONL file
        (no decoding and encoding again), else as ``write_lines``."""
        if not data:
            return
        if self.format != "jsonl":
            self.write_lines([line + "\n" for line in data.decode().split("\n")[:-1]])
            return
        self._file.flush()  # what write_lines left in the text layer goes first
        self._file.buffer.write(data)  # not counted (``_count``): counting cost a 200k run 2%

    def write_spooled(self, fd: int, size: int) -> None:
        """Records as JSON lines in UTF-8, the first ``size`` bytes of a memory file
        (``voxjudge._spool``): copied by the kernel to a JSONL file, else as ``write_jsonl``."""
        from voxjudge import _spool

        if self.format != "jsonl":
            self.write_jsonl(_spool.read(fd, size))
            return
        self._file.flush()  # what write_lines left in the text layer goes first
        _spool.copy_out(fd, size, self._file.buffer)

    def close(self) -> None:
        if self._file.closed:
            return
        if self.format == "json":
            self._file.write("\n]\n" if self._count else "[]\n")
        self._file.close()
        if self._csv is not None and len(self._csv.fieldnames) > self._header:
            self._full_header()
        os.chmod(self.tmp, _new_file_mode(self.path))

    def commit(self) -> None:
        self.close()
        os.replace(self.tmp, self.path)
        _WRITTEN.append(str(self.path))

    def discard(self) -> None:
        try:
            if not self._file.closed:
                self._file.close()
        except OSError:
            pass  # closing flushes, and a full disk fails that again: the file goes all the same
        finally:
            Path(self.tmp).unlink(missing_ok=True)


def write_outputs(outputs: Mapping[str | Path | None, Content | RecordStream]) -> None:
    """Write several files all or none. Keys that are None (an option not given) are skipped; a
    ``RecordStream`` is already written and is renamed into place with the others."""
    targets = [(_through_link(p), c) for p, c in outputs.items() if p is not None]
    check_outputs(files=[p for p, _ in targets])
    staged: list[tuple[str, Path]] = []
    streams = [c for _, c in targets if isinstance(c, RecordStream)]
    try:
        for target, content in targets:
            if isinstance(content, RecordStream):
                content.close()
                staged.append((content.tmp, target))
                continue
            data = _encode(target, content)
            fd, tmp = _staging(target)
            staged.append((tmp, target))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, _new_file_mode(target))
        for tmp, target in staged:
            os.replace(tmp, target)
            _WRITTEN.append(str(target))
    except BaseException:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        for stream in streams:
            stream.discard()
        raise


def write_records(path: str | Path, records: Iterable[dict[str, Any]], fmt: str | None = None) -> None:
    """Write dict records as JSONL, CSV/TSV (a column for every key, in the order first seen) or a
    JSON array. JSON holds no NaN or infinity: they are written as null; numpy values as numbers."""
    fmt = fmt or format_for(path)
    if fmt not in WRITE_FORMATS:
        raise InputError(f"unknown output format {fmt!r}; choose one of {', '.join(WRITE_FORMATS)}")
    write_outputs({path: _records_text(list(records), fmt)})


def write_text(path: str | Path, text: str) -> None:
    """One text file, whole or not at all."""
    write_outputs({path: text})


def _cell(value: Any) -> Any:
    return _json(value) if isinstance(value, (dict, list)) else value


# JSON as records are written: never NaN or Infinity, which are not JSON (``_json`` writes null)
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
_INDENTED = json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=2)


def _json(value: Any, encoder: json.JSONEncoder = _ENCODER) -> str:
    """``value`` as JSON: in one C call when it holds only Python's own types and finite numbers
    (records are written by the 100,000), else NaN and infinity as null (as the command line writes
    them) and numpy values as Python's."""
    try:
        return encoder.encode(value)
    except (TypeError, ValueError):
        return encoder.encode(_json_ready(value))


def _json_ready(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, (str, int)) and hasattr(value, "tolist"):  # numpy scalars (and arrays)
        return _json_ready(value.tolist())
    return value


def _unwritable(rows: list[dict[str, Any]]) -> InputError:
    """The first field that JSON cannot hold, named (looked for once writing has failed); the
    record as a whole last, for a key that JSON cannot hold."""
    for n, row in enumerate(rows, 1):
        for key, value in [*row.items(), (None, row)]:
            try:
                _json(value)
            except (TypeError, ValueError, RecursionError) as e:
                return InputError(f"record {n}{'' if key is None else f', field {key!r}'}: {reason(e)}")
    return InputError("the records cannot be written as JSON")


def _a(value: Any) -> str:
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"
