"""Every stored answer of a study as one table: annotator, item, timing, the answer mapped back to
the source's terms. What the export and the admin pages read."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

from voxjudge.studio import tasks
from voxjudge.studio.store import annotators, answers, assignments, items


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
                items.c.role,
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
                "gold": json.loads(r.gold) if r.gold and r.role == "gold" else None,
                "role": r.role,
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
