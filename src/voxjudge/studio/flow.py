"""The annotator's path through a study: hand out the next item, show it, store the answer.

Items are handed out on demand so that each item goes to K annotators, least-covered first
(balanced however many annotators join). A claim takes one of the item's K slots under a
unique constraint, so two annotators racing for the last slot cannot both get it. Gold items go
to everyone; a few answered items come back once more (a repeat) to measure self-consistency.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from voxjudge.studio import tasks
from voxjudge.studio.store import annotators, answers, assignments, audio, item_audio, items

GAP = 5  # a gold or a repeat every GAP items
_CLAIM_TRIES = 200


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


def _upsert(dialect: str):
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert


class Flow:
    def __init__(self, store):
        self.store = store
        self.config = store.config
        self.task = self.config["task"]
        self.k = int(self.config["per_item"])
        self.repeats = int(self.config.get("repeats", 0))
        self.insert = _upsert(store.engine.dialect.name)
        with store.engine.connect() as c:  # gold items are fixed when the study is created
            self.gold = list(
                c.execute(sa.select(items.c.pk).where(items.c.gold.isnot(None)).order_by(items.c.shuffle)).scalars()
            )

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
        gold_left = [pk for pk in self.gold if pk not in have]
        fresh = self._fresh(c, have)
        repeat_pool = self._repeat_pool(c, annotator_pk, repeated) if len(repeated) < self.repeats else []
        seq = n_mine + 1
        if gold_left and (n_mine % GAP == 2 or fresh is None):
            return self._assign(c, annotator_pk, gold_left[0], 0, None, seq)
        if repeat_pool and (n_mine % GAP == 4 or fresh is None):
            rng = np.random.default_rng([self.config["seed"], annotator_pk, len(repeated), 7])
            return self._assign(c, annotator_pk, int(rng.choice(repeat_pool)), 1, None, seq)
        if fresh is None:
            return None
        item_pk, taken = fresh
        return self._assign(c, annotator_pk, item_pk, 0, taken, seq)

    def _fresh_query(self, have: set[int]):
        q = sa.select(items.c.pk, items.c.taken).where(items.c.gold.is_(None), items.c.taken < self.k)
        return q.where(items.c.pk.notin_(have)) if have else q

    def _fresh(self, c, have: set[int]) -> tuple[int, int] | None:
        # PostgreSQL: rows another claim holds are skipped, so concurrent annotators take different
        # items instead of queueing on one (SQLite serialises writers and ignores the clause).
        q = self._fresh_query(have).order_by(items.c.taken, items.c.shuffle).limit(1)
        row = c.execute(q.with_for_update(skip_locked=True, of=items)).first()
        return None if row is None else (row.pk, int(row.taken))

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

    def _assign(self, c, annotator_pk: int, item_pk: int, copy: int, slot: int | None, seq: int) -> int:
        if slot is not None:  # take the slot; a racing claim of the same slot updates nothing
            done = c.execute(
                sa.update(items).where(items.c.pk == item_pk, items.c.taken == slot).values(taken=slot + 1)
            ).rowcount
            if done != 1:
                raise IntegrityError("slot taken", None, Exception("slot taken"))
        n_audio = c.execute(sa.select(sa.func.count()).where(item_audio.c.item_pk == item_pk)).scalar()
        rng = np.random.default_rng([self.config["seed"], annotator_pk, item_pk, copy])
        present = tasks.presentation_order(self.task, n_audio, rng)
        c.execute(
            sa.insert(assignments).values(
                annotator_pk=annotator_pk,
                item_pk=item_pk,
                copy=copy,
                slot=slot,
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
                    answers.c.answer,
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
            clips = dict(
                c.execute(
                    sa.select(item_audio.c.slot, item_audio.c.audio_pk).where(item_audio.c.item_pk == row.item_pk)
                ).all()
            )
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
    ) -> None:
        """Validate and store one answer. The same submission id twice stores it once."""
        v = self.view(annotator_pk, seq)
        answer = None if skip else tasks.validate(self.task, v.payload, v.present, fields, self.config)
        if not submission_id or len(submission_id) > 64:
            raise tasks.AnswerError("the form is missing its submission id; reload the page")
        now = time.time()
        with self.store.writer.begin() as c:
            a = c.execute(
                sa.select(assignments.c.pk, assignments.c.shown_at).where(
                    assignments.c.annotator_pk == annotator_pk, assignments.c.seq == seq
                )
            ).one()
            stmt = self.insert(answers).values(
                assignment_pk=a.pk,
                status="skipped" if skip else "answered",
                answer=None if answer is None else json.dumps(answer),
                flag=flag,
                note=note[:2000],
                submission_id=submission_id,
                version=1,
                seconds=None if a.shown_at is None else max(0.0, now - a.shown_at),
                first_at=now,
                updated_at=now,
            )
            ex = stmt.excluded
            c.execute(
                stmt.on_conflict_do_update(
                    index_elements=[answers.c.assignment_pk],
                    set_={
                        "status": ex.status,
                        "answer": ex.answer,
                        "flag": ex.flag,
                        "note": ex.note,
                        "submission_id": ex.submission_id,
                        "version": answers.c.version + 1,
                        "updated_at": ex.updated_at,
                    },
                    where=answers.c.submission_id != ex.submission_id,
                )
            )

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
                sa.select(sa.func.count()).where(items.c.taken < self.k, items.c.gold.is_(None))
            ).scalar()
            mine_open = c.execute(
                sa.select(sa.func.count())
                .select_from(a.join(items, items.c.pk == a.c.item_pk))
                .where(a.c.annotator_pk == annotator_pk, a.c.copy == 0, items.c.taken < self.k, items.c.gold.is_(None))
            ).scalar()
        open_items = n_open - mine_open
        done = sum(1 for r in rows if r.status is not None)
        repeats_left = max(0, self.repeats - sum(1 for r in rows if r.copy == 1))
        gold_left = len(set(self.gold) - have)
        return {
            "done": done,
            "skipped": sum(1 for r in rows if r.status == "skipped"),
            "total": len(rows) + open_items + gold_left + repeats_left,
            "assigned_max": len(rows),
        }

    def audio_path(self, who, audio_pk: int) -> str | None:
        """The file behind an audio id, only if it belongs to one of this annotator's items (admins: any)."""
        with self.store.engine.connect() as c:
            q = sa.select(audio.c.path).where(audio.c.pk == audio_pk)
            if not who.is_admin:
                q = q.where(
                    sa.exists().where(
                        item_audio.c.audio_pk == audio.c.pk,
                        item_audio.c.item_pk == assignments.c.item_pk,
                        assignments.c.annotator_pk == who.pk,
                    )
                )
            return c.execute(q).scalar()


