"""Writers for result records. Files are written whole or not at all (temp file + rename)."""

from __future__ import annotations

import csv
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError

WRITE_FORMATS = ("jsonl", "csv", "tsv", "json")


def format_for(path: str | Path) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in WRITE_FORMATS:
        raise InputError(f"{path}: cannot tell the output format; use a .jsonl, .csv, .tsv or .json name")
    return suffix


def write_records(path: str | Path, records: Iterable[dict[str, Any]], fmt: str | None = None) -> None:
    """Write dict records as JSONL, CSV/TSV (columns from the first record) or a JSON array."""
    fmt = fmt or format_for(path)
    rows = list(records)
    target = Path(path)
    if not target.parent.exists():
        raise InputError(f"{target}: directory {target.parent} does not exist")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            if fmt == "jsonl":
                for row in rows:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
            elif fmt == "json":
                json.dump(rows, f, ensure_ascii=False, indent=2)
                f.write("\n")
            else:
                columns = list(rows[0]) if rows else []
                writer = csv.DictWriter(
                    f, fieldnames=columns, delimiter="\t" if fmt == "tsv" else ",", extrasaction="ignore"
                )
                writer.writeheader()
                writer.writerows({k: _cell(v) for k, v in row.items()} for row in rows)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _cell(value: Any) -> Any:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value
