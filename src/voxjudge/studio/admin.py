"""What the admin page shows: progress and timing per annotator, the per-rater QC table (gold
screening, self-consistency, rating spread), warnings (too few annotators for --per-item, audio
that cannot be served), flags with the clips the annotator heard, MOS per system, agreement per
dimension and the metric's agreement with the humans; and the export behind its button."""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from voxjudge.plural import counted
from voxjudge.studio import media
from voxjudge.studio.agreement import agreement, human_consensus
from voxjudge.studio.screening import screen
from voxjudge.studio.store import annotators, assignments, audio, item_audio, items
from voxjudge.studio.stored_answers import all_answers

AUDIO_CHECK_SECONDS = 30  # how long the admin page reuses its check of every audio file


class AdminView:
    def __init__(self, store, metric: dict[str, Any] | None = None):
        self.store = store
        self.config = store.config
        self.metric = metric
        self._cache: tuple[Any, dict] | None = None
        self._audio: tuple[float, list] | None = None

    def audio_problems(self) -> list[dict[str, str]]:
        """Audio files that cannot be served any more (missing, replaced by a symlink out, not audio)."""
        if self._audio and time.time() - self._audio[0] < AUDIO_CHECK_SECONDS:
            return self._audio[1]
        root = Path(self.config["audio_root"])
        with self.store.engine.connect() as c:
            rows = c.execute(
                sa.select(audio.c.path, items.c.item_id)
                .select_from(audio.join(item_audio, item_audio.c.audio_pk == audio.c.pk).join(items))
                .order_by(items.c.pk)
            ).all()
        bad: dict[str, dict] = {}
        for r in rows:
            if r.path in bad:
                bad[r.path]["items"].append(r.item_id)
                continue
            found = media.locate(root, r.path)
            if isinstance(found, str):
                bad[r.path] = {"path": r.path, "problem": found, "items": [r.item_id]}
        self._audio = (time.time(), list(bad.values()))
        return self._audio[1]

    def clips_heard(self) -> dict[tuple[str, str], list[str]]:
        """(annotator, item id) -> clip files in the order that annotator heard them."""
        with self.store.engine.connect() as c:
            files = {
                (r.item_pk, r.slot): r.path
                for r in c.execute(
                    sa.select(item_audio.c.item_pk, item_audio.c.slot, audio.c.path).select_from(
                        item_audio.join(audio, audio.c.pk == item_audio.c.audio_pk)
                    )
                )
            }
            rows = c.execute(
                sa.select(annotators.c.name, items.c.pk, items.c.item_id, assignments.c.present).select_from(
                    assignments.join(items).join(annotators)
                )
            ).all()
        out = {}
        for r in rows:
            slots = sorted(s for (pk, s) in files if pk == r.pk)
            order = json.loads(r.present) if r.present else slots
            out[(r.name, r.item_id)] = [files[(r.pk, s)] for s in order]
        return out

    def export_file(self) -> tuple[str | None, str, dict]:
        """(file text, file name, summary) of the export the CLI would write, for the admin's button."""
        import tempfile

        from voxjudge.io.writers import write_records
        from voxjudge.studio.export import export_rows

        task = self.config["task"]
        name = "human.jsonl" if task in ("pairwise", "rank") else "human.tsv"
        rows, summary = export_rows(self.store, all_answers(self.store), Path(self.config["items_dir"]) / name)
        if not rows:
            return None, name, summary
        if name.endswith(".tsv"):
            from voxjudge.studio.export import neutralise

            rows, summary["neutralised"] = neutralise(rows)
        with tempfile.TemporaryDirectory() as tmp:  # the very bytes `studio export` writes
            write_records(Path(tmp) / name, rows)
            return (Path(tmp) / name).read_bytes().decode("utf-8"), name, summary

    def payloads(self) -> dict[str, dict]:
        with self.store.engine.connect() as c:
            return {r.item_id: json.loads(r.payload) for r in c.execute(sa.select(items.c.item_id, items.c.payload))}

    def summary(self) -> dict[str, Any]:
        out = self._summary()
        problems = [
            f"audio {p['path']} is {p['problem']} (items {', '.join(p['items'][:5])})" for p in self.audio_problems()
        ]
        return {**out, "warnings": out["warnings"] + problems}

    def _summary(self) -> dict[str, Any]:
        answers = all_answers(self.store)
        with self.store.engine.connect() as c:
            n_people = c.execute(sa.select(sa.func.count()).where(annotators.c.is_admin.is_(False))).scalar()
        key = (len(answers), sum(a["version"] for a in answers), n_people)
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
            n_items = c.execute(sa.select(sa.func.count()).where(items.c.role != "training")).scalar()
        mine: dict[str, list[dict]] = defaultdict(list)
        for a in answers:
            mine[a["annotator"]].append(a)
        qc = screen(answers, float(self.config.get("min_gold", 0.0)))
        rows = []
        for p in sorted(people, key=lambda p: p.name):
            got = mine.get(p.name, [])
            secs = [a["seconds"] for a in got if a["seconds"] is not None]
            scores = [
                a["answer"]["score"]
                for a in got
                if a["status"] == "answered" and a["answer"] and "score" in a["answer"] and a["role"] == "item"
            ]
            screened = qc.get(p.name, {"gold": (0, 0), "kept": True, "reason": ""})
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
                    "gold": screened["gold"],
                    "consistency": (sum(x == y for x, y in again), len(again)),
                    "mean_score": statistics.mean(scores) if scores else None,
                    "sd_score": statistics.stdev(scores) if len(scores) > 1 else None,
                    "kept": screened["kept"],
                    "reason": screened["reason"]
                    or ("every rating the same" if len(scores) >= 5 and len(set(scores)) == 1 else ""),
                }
            )
        answers_per_item = defaultdict(int)
        for a in answers:
            if a["status"] == "answered" and not a["repeat"] and a["role"] != "training":
                answers_per_item[a["item_id"]] += 1
        heard = self.clips_heard() if any(a["flag"] for a in answers) else {}
        flags = [
            {
                "item_id": a["item_id"],
                "annotator": a["annotator"],
                "note": a["note"],
                "status": a["status"],
                "clips": heard.get((a["annotator"], a["item_id"]), []),
            }
            for a in answers
            if a["flag"]
        ]
        k = int(self.config["per_item"])
        warnings = []
        if len(people) < k:
            warnings.append(
                f"{counted(len(people), 'annotator')} invited, but every item needs {k} "
                f"(per item): no item can be complete until {k - len(people)} more are invited"
            )
        mos = None
        if task == "mos":
            from voxjudge.studio.mos import mos_table

            with self.store.engine.connect() as c:
                systems = {
                    r.item_id: str(json.loads(r.source).get("system") or "")
                    for r in c.execute(sa.select(items.c.item_id, items.c.source).where(items.c.role == "item"))
                }
            mos = mos_table(answers, systems, {r["name"] for r in rows if not r["kept"]})
        out = {
            "task": task,
            "per_item": self.config["per_item"],
            "n_items": n_items,
            "complete": sum(1 for n in answers_per_item.values() if n >= self.config["per_item"]),
            "answered_items": len(answers_per_item),
            "n_answers": len(answers),
            "annotators": rows,
            "flags": flags,
            "warnings": warnings,
            "mos": mos,
            "agreement": agreement(task, answers, payloads, self.config, n_resamples=100),
            "metric": None,
        }
        if self.metric is not None:
            from voxjudge.studio.metric import compare

            consensus = human_consensus(task, answers, payloads, self.config)
            out["metric"] = compare(task, self.metric, consensus, n_resamples=500)
        self._cache = (key, out)
        return out
