"""What the admin page shows: progress and timing per annotator, gold accuracy, self-consistency,
flags, agreement per dimension and the metric's agreement with the humans."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from typing import Any

import sqlalchemy as sa

from voxjudge.studio.agreement import agreement, human_consensus
from voxjudge.studio.flow import all_answers
from voxjudge.studio.store import annotators, assignments, items


def _gold_ok(answer: dict[str, Any], gold: dict[str, Any]) -> bool:
    return all(answer.get(k) == v for k, v in gold.items())


class AdminView:
    def __init__(self, store, metric: dict[str, Any] | None = None):
        self.store = store
        self.config = store.config
        self.metric = metric
        self._cache: tuple[Any, dict] | None = None

    def payloads(self) -> dict[str, dict]:
        with self.store.engine.connect() as c:
            return {r.item_id: json.loads(r.payload) for r in c.execute(sa.select(items.c.item_id, items.c.payload))}

    def summary(self) -> dict[str, Any]:
        answers = all_answers(self.store)
        key = (len(answers), sum(a["version"] for a in answers))
        if self._cache and self._cache[0] == key:  # agreement bootstraps are the slow part
            return self._cache[1]
        task = self.config["task"]
        payloads = self.payloads()
        with self.store.engine.connect() as c:
            people = c.execute(sa.select(annotators.c.pk, annotators.c.name).where(annotators.c.is_admin.is_(False)))
            people = people.all()
            assigned = dict(
                c.execute(
                    sa.select(assignments.c.annotator_pk, sa.func.count()).group_by(assignments.c.annotator_pk)
                ).all()
            )
            n_items = c.execute(sa.select(sa.func.count()).select_from(items)).scalar()
        mine: dict[str, list[dict]] = defaultdict(list)
        for a in answers:
            mine[a["annotator"]].append(a)
        rows = []
        for p in sorted(people, key=lambda p: p.name):
            got = mine.get(p.name, [])
            secs = [a["seconds"] for a in got if a["seconds"] is not None]
            gold = [a for a in got if a["gold"] and a["status"] == "answered" and not a["repeat"]]
            first = {a["item_id"]: a["answer"] for a in got if not a["repeat"] and a["status"] == "answered"}
            again = [
                (first[a["item_id"]], a["answer"])
                for a in got
                if a["repeat"] and a["status"] == "answered" and a["item_id"] in first
            ]
            rows.append(
                {
                    "name": p.name,
                    "assigned": assigned.get(p.pk, 0),
                    "answered": sum(a["status"] == "answered" for a in got),
                    "skipped": sum(a["status"] == "skipped" for a in got),
                    "flagged": sum(a["flag"] for a in got),
                    "median_seconds": statistics.median(secs) if secs else None,
                    "gold": (sum(_gold_ok(a["answer"], a["gold"]) for a in gold), len(gold)),
                    "consistency": (sum(x == y for x, y in again), len(again)),
                }
            )
        counted = defaultdict(int)
        for a in answers:
            if a["status"] == "answered" and not a["repeat"]:
                counted[a["item_id"]] += 1
        flags = [
            {"item_id": a["item_id"], "annotator": a["annotator"], "note": a["note"], "status": a["status"]}
            for a in answers
            if a["flag"]
        ]
        out = {
            "task": task,
            "per_item": self.config["per_item"],
            "n_items": n_items,
            "complete": sum(1 for n in counted.values() if n >= self.config["per_item"]),
            "n_answers": len(answers),
            "annotators": rows,
            "flags": flags,
            "agreement": agreement(task, answers, payloads, self.config, n_resamples=100),
            "metric": None,
        }
        if self.metric is not None:
            from voxjudge.studio.metric import compare

            consensus = human_consensus(task, answers, payloads, self.config)
            out["metric"] = compare(task, self.metric, consensus, n_resamples=500)
        self._cache = (key, out)
        return out
