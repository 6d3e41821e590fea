"""Results of a Ray run written as they complete, and read back by a rerun.

Each worker appends one JSON line per finished item to its own shard,
``<root>/<job>/<run>-<worker incarnation>.jsonl``, as soon as the share it belongs to is done.
``<job>`` is a digest of what decides an item's answer besides the item itself (the judge, the
task or request settings, the context), and each record carries a digest of its item, so a
record is reused only for the very same question. A rerun reads every shard of its job first and
skips the items recorded there with a usable answer: records are the source of truth; the
response cache still serves calls that finished but whose share did not. When a run ends with
every item answered, the shards it wrote and read are deleted (the answers are in the output
and the cache); an interrupted or incomplete run leaves them for the rerun.

The default root is ``ray-shards`` beside the response cache (``--ray-shards`` to choose): on a
cluster it must be a directory every worker can write, like a file cache. Deleting it is always
safe: the next run asks the cache instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from voxjudge.llm.cache import request_keys
from voxjudge.llm.label import Labelled
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.task import Item, Task
from voxjudge.llm.types import AudioPart, Request, Response, TextPart, Usage


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def job_key(spec: JudgeSpec, kind: str, settings: Any) -> str:
    return _digest({"judge": spec.full_name, "identity": spec.identity(), "kind": kind, "settings": settings})


def label_settings(tasks: Sequence[Task], context: Mapping[str, Any] | None, check: Any) -> Any:
    checked = None if check is None else f"{getattr(check, '__module__', '')}.{getattr(check, '__qualname__', '')}"
    return {"tasks": [task_digest(t) for t in tasks], "context": context, "check": checked}


def task_digest(task: Task) -> str:
    return _digest(task.as_dict())  # the whole policy too: samples, seed, batch size, token limits


def item_key(task_digest: str, item: Item) -> str:
    parts = [p.text if isinstance(p, TextPart) else p.sha256 for p in item.parts if isinstance(p, TextPart | AudioPart)]
    fields = {"id": item.id, "data": item.data, "context": item.context, "schema": item.schema, "parts": parts}
    return _digest({"task": task_digest, **fields})


def request_key(spec: JudgeSpec, item_id: str, request: Request) -> str:
    return _digest({"id": item_id, "keys": request_keys(spec, request, request.n)})


def labelled_record(key: str, result: Labelled) -> dict[str, Any]:
    return {"key": key, "id": result.id, "answers": result.answers, "reasons": result.reasons, "ok": result.ok}


def labelled_from(record: Mapping[str, Any]) -> Labelled:
    # a reused record is served without a call, like a cache hit
    return Labelled(record["id"], list(record["answers"]), list(record["reasons"]), True)


def responses_record(key: str, responses: list[Response] | None) -> dict[str, Any]:
    ok = responses is not None and all(r.ok for r in responses)
    return {"key": key, "responses": None if responses is None else [asdict(r) for r in responses], "ok": ok}


def responses_from(record: Mapping[str, Any]) -> list[Response]:
    out = []
    for r in record["responses"]:
        out.append(Response(**{**r, "usage": Usage(**r["usage"]), "cache_hit": True}))
    return out


class Shards:
    """The shard directory of one job."""

    def __init__(self, root: str | Path, job: str):
        self.dir = Path(root) / job
        self.read_files: list[Path] = []

    def recorded(self) -> dict[str, dict[str, Any]]:
        """Usable records by item key, from every shard of the job (a torn last line is skipped)."""
        found: dict[str, dict[str, Any]] = {}
        if not self.dir.is_dir():
            return found
        for path in sorted(self.dir.glob("*.jsonl")):
            self.read_files.append(path)
            with open(path, encoding="utf-8") as f:
                for line in f:
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # the worker died while writing this line
                    if isinstance(record, dict) and record.get("ok") and "key" in record:
                        found[record["key"]] = record
        return found

    def remove(self, run: str) -> None:
        """After a complete run: its own shards and those it read are no longer needed."""
        for path in [*self.read_files, *self.dir.glob(f"{run}-*.jsonl")]:
            path.unlink(missing_ok=True)
        try:
            self.dir.rmdir()
        except OSError:
            pass  # another run's shards are still there


class ShardWriter:
    """One worker's shard: records appended share by share, on disk before the share is reported."""

    def __init__(self, job_dir: Path, run: str, incarnation: str):
        self.path = job_dir / f"{run}-{incarnation}.jsonl"
        self.file: Any = None
        self.lock = threading.Lock()  # an actor writes several shares' records at once

    def write(self, records: Iterable[dict[str, Any]]) -> None:
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        if not lines:
            return
        with self.lock:
            if self.file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (open for the worker's life)
            self.file.write(lines)
            self.file.flush()
            os.fsync(self.file.fileno())
