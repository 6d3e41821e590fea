"""The run's call log: one JSONL record per model call (or cache hit), appended and flushed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from voxjudge.io.readers import split_lines


class RecordLog:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        record = {"time": round(time.time(), 3), **record}
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def read_records(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in split_lines(Path(path).read_text(encoding="utf-8")) if line.strip()]
