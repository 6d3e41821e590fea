"""Study storage through SQLAlchemy: SQLite (one file in the study folder, WAL) or PostgreSQL.

Every answer is one row keyed by its assignment, written in one transaction on submit; a
resubmission with the same submission id changes nothing, an edit bumps the version and a form
older than the stored version changes nothing either. Tokens and session ids are stored as
SHA-256 hashes only. A new SQLite file is created 0600 (SQLite gives its -wal/-shm files the same
mode): it holds answers, token hashes and the CSRF secret.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from voxjudge.errors import InputError

SCHEMA_VERSION = "3"
DB_FILE = "studio.db"

meta = sa.MetaData()
settings = sa.Table(
    "vj_settings", meta, sa.Column("key", sa.String(64), primary_key=True), sa.Column("value", sa.Text, nullable=False)
)
items = sa.Table(
    "vj_items",
    meta,
    sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("item_id", sa.String(512), nullable=False, unique=True),
    sa.Column("shuffle", sa.Integer, nullable=False),  # seeded order in which fresh items are handed out
    sa.Column("taken", sa.Integer, nullable=False, default=0),  # live counted claims (0..K); a skip gives one back
    sa.Column("role", sa.String(16), nullable=False, default="item"),  # item | gold | training
    sa.Column("gold", sa.Text),  # the expected answer (JSON, source terms) for gold and training items
    sa.Column("payload", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Index("vj_items_fresh", "taken", "shuffle"),
)
audio = sa.Table(
    "vj_audio",
    meta,
    sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("path", sa.Text, nullable=False, unique=True),  # relative to the study's audio root
    sa.Column("kind", sa.String(8), nullable=False),  # wav | flac | ogg | mp3 | mp4 | webm, sniffed from content
    sa.Column("seconds", sa.Float),  # duration, when it could be read
)
item_audio = sa.Table(
    "vj_item_audio",
    meta,
    sa.Column("item_pk", sa.Integer, sa.ForeignKey("vj_items.pk"), primary_key=True),
    sa.Column("slot", sa.Integer, primary_key=True),
    sa.Column("audio_pk", sa.Integer, sa.ForeignKey("vj_audio.pk"), nullable=False, index=True),
)
annotators = sa.Table(
    "vj_annotators",
    meta,
    sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("is_admin", sa.Boolean, nullable=False, default=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("intro_at", sa.Float),  # when the person read the instructions and started
    sa.UniqueConstraint("name", "is_admin"),
)
sessions = sa.Table(
    "vj_sessions",
    meta,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column("annotator_pk", sa.Integer, sa.ForeignKey("vj_annotators.pk"), nullable=False, index=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Column("ended_at", sa.Float),
)
assignments = sa.Table(
    "vj_assignments",
    meta,
    sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("annotator_pk", sa.Integer, sa.ForeignKey("vj_annotators.pk"), nullable=False),
    sa.Column("item_pk", sa.Integer, sa.ForeignKey("vj_items.pk"), nullable=False),
    sa.Column("copy", sa.Integer, nullable=False, default=0),  # 1: a repeat that measures self-consistency
    sa.Column("counted", sa.Boolean, nullable=False, default=False),  # holds one of the item's K claims
    sa.Column("seq", sa.Integer, nullable=False),  # position in the annotator's own sequence, from 1
    sa.Column("present", sa.Text),  # JSON presentation order (A/B swap, candidate permutation)
    sa.Column("shown_at", sa.Float),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.UniqueConstraint("annotator_pk", "item_pk", "copy"),
    sa.UniqueConstraint("annotator_pk", "seq"),
)
listens = sa.Table(  # audio bytes sent of each clip of an assignment: the server's must-listen record
    "vj_listens",
    meta,
    sa.Column("assignment_pk", sa.Integer, sa.ForeignKey("vj_assignments.pk"), primary_key=True),
    sa.Column("slot", sa.Integer, primary_key=True),
    sa.Column("first_at", sa.Float, nullable=False),  # when its first audio bytes went out (the clock)
    sa.Column("size", sa.BigInteger, nullable=False),  # bytes of the file served
    sa.Column("covered", sa.Text, nullable=False),  # JSON [[start, end), ...] byte ranges sent, merged
)
answers = sa.Table(
    "vj_answers",
    meta,
    sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("assignment_pk", sa.Integer, sa.ForeignKey("vj_assignments.pk"), nullable=False, unique=True),
    sa.Column("status", sa.String(16), nullable=False),  # answered | skipped
    sa.Column("answer", sa.Text),  # JSON in presentation terms; mapped back on export
    sa.Column("flag", sa.Boolean, nullable=False, default=False),
    sa.Column("note", sa.Text, nullable=False, default=""),
    sa.Column("submission_id", sa.String(64), nullable=False),
    sa.Column("version", sa.Integer, nullable=False, default=1),
    sa.Column("seconds", sa.Float),
    sa.Column("first_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)


def default_url(folder: str | Path) -> str:
    return f"sqlite:///{Path(folder).resolve() / DB_FILE}"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL (None for other databases and in-memory SQLite)."""
    u = sa.engine.make_url(url)
    return Path(u.database) if u.get_backend_name() == "sqlite" and u.database not in (None, "", ":memory:") else None


