"""Persistent response cache (SQLite, JSON values) so that rerunning a job makes zero requests.

The key is the SHA-256 of canonical JSON over an explicit allow-list of request fields --
provider, model, base URL, the spec's answer-changing options, messages (audio by content hash),
schema, temperature, seed, max tokens, template and its content hash -- plus the sample index
and the cache schema version. Anything else (keys, timeouts, concurrency, transport options)
never enters the key. Each answer is committed as soon as it arrives, so an interrupted run
keeps everything it paid for.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import AudioPart, Request, TextPart

CACHE_VERSION = 3
ENV_VAR = "VOXJUDGE_CACHE"


def default_cache_path() -> Path:
    """``$VOXJUDGE_CACHE``, else the user cache directory (``$XDG_CACHE_HOME/voxjudge``)."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("voxjudge", appauthor=False)) / "llm-cache.sqlite"


def _message_key(request: Request) -> list[dict[str, Any]]:
    out = []
    for m in request.messages:
        parts: list[dict[str, Any]] = []
        for p in m.parts:
            if isinstance(p, TextPart):
                parts.append({"text": p.text})
            elif isinstance(p, AudioPart):
                parts.append({"audio_sha256": p.sha256, "format": p.format})
        out.append({"role": m.role, "parts": parts})
    return out


def request_keys(spec: JudgeSpec, request: Request, count: int) -> list[str]:
    """Cache keys of samples 0..count-1: the canonical request is serialised once."""
    fields = {
        "version": CACHE_VERSION,
        "judge": spec.identity(),
        "messages": _message_key(request),
        "schema": request.schema,
        "schema_name": request.schema_name,
        "temperature": request.temperature,
        "seed": request.seed,
        "max_tokens": request.max_tokens,
        "template": request.template,
        "template_hash": request.template_hash,
    }
    canonical = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    base = hashlib.sha256(canonical)
    keys = []
    for index in range(count):
        h = base.copy()
        h.update(f"|sample={index}".encode())
        keys.append(h.hexdigest())
    return keys


def request_key(spec: JudgeSpec, request: Request, sample_index: int) -> str:
    return request_keys(spec, request, sample_index + 1)[sample_index]


class Cache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.is_dir():
            from voxjudge.llm.errors import ConfigError

            raise ConfigError(f"{self.path}: is a directory, not a cache file; give a file path")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        # One connection, used from several threads at once (``asyncio.to_thread`` puts and gets while
        # other calls are in flight): sqlite's connection is not safe for that, so every use holds this
        self.lock = threading.Lock()
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, provider TEXT, model TEXT,"
                " value TEXT NOT NULL, created REAL NOT NULL)"
            )
            # Embedding models' vectors: one row per (model identity, text), raw little-endian float32.
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, provider TEXT, model TEXT,"
                " dim INTEGER NOT NULL, vector BLOB NOT NULL, created REAL NOT NULL)"
            )
        except sqlite3.DatabaseError as e:  # another file given as the cache: say so, leave it as it is
            self.db.close()
            if "not a database" not in str(e) and "malformed" not in str(e):
                raise
            from voxjudge.llm.errors import ConfigError

            raise ConfigError(
                f"{self.path}: not a voxjudge cache (not an SQLite database: {e}); "
                "give another cache file, or delete this one if it is a damaged cache"
            ) from None

    def get(self, key: str) -> dict[str, Any] | None:
        with self.lock:
            row = self.db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, spec: JudgeSpec, value: dict[str, Any]) -> None:
        self.put_many(spec, [(key, value)])

    def put_many(self, spec: JudgeSpec, items: list[tuple[str, dict[str, Any]]]) -> None:
        """Store the samples of one call in one transaction."""
        now = time.time()
        with self.lock, self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO responses (key, provider, model, value, created) VALUES (?, ?, ?, ?, ?)",
                [(k, spec.provider, spec.model, json.dumps(v, ensure_ascii=False), now) for k, v in items],
            )

    # ---- embeddings -----------------------------------------------------------------------------

    def get_vectors(self, keys: list[str]) -> dict[str, bytes]:
        """The stored vectors (raw float32 bytes) of those keys that are cached, by key; looked
        up in chunks (SQLite caps the parameters of one statement)."""
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            with self.lock:
                rows = self.db.execute(f"SELECT key, vector FROM embeddings WHERE key IN ({marks})", chunk).fetchall()
            found.update(rows)
        return found

    def put_vectors(self, provider: str, model: str, items: list[tuple[str, bytes, int]]) -> None:
        """Store (key, float32 bytes, dimension) rows of one call in one transaction."""
        now = time.time()
        with self.lock, self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO embeddings (key, provider, model, dim, vector, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(k, provider, model, dim, blob, now) for k, blob, dim in items],
            )

    # ---- housekeeping ----------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return self._stats()

    def _stats(self) -> dict[str, Any]:
        rows = self.db.execute(
            "SELECT provider, model, COUNT(*), MIN(created), MAX(created) FROM responses GROUP BY provider, model"
            " ORDER BY provider, model"
        ).fetchall()
        vectors = self.db.execute(
            "SELECT provider, model, COUNT(*), MIN(created), MAX(created) FROM embeddings GROUP BY provider, model"
            " ORDER BY provider, model"
        ).fetchall()
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return {
            "path": str(self.path),
            "entries": sum(r[2] for r in rows),
            "vectors": sum(r[2] for r in vectors),
            "bytes": size,
            "judges": [{"judge": f"{r[0]}/{r[1]}", "entries": r[2], "oldest": r[3], "newest": r[4]} for r in rows],
            "embedders": [
                {"embedder": f"{r[0]}/{r[1]}", "vectors": r[2], "oldest": r[3], "newest": r[4]} for r in vectors
            ],
        }

    def clear(self, judge: str | None = None) -> int:
        """Remove every entry (answers and vectors), or those of one ``provider/model``; the count
        removed. ``default`` is the default embedder; ``?options`` are ignored (rows are kept by
        provider and model: every option's vectors of that model go)."""
        with self.lock:
            return self._clear(judge)

    def _clear(self, judge: str | None) -> int:
        removed = 0
        for table in ("responses", "embeddings"):
            if judge is None:
                cur = self.db.execute(f"DELETE FROM {table}")
            else:
                provider, model = cached_model(judge)
                cur = self.db.execute(f"DELETE FROM {table} WHERE provider = ? AND model = ?", (provider, model))
            removed += cur.rowcount
        self.db.execute("VACUUM")
        return removed

    def close(self) -> None:
        with self.lock:
            self.db.close()


def cached_model(judge: str) -> tuple[str, str]:
    """(provider, model) under which a judge's answers or an embedder's vectors are kept: the
    spec a summary prints (``e5/multilingual-e5-small?prefix=query``) or ``default`` (the default
    embedder) name the same rows as the bare ``provider/model``."""
    from voxjudge.llm.embed_registry import DEFAULT

    text = judge.strip()
    if text.partition("?")[0].lower() == "default":
        text = DEFAULT + text[len("default") :]
    provider, _, model = text.partition("?")[0].partition("/")
    return provider.lower(), model