def all_answers(store) -> list[dict[str, Any]]:
    """Every stored answer with its annotator, item and timing; answers mapped back to source terms."""
    task = store.config["task"]
    a = assignments
    with store.engine.connect() as c:
        rows = c.execute(
            sa.select(
                annotators.c.name,
                annotators.c.pk.label("annotator_pk"),
                items.c.item_id,
                items.c.gold,
                a.c.copy,
                a.c.seq,
                a.c.present,
                answers.c.status,
                answers.c.answer,
                answers.c.flag,
                answers.c.note,
                answers.c.seconds,
                answers.c.version,
            )
            .select_from(
                a.join(answers, answers.c.assignment_pk == a.c.pk)
                .join(items, items.c.pk == a.c.item_pk)
                .join(annotators, annotators.c.pk == a.c.annotator_pk)
            )
            .order_by(items.c.pk, annotators.c.name, a.c.copy)
        ).all()
    out = []
    for r in rows:
        present = json.loads(r.present) if r.present else None
        raw = json.loads(r.answer) if r.answer else None
        out.append(
            {
                "annotator": r.name,
                "annotator_pk": r.annotator_pk,
                "item_id": r.item_id,
                "gold": json.loads(r.gold) if r.gold else None,
                "repeat": r.copy == 1,
                "seq": r.seq,
                "status": r.status,
                "answer": None if raw is None else tasks.to_source(task, raw, present),
                "flag": bool(r.flag),
                "note": r.note or "",
                "seconds": r.seconds,
                "version": r.version,
            }
        )
    return out