def create_private(path: Path) -> None:
    """Create an empty file readable by its owner only (SQLite then gives its -wal/-shm files that mode)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def engine_for(url: str) -> sa.Engine:
    if url.startswith("sqlite"):
        eng = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @sa.event.listens_for(eng, "connect")
        def _pragmas(conn, _record) -> None:  # WAL: readers never block the writer; commits survive a crash
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        # SQLite writers queue anyway; a writing transaction takes the write lock up front (BEGIN
        # IMMEDIATE) instead of failing to upgrade a read lock halfway through.
        @sa.event.listens_for(eng, "begin")
        def _begin(conn) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN")

        @sa.event.listens_for(eng, "connect")
        def _no_autobegin(dbapi_conn, _record) -> None:
            dbapi_conn.isolation_level = None

        return eng
    return sa.create_engine(url, pool_size=20, max_overflow=40, pool_pre_ping=True)


class Store:
    """One study's tables. All methods are synchronous and safe to call from worker threads."""

    def __init__(self, url: str):
        self.url = url
        self.engine = engine_for(url)
        self.writer = self.engine.execution_options(write=True)
        self._settings: dict[str, Any] | None = None

    # --- setup ---------------------------------------------------------------------------

    def create(self, config: dict[str, Any], task_items, gold: dict[str, dict], audio_info: dict[str, tuple]) -> None:
        """``task_items`` with their roles (``item.role``), ``gold`` answers by id, and per audio path
        (relative to the audio root) its (kind, seconds)."""
        path = sqlite_file(self.url)
        if path is not None and not path.exists():
            create_private(path)
        with self.writer.begin() as c:
            meta.create_all(c)
            if c.execute(sa.select(sa.func.count()).select_from(settings)).scalar():
                raise InputError(f"{self.url}: a study already exists in this database")
            config = {**config, "schema_version": SCHEMA_VERSION}
            c.execute(sa.insert(settings), [{"key": "config", "value": json.dumps(config)}])
            c.execute(sa.insert(settings), [{"key": "secret", "value": secrets.token_hex(32)}])
            import numpy as np

            shuffle = np.random.default_rng(config["seed"]).permutation(len(task_items))
            audio_pk: dict[str, int] = {}
            for it, sh in zip(task_items, shuffle):
                g = gold.get(it.item_id)
                pk = c.execute(
                    sa.insert(items).values(
                        item_id=it.item_id,
                        shuffle=int(sh),
                        taken=0,
                        role=it.role,
                        gold=None if g is None else json.dumps(g),
                        payload=json.dumps(it.payload, ensure_ascii=False),
                        source=json.dumps(it.source, ensure_ascii=False),
                    )
                ).inserted_primary_key[0]
                for slot, path in enumerate(it.audio):
                    if path not in audio_pk:
                        kind, seconds = audio_info[path]
                        audio_pk[path] = c.execute(
                            sa.insert(audio).values(path=path, kind=kind, seconds=seconds)
                        ).inserted_primary_key[0]
                    c.execute(sa.insert(item_audio).values(item_pk=pk, slot=slot, audio_pk=audio_pk[path]))

    def exists(self) -> bool:
        return sa.inspect(self.engine).has_table("vj_settings")

    def setting(self, key: str) -> Any:
        if self._settings is None:
            if not self.exists():
                raise InputError(f"{self.url}: no study here; create one with 'voxjudge studio init'")
            with self.engine.connect() as c:
                self._settings = {r.key: r.value for r in c.execute(sa.select(settings))}
            version = json.loads(self._settings["config"]).get("schema_version")
            if version != SCHEMA_VERSION:
                self._settings = None
                raise InputError(
                    f"{self.url}: this study was created by another voxjudge version (schema {version}, this one "
                    f"reads {SCHEMA_VERSION}); export it with that version, or create a new study"
                )
        value = self._settings[key]
        return json.loads(value) if key == "config" else value

    @property
    def config(self) -> dict[str, Any]:
        return self.setting("config")

    def invite(self, name: str, *, admin: bool = False) -> str:
        """A new secret token for ``name`` (a second invite replaces the first token and ends every
        session signed in with it)."""
        if not name.strip():
            raise InputError("an annotator needs a non-empty name")
        token = secrets.token_urlsafe(24)
        self.setting("config")  # fails clearly if there is no study
        with self.writer.begin() as c:
            row = c.execute(
                sa.select(annotators.c.pk).where(annotators.c.name == name, annotators.c.is_admin == admin)
            ).first()
            if row:
                c.execute(sa.update(annotators).where(annotators.c.pk == row.pk).values(token_hash=hash_token(token)))
                # the old link is revoked: so is every sign-in made with it
                c.execute(
                    sa.update(sessions)
                    .where(sessions.c.annotator_pk == row.pk, sessions.c.ended_at.is_(None))
                    .values(ended_at=time.time())
                )
            else:
                c.execute(
                    sa.insert(annotators).values(
                        name=name, token_hash=hash_token(token), is_admin=admin, created_at=time.time()
                    )
                )
        return token

    def who(self, token: str | None) -> sa.Row | None:
        if not token or len(token) > 200:
            return None
        with self.engine.connect() as c:
            return c.execute(sa.select(annotators).where(annotators.c.token_hash == hash_token(token))).first()

    # --- sessions: a random id per sign-in, stored hashed; the personal token never becomes a cookie

    def start_session(self, annotator_pk: int, hours: float, replaces: str | None = None, keep: int = 5) -> str:
        """A new session id for ``annotator_pk``; the browser's previous session (``replaces``) ends,
        and so do the person's oldest live sessions beyond ``keep`` (this one included)."""
        sid = secrets.token_urlsafe(32)
        now = time.time()
        with self.writer.begin() as c:
            if replaces and len(replaces) <= 200:
                c.execute(
                    sa.update(sessions)
                    .where(sessions.c.id_hash == hash_token(replaces), sessions.c.ended_at.is_(None))
                    .values(ended_at=now)
                )
            c.execute(
                sa.insert(sessions).values(
                    id_hash=hash_token(sid), annotator_pk=annotator_pk, created_at=now, expires_at=now + hours * 3600
                )
            )
            live = (
                sa.select(sessions.c.id_hash)
                .where(
                    sessions.c.annotator_pk == annotator_pk,
                    sessions.c.ended_at.is_(None),
                    sessions.c.expires_at > now,
                    sessions.c.id_hash != hash_token(sid),
                )
                .order_by(sessions.c.created_at.desc(), sessions.c.id_hash)
                .offset(max(0, keep - 1))
            )
            old = list(c.execute(live).scalars())
            if old:
                c.execute(sa.update(sessions).where(sessions.c.id_hash.in_(old)).values(ended_at=now))
        return sid

    def session(self, sid: str | None) -> sa.Row | None:
        """The person behind a live (not ended, not expired) session id, with ``session_hash``."""
        if not sid or len(sid) > 200:
            return None
        with self.engine.connect() as c:
            return c.execute(
                sa.select(annotators, sessions.c.id_hash.label("session_hash"))
                .select_from(sessions.join(annotators, annotators.c.pk == sessions.c.annotator_pk))
                .where(
                    sessions.c.id_hash == hash_token(sid),
                    sessions.c.ended_at.is_(None),
                    sessions.c.expires_at > time.time(),
                )
            ).first()

    def end_session(self, sid: str | None) -> None:
        if not sid or len(sid) > 200:
            return
        with self.writer.begin() as c:
            c.execute(
                sa.update(sessions)
                .where(sessions.c.id_hash == hash_token(sid), sessions.c.ended_at.is_(None))
                .values(ended_at=time.time())
            )

    def n_annotators(self) -> int:
        with self.engine.connect() as c:
            return c.execute(sa.select(sa.func.count()).where(annotators.c.is_admin.is_(False))).scalar()

    def mark_intro(self, annotator_pk: int) -> None:
        with self.writer.begin() as c:
            c.execute(
                sa.update(annotators)
                .where(annotators.c.pk == annotator_pk, annotators.c.intro_at.is_(None))
                .values(intro_at=time.time())
            )

    def close(self) -> None:
        self.engine.dispose()
