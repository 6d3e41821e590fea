"""Creating a study, inviting people, exporting: what the ``voxjudge studio`` commands call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxjudge.errors import InputError
from voxjudge.studio import media, tasks
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


def _read_training(path: str | Path, task: str, by_id: dict[str, tasks.Item]) -> tuple[list[tasks.Item], dict]:
    """Training clips (MOS): rated first, never counted; ``expected`` becomes the feedback shown."""
    if task != "mos":
        raise InputError("{training} is for the mos task", options={"training": "training="})
    found = tasks.read_items(task, path)
    expected = {}
    for it in found:
        if it.item_id in by_id:
            raise InputError(f"{path}: training id {it.item_id!r} is also an item of the study; give it another id")
        it.role = "training"
        if "expected" in it.payload:
            expected[it.item_id] = {"score": _scores(it.payload["expected"], f"{path}: {it.item_id}")}
    return found, expected


def _scores(value: Any, where: str) -> int | list[int]:
    """A gold or training expectation for a 1-5 rating: one score or a list of acceptable ones."""
    if isinstance(value, str):
        value = [v for v in value.replace(";", ",").split(",") if v.strip()]
        value = value[0] if len(value) == 1 else value
    vals = value if isinstance(value, list) else [value]
    try:
        ints = [int(str(v).strip()) for v in vals]
    except ValueError:
        raise InputError(f"{where}: expected score {value!r} must be 1-5 or a list of them") from None
    if not ints or any(v not in tasks.BREAK_SCALE for v in ints):
        raise InputError(f"{where}: expected score {value!r} must be 1-5 or a list of them")
    return ints if isinstance(value, list) else ints[0]


def init_study(
    folder: str | Path,
    task: str,
    items_path: str | Path,
    *,
    per_item: int = 3,
    hyp: str | Path | None = None,
    ids: bool = False,
    gold: str | Path | None = None,
    training: str | Path | None = None,
    repeats: int = 0,
    seed: int = 0,
    overlap: float = 0.1,
    min_gold: float | None = None,
    audio_root: str | Path | None = None,
    db: str | None = None,
) -> dict[str, Any]:
    """Read and check every item, then create the study's tables in one transaction.

    ``overlap``: the share of items that get two answers before any other item gets its first,
    so agreement can be measured early. ``min_gold``: the share of gold items a rater must get
    right to be kept (default 1.0 for mos, 0 = no screening for the other tasks). Audio must lie
    under ``audio_root`` (default: the items file's folder). ``warnings`` in the result: mos clips
    (not gold) whose loudest 20 ms is below -40 dBFS, i.e. with no speech to rate.
    """
    if per_item < 1:
        raise InputError("{per_item} must be at least 1", options={"per_item": "per_item"})
    if repeats < 0:
        raise InputError("{repeats} must not be negative", options={"repeats": "repeats"})
    if not 0 <= overlap <= 1:
        raise InputError("{overlap} must be between 0 and 1", options={"overlap": "overlap"})
    min_gold = (1.0 if task == "mos" else 0.0) if min_gold is None else min_gold
    if not 0 <= min_gold <= 1:
        raise InputError("{min_gold} must be between 0 and 1", options={"min_gold": "min_gold"})
    folder = Path(folder)
    found = tasks.read_items(task, items_path, hyp=hyp, ids=ids)
    by_id = {it.item_id: it for it in found}
    gold_answers = _read_gold(gold, task, by_id) if gold else {}
    if task == "mos":
        gold_answers = {k: {"score": _scores(v.get("score"), f"{gold}: {k}")} for k, v in gold_answers.items()}
    for uid in gold_answers:
        by_id[uid].role = "gold"
    trained, expected = _read_training(training, task, by_id) if training else ([], {})
    root = Path(audio_root or Path(items_path).parent).resolve()
    if not root.is_dir():
        raise InputError(f"audio root {root} is not a folder")
    audio_info: dict[str, tuple] = {}
    warnings = []
    for it in [*found, *trained]:
        rels = []
        for path in it.audio:
            rel, kind, seconds, level = media.admit(root, path, f"item {it.item_id}", loudness=task == "mos")
            audio_info[rel] = (kind, seconds)
            rels.append(rel)
            if level is not None and level < media.SILENT_DBFS and not (it.role == "gold"):
                loudest = "no sound at all" if level == float("-inf") else f"its loudest 20 ms at {level:.0f} dBFS"
                warnings.append(
                    f"item {it.item_id}: audio {rel} is silent ({loudest}): raters will have no speech to rate "
                    "(a silent clip meant as a check belongs in the gold file)"
                )
        it.audio = rels
    if task == "mos":
        unknown = [it.item_id for it in [*found, *trained] if audio_info[it.audio[0]][1] is None]
        if unknown:
            raise InputError(
                f"item {unknown[0]}: cannot read the clip's duration (needed to check it was heard to the end); "
                "use WAV, or install soundfile"
            )
    folder.mkdir(parents=True, exist_ok=True)
    if db is None:
        if (folder / "studio.db").exists():
            raise InputError(f"{folder}: a study already exists here")
    config = {
        "task": task,
        "per_item": per_item,
        "repeats": repeats,
        "seed": seed,
        "overlap": overlap,
        "min_gold": min_gold,
        "must_listen": task == "mos",
        "audio_root": str(root),
        "items_file": str(Path(items_path).resolve()),
        "items_dir": str(Path(items_path).resolve().parent),
        **_task_config(task),
    }
    store = Store(db or default_url(folder))
    try:
        store.create(config, [*trained, *found], {**gold_answers, **expected}, audio_info)
    finally:
        store.close()
    return {"items": len(found), "gold": len(gold_answers), "training": len(trained), "warnings": warnings, **config}


def invite(folder: str | Path, name: str, *, admin: bool = False, db: str | None = None) -> tuple[str, str | None]:
    """The person's new token, and a warning when fewer annotators are invited than ``per_item`` needs."""
    store = open_store(folder, db)
    try:
        token = store.invite(name, admin=admin)
        k, n = int(store.config["per_item"]), store.n_annotators()
        warning = None
        if n < k:
            warning = f"{n} of the {k} annotators each item needs are invited; no item is complete before {k - n} more"
        return token, warning
    finally:
        store.close()


def export_study(
    folder: str | Path,
    out: str | Path,
    *,
    fmt: str | None = None,
    db: str | None = None,
    systems: str | Path | None = None,
) -> dict:
    from voxjudge.studio.export import export
    from voxjudge.studio.stored_answers import all_answers

    store = open_store(folder, db)
    try:
        return export(store, all_answers(store), out, fmt, systems=systems)
    finally:
        store.close()
