"""The annotator's path through a study: hand out the next item, show it, store the answer.

Items are handed out on demand so that each item goes to K annotators, least-covered first
(balanced however many annotators join), except that a configurable share of items (``overlap``)
gets two answers before any other item gets its first, so agreement shows early. A claim is a
conditional increment of the item's live claims (``taken < K``), so two annotators racing for the
last claim cannot both get it; a skip gives the claim back, so the item goes to someone else.
Training items come first for everyone; gold items go to everyone; a few answered items come
back once more (a repeat) to measure self-consistency. What of each clip was heard is checked by
``listening.Listening``; every stored answer is read back by ``stored_answers``.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from voxjudge.studio import tasks
from voxjudge.studio.listening import Listening
from voxjudge.studio.store import answers, assignments, audio, item_audio, items

GAP = 5  # a gold or a repeat every GAP items
_CLAIM_TRIES = 200
SUBMISSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_VERSION = 2**31 - 1  # PostgreSQL INTEGER


class NotYours(LookupError):
    """The item does not exist in this annotator's sequence."""


@dataclass
class View:
    seq: int
    item_id: str
    task: str
    payload: dict[str, Any]
    audio: list[int]  # audio ids in presented order
    present: list[int] | None
    answer: dict[str, Any] | None
    status: str | None
    flag: bool
    note: str
    is_repeat: bool
    version: int = 0  # of the stored answer (0: none yet); the form sends it back
    role: str = "item"
    expected: dict[str, Any] | None = None  # training items: the answer the study expects
    seconds: list[float | None] | None = None  # clip durations, in presented order


def _upsert(dialect: str):
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert


