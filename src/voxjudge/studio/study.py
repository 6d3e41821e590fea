"""Creating a study, inviting people, exporting: what the ``voxjudge studio`` commands call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxjudge.errors import InputError
from voxjudge.studio import tasks
from voxjudge.studio.store import Store, default_url


def open_store(folder: str | Path, db: str | None = None) -> Store:
    folder = Path(folder)
    if db is None and not (folder / "studio.db").is_file():
        raise InputError(f"{folder}: no study here; create one with 'voxjudge studio init'")
    return Store(db or default_url(folder))


def _task_config(task: str) -> dict[str, Any]:
    if task in ("asr-sentence", "asr-pairs"):
        from voxjudge.asr.laser import LaserRubric

        rubric = LaserRubric.load()
        return {
            "tiers": rubric.tiers,
            "error_types": rubric.type_ids,
            "type_tiers": {t.id: t.tier for t in rubric.types},
            "rubric_sha256": rubric.sha256,
        }
    if task in ("pairwise", "rank"):
        from voxjudge.pairwise.rubric import Rubric

        rubric = Rubric.default()
        return {"dimensions": [*rubric.core, "overall"], "rubric_sha256": rubric.sha256}
    return {}


def _read_gold(path: str | Path, task: str, by_id: dict[str, tasks.Item]) -> dict[str, dict]:
    from voxjudge.io.readers import jsonl_objects

    gold = {}
    for n, obj in jsonl_objects(path):
        uid, answer = str(obj.get("id", "")), obj.get("answer")
        if uid not in by_id:
            raise InputError(f"{path}:{n}: gold id {uid!r} is not an item of the study")
        if not isinstance(answer, dict) or not answer:
            raise InputError(f'{path}:{n}: gold needs an \'answer\' object, e.g. {{"overall": "A"}}')
        gold[uid] = answer
    return gold


def init_study(
    folder: str | Path,
    task: str,
    items_path: str | Path,
    *,
    per_item: int = 3,
    hyp: str | Path | None = None,
    ids: bool = False,
    gold: str | Path | None = None,
    repeats: int = 0,
    seed: int = 0,
    db: str | None = None,
) -> dict[str, Any]:
    """Read and check every item, then create the study's tables in one transaction."""
    if per_item < 1:
        raise InputError("{per_item} must be at least 1", options={"per_item": "per_item"})
    if repeats < 0:
        raise InputError("{repeats} must not be negative", options={"repeats": "repeats"})
    folder = Path(folder)
    found = tasks.read_items(task, items_path, hyp=hyp, ids=ids)
    by_id = {it.item_id: it for it in found}
    gold_answers = _read_gold(gold, task, by_id) if gold else {}
    folder.mkdir(parents=True, exist_ok=True)
    if db is None:
        if (folder / "studio.db").exists():
            raise InputError(f"{folder}: a study already exists here")
    config = {
        "task": task,
        "per_item": per_item,
        "repeats": repeats,
        "seed": seed,
        "items_file": str(Path(items_path).resolve()),
        "items_dir": str(Path(items_path).resolve().parent),
        **_task_config(task),
    }
    store = Store(db or default_url(folder))
    try:
        store.create(config, found, gold_answers)
    finally:
        store.close()
    return {"items": len(found), "gold": len(gold_answers), **config}


def invite(folder: str | Path, name: str, *, admin: bool = False, db: str | None = None) -> str:
    store = open_store(folder, db)
    try:
        return store.invite(name, admin=admin)
    finally:
        store.close()


def export_study(folder: str | Path, out: str | Path, *, fmt: str | None = None, db: str | None = None) -> dict:
    from voxjudge.studio.export import export
    from voxjudge.studio.flow import all_answers

    store = open_store(folder, db)
    try:
        return export(store, all_answers(store), out, fmt)
    finally:
        store.close()