class Flow(Listening):
    def __init__(self, store):
        self.store = store
        self.config = store.config
        self.task = self.config["task"]
        self.k = int(self.config["per_item"])
        self.repeats = int(self.config.get("repeats", 0))
        self.insert = _upsert(store.engine.dialect.name)
        self.overlap = float(self.config.get("overlap", 0.0))
        self.must_listen = bool(self.config.get("must_listen", False))
        self.audio_root = Path(self.config["audio_root"])
        with store.engine.connect() as c:  # gold and training items are fixed when the study is created
            self.gold = list(
                c.execute(sa.select(items.c.pk).where(items.c.role == "gold").order_by(items.c.shuffle)).scalars()
            )
            self.training = list(
                c.execute(sa.select(items.c.pk).where(items.c.role == "training").order_by(items.c.pk)).scalars()
            )
            n_items = c.execute(sa.select(sa.func.count()).where(items.c.role == "item")).scalar()
        # the first shuffled items (by rank) form the overlap set
        self.n_overlap = int(np.ceil(self.overlap * n_items)) if self.k >= 2 else 0

    # --- handing out items ---------------------------------------------------------------

    def next_seq(self, annotator_pk: int) -> int | None:
        """The first unanswered item of this annotator, claiming a new one if needed; None when done."""
        for _ in range(_CLAIM_TRIES):
            try:
                with self.store.writer.begin() as c:
                    return self._next(c, annotator_pk)
            except IntegrityError:  # somebody took the slot or the seq first: look again
                time.sleep(0.005)
        raise RuntimeError("could not claim an item after many tries")

    def _next(self, c, annotator_pk: int) -> int | None:
        a = assignments
        open_seq = c.execute(
            sa.select(sa.func.min(a.c.seq))
            .select_from(a.outerjoin(answers, answers.c.assignment_pk == a.c.pk))
            .where(a.c.annotator_pk == annotator_pk, answers.c.pk.is_(None))
        ).scalar()
        if open_seq is not None:
            return open_seq
        mine = c.execute(sa.select(a.c.item_pk, a.c.copy, a.c.seq).where(a.c.annotator_pk == annotator_pk)).all()
        n_mine = len(mine)
        have = {r.item_pk for r in mine if r.copy == 0}
        repeated = {r.item_pk for r in mine if r.copy == 1}
        training_left = [pk for pk in self.training if pk not in have]
        if training_left:
            return self._assign(c, annotator_pk, training_left[0], 0, False, n_mine + 1)
        gold_left = [pk for pk in self.gold if pk not in have]
        fresh = self._fresh(c, have)
        repeat_pool = self._repeat_pool(c, annotator_pk, repeated) if len(repeated) < self.repeats else []
        seq = n_mine + 1
        if gold_left and (n_mine % GAP == 2 or fresh is None):
            return self._assign(c, annotator_pk, gold_left[0], 0, False, seq)
        if repeat_pool and (n_mine % GAP == 4 or fresh is None):
            rng = np.random.default_rng([self.config["seed"], annotator_pk, len(repeated), 7])
            return self._assign(c, annotator_pk, int(rng.choice(repeat_pool)), 1, False, seq)
        if fresh is None:
            return None
        return self._assign(c, annotator_pk, fresh[0], 0, True, seq, seen=fresh[1])

    def _fresh_query(self, have: set[int]):
        q = sa.select(items.c.pk, items.c.taken).where(items.c.role == "item", items.c.taken < self.k)
        return q.where(items.c.pk.notin_(have)) if have else q

    def _fresh(self, c, have: set[int]) -> tuple[int, int] | None:
        # overlap items below two claims first, then least-covered, in the seeded shuffle order.
        # PostgreSQL: rows another claim holds are skipped, so concurrent annotators take different
        # items instead of queueing on one (SQLite serialises writers and ignores the clause).
        # Only rows at the lowest level qualify: when all of them are locked by other claims in
        # flight, skipping to a row a level up would break the balance (measured: 38 of 1000 items
        # off level with 20 annotators on a loaded machine), so the caller looks again instead.
        early = sa.case((sa.and_(items.c.shuffle < self.n_overlap, items.c.taken < 2), 0), else_=1)
        level = early * (self.k + 1) + items.c.taken
        lowest = c.execute(self._fresh_query(have).with_only_columns(sa.func.min(level))).scalar()
        if lowest is None:
            return None
        q = self._fresh_query(have).where(level == lowest).order_by(items.c.shuffle).limit(1)
        row = c.execute(q.with_for_update(skip_locked=True, of=items)).first()
        if row is None:  # every lowest-level row is being claimed right now
            raise IntegrityError("lowest level busy", None, Exception("lowest level busy"))
        return row.pk, int(row.taken)

    def _claim(self, c, item_pk: int, seen: int | None = None) -> bool:
        """Take one of the item's K claims; False when they are all taken, or (``seen``) when the item
        is no longer at the coverage it was chosen at: PostgreSQL's FOR UPDATE may lock a row another
        claim changed after the ORDER BY saw it, and taking it would break the balance."""
        q = sa.update(items).where(items.c.pk == item_pk, items.c.taken < self.k)
        if seen is not None:
            q = q.where(items.c.taken == seen)
        return c.execute(q.values(taken=items.c.taken + 1)).rowcount == 1

    def _repeat_pool(self, c, annotator_pk: int, repeated: set[int]) -> list[int]:
        a = assignments
        rows = c.execute(
            sa.select(a.c.item_pk)
            .select_from(a.join(answers, answers.c.assignment_pk == a.c.pk).join(items, items.c.pk == a.c.item_pk))
            .where(
                a.c.annotator_pk == annotator_pk,
                a.c.copy == 0,
                answers.c.status == "answered",
                items.c.gold.is_(None),
            )
            .order_by(a.c.seq)
        ).scalars()
        return [pk for pk in rows if pk not in repeated]

    def _assign(
        self, c, annotator_pk: int, item_pk: int, copy: int, counted: bool, seq: int, seen: int | None = None
    ) -> int:
        if counted and not self._claim(c, item_pk, seen):
            raise IntegrityError("claims taken", None, Exception("claims taken"))
        n_audio = c.execute(sa.select(sa.func.count()).where(item_audio.c.item_pk == item_pk)).scalar()
        rng = np.random.default_rng([self.config["seed"], annotator_pk, item_pk, copy])
        present = tasks.presentation_order(self.task, n_audio, rng)
        c.execute(
            sa.insert(assignments).values(
                annotator_pk=annotator_pk,
                item_pk=item_pk,
                copy=copy,
                counted=counted,
                seq=seq,
                present=None if present is None else json.dumps(present),
                created_at=time.time(),
            )
        )
        return seq

    # --- one item --------------------------------------------------------------------------

    def view(self, annotator_pk: int, seq: int) -> View:
        a = assignments
        with self.store.engine.connect() as c:
            row = c.execute(
                sa.select(
                    a,
                    items.c.item_id,
                    items.c.payload,
                    items.c.role,
                    items.c.gold,
                    answers.c.answer,
                    answers.c.version,
                    answers.c.status,
                    answers.c.flag,
                    answers.c.note,
                )
                .select_from(
                    a.join(items, items.c.pk == a.c.item_pk).outerjoin(answers, answers.c.assignment_pk == a.c.pk)
                )
                .where(a.c.annotator_pk == annotator_pk, a.c.seq == seq)
            ).first()
            if row is None:
                raise NotYours(seq)
            clip_rows = c.execute(
                sa.select(item_audio.c.slot, item_audio.c.audio_pk, audio.c.seconds)
                .select_from(item_audio.join(audio, audio.c.pk == item_audio.c.audio_pk))
                .where(item_audio.c.item_pk == row.item_pk)
            ).all()
            clips = {r.slot: r.audio_pk for r in clip_rows}
            secs = {r.slot: r.seconds for r in clip_rows}
        if row.shown_at is None:
            with self.store.writer.begin() as w:
                w.execute(sa.update(a).where(a.c.pk == row.pk, a.c.shown_at.is_(None)).values(shown_at=time.time()))
        present = json.loads(row.present) if row.present else None
        order = present if present is not None else sorted(clips)
        return View(
            seq,
            row.item_id,
            self.task,
            json.loads(row.payload),
            [clips[i] for i in order],
            present,
            json.loads(row.answer) if row.answer else None,
            row.status,
            bool(row.flag),
            row.note or "",
            row.copy == 1,
            int(row.version or 0),
            row.role,
            json.loads(row.gold) if row.role == "training" and row.gold else None,
            [secs[i] for i in order],
        )

    def submit(
        self,
        annotator_pk: int,
        seq: int,
        *,
        submission_id: str,
        skip: bool,
        fields: dict[str, Any],
        flag: bool,
        note: str,
        base_version: int = 0,
    ) -> str:
        """Validate and store one answer: "saved", "same" (this submission was stored already) or
        "stale" (the form was made from an older version than the stored one: nothing changes).

        A skip gives the assignment's claim back, so the item goes to someone else; answering a
        skipped item later takes a claim again when one is free."""
        v = self.view(annotator_pk, seq)
        answer = None if skip else tasks.validate(self.task, v.payload, v.present, fields, self.config)
        if not SUBMISSION_ID.fullmatch(submission_id):
            raise tasks.AnswerError("the form is missing its submission id; reload the page")
        if not 0 <= base_version <= MAX_VERSION:
            raise tasks.AnswerError("the form is damaged (its version); reload the page")
        if "\x00" in note:  # PostgreSQL text cannot hold NUL; nobody types one
            raise tasks.AnswerError("the note contains a NUL character")
        now = time.time()
        status = "skipped" if skip else "answered"
        with self.store.writer.begin() as c:
            a = c.execute(
                sa.select(
                    assignments.c.pk,
                    assignments.c.item_pk,
                    assignments.c.shown_at,
                    assignments.c.counted,
                    assignments.c.copy,
                ).where(assignments.c.annotator_pk == annotator_pk, assignments.c.seq == seq)
            ).one()
            if not skip and self.must_listen and v.seconds:
                self._heard(c, a.pk, v.seconds, now)
            values = {
                "status": status,
                "answer": None if answer is None else json.dumps(answer),
                "flag": flag,
                "note": note[:2000],
                "submission_id": submission_id,
                "updated_at": now,
            }
            stored = c.execute(
                sa.select(answers.c.version, answers.c.submission_id).where(answers.c.assignment_pk == a.pk)
            ).first()
            if stored is None:
                done = c.execute(
                    self.insert(answers)
                    .values(
                        assignment_pk=a.pk,
                        version=1,
                        seconds=None if a.shown_at is None else max(0.0, now - a.shown_at),
                        first_at=now,
                        **values,
                    )
                    .on_conflict_do_nothing(index_elements=[answers.c.assignment_pk])
                ).rowcount
            elif stored.submission_id == submission_id:
                return "same"
            else:  # only an edit of the version the form was made from; a late retry changes nothing
                done = c.execute(
                    sa.update(answers)
                    .where(
                        answers.c.assignment_pk == a.pk,
                        answers.c.version == base_version,
                        answers.c.submission_id != submission_id,
                    )
                    .values(version=answers.c.version + 1, **values)
                ).rowcount
            if done != 1:  # a concurrent write got there first
                now_stored = c.execute(
                    sa.select(answers.c.submission_id).where(answers.c.assignment_pk == a.pk)
                ).scalar()
                return "same" if now_stored == submission_id else "stale"
            if skip and a.counted:
                c.execute(sa.update(items).where(items.c.pk == a.item_pk).values(taken=items.c.taken - 1))
                c.execute(sa.update(assignments).where(assignments.c.pk == a.pk).values(counted=False))
            elif not skip and not a.counted and a.copy == 0 and v.role == "item":
                if self._claim(c, a.item_pk):
                    c.execute(sa.update(assignments).where(assignments.c.pk == a.pk).values(counted=True))
        return "saved"

    def progress(self, annotator_pk: int) -> dict[str, int]:
        a = assignments
        with self.store.engine.connect() as c:
            rows = c.execute(
                sa.select(a.c.item_pk, a.c.copy, answers.c.status)
                .select_from(a.outerjoin(answers, answers.c.assignment_pk == a.c.pk))
                .where(a.c.annotator_pk == annotator_pk)
            ).all()
            have = {r.item_pk for r in rows if r.copy == 0}
            # items with open slots, less those this annotator already has (they cannot take them again)
            n_open = c.execute(
                sa.select(sa.func.count()).where(items.c.taken < self.k, items.c.role == "item")
            ).scalar()
            mine_open = c.execute(
                sa.select(sa.func.count())
                .select_from(a.join(items, items.c.pk == a.c.item_pk))
                .where(a.c.annotator_pk == annotator_pk, a.c.copy == 0, items.c.taken < self.k, items.c.role == "item")
            ).scalar()
        open_items = n_open - mine_open
        done = sum(1 for r in rows if r.status is not None)
        repeats_left = max(0, self.repeats - sum(1 for r in rows if r.copy == 1))
        gold_left = len(set(self.gold) - have) + len(set(self.training) - have)
        return {
            "done": done,
            "skipped": sum(1 for r in rows if r.status == "skipped"),
            "total": len(rows) + open_items + gold_left + repeats_left,
            "assigned_max": len(rows),
        }

    def audio_file(self, audio_pk: int) -> str | None:
        """The file behind an audio id (for the admin), relative to the audio root."""
        with self.store.engine.connect() as c:
            return c.execute(sa.select(audio.c.path).where(audio.c.pk == audio_pk)).scalar()
