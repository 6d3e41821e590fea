"""Studio tasks: how items are read, what an annotator is shown and may answer.

Each task reads its items in the format the matching evaluator already reads, keeps the
original record (``source``) for export, and checks every answer against its scale. Items
never leave the study's database as anything but data: the pages escape them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError

TASKS = ("asr-sentence", "asr-pairs", "breaks", "pairwise", "rank", "mos")
PAIRWISE_DIMS = ("C1", "C2", "C3", "C4", "overall")
SLOTS = ("first", "second", "tie")
BREAK_SCALE = (1, 2, 3, 4, 5)
# ITU-T P.800 absolute category rating, listening-quality scale
ACR = {5: "Excellent", 4: "Good", 3: "Fair", 2: "Poor", 1: "Bad"}
TOP_K = 3


class AnswerError(ValueError):
    """An answer outside the task's scale; the message is shown to the annotator."""


@dataclass
class Item:
    item_id: str
    payload: dict[str, Any]  # what the page shows (never the human labels of the source)
    source: dict[str, Any]  # the record as read, for export
    audio: list[str] = field(default_factory=list)  # absolute paths, in presentation-slot order
    role: str = "item"  # item | gold | training


def _rows(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """Rows of a CSV, TSV or JSONL file with their line numbers."""
    from voxjudge.io.readers import jsonl_objects, read_lines

    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return list(jsonl_objects(path))
    if suffix in (".csv", ".tsv"):
        reader = csv.DictReader(io.StringIO("\n".join(read_lines(path))), delimiter="\t" if suffix == ".tsv" else ",")
        return [(reader.line_num, {k: ("" if v is None else v) for k, v in r.items()}) for r in reader]
    raise InputError(f"{path}: items must be .csv, .tsv or .jsonl for this task")


def _unique(items: list[Item], path: str | Path) -> list[Item]:
    seen: set[str] = set()
    for it in items:
        if it.item_id in seen:
            raise InputError(f"{path}: duplicate item id {it.item_id!r}")
        seen.add(it.item_id)
    if not items:
        raise InputError(f"{path}: no items found")
    return items


def _sentence_item(uid: str, ref: str, hyp: str, lang: str | None) -> Item:
    from voxjudge.asr.laser import utterance_language, words

    language = utterance_language(ref, hyp, lang)
    payload = {"ref": ref, "hyp": hyp, "lang": language, "ref_words": len(words(ref)), "hyp_words": len(words(hyp))}
    return Item(uid, payload, {"id": uid, "ref": ref, "hyp": hyp, "lang": language})


def read_items(task: str, path: str | Path, *, hyp: str | Path | None = None, ids: bool = False) -> list[Item]:
    """Items of ``task`` from ``path`` (and ``hyp`` for sentence pairs given as two files)."""
    if task not in TASKS:
        raise InputError(f"unknown task {task!r}; choose one of {', '.join(TASKS)}")
    if task == "asr-sentence":
        if hyp is not None:  # reference and hypothesis files, read as 'asr score' reads them
            from voxjudge.io import pair_texts, read_texts

            paired = pair_texts(read_texts(path, ids=ids), read_texts(hyp, ids=ids))
            items = [_sentence_item(u, r, h, None) for u, r, h in zip(paired.ids, paired.references, paired.hypotheses)]
            return _unique(items, path)
        items = []
        for n, row in _rows(path):
            if "ref" not in row or "hyp" not in row:
                raise InputError(
                    f"{path}:{n}: needs 'ref' and 'hyp' columns (or give {{hyp}} with a reference file)",
                    options={"hyp": "hyp="},
                )
            items.append(_sentence_item(str(row.get("id") or n), str(row["ref"]), str(row["hyp"]), row.get("lang")))
        return _unique(items, path)
    if task == "asr-pairs":
        return _unique(_word_pairs(path), path)
    if task == "breaks":
        return _unique(_breaks(path), path)
    if task == "pairwise":
        return _unique(_pairs(path), path)
    if task == "mos":
        return _unique(_clips(path), path)
    return _unique(_candidate_sets(path), path)


def _word_pairs(path: str | Path) -> list[Item]:
    """Word pairs (``ref``, ``hyp``, optional ``lang``, ``id``), e.g. from ``asr align --out``: there
    ids name the utterance, so each pair becomes ``id:k``, and matching pairs (op ``equal``) are
    left out (nothing to label)."""
    from collections import Counter

    from voxjudge.asr.laser import utterance_language

    rows = _rows(path)
    repeated = {k for k, n in Counter(str(r.get("id") or "") for _, r in rows).items() if n > 1 and k}
    seen: Counter = Counter()
    items = []
    for n, row in rows:
        if "ref" not in row or "hyp" not in row:
            raise InputError(f"{path}:{n}: needs 'ref' and 'hyp' columns (found: {', '.join(row)})")
        rid = str(row.get("id") or "")
        seen[rid] += 1
        if str(row.get("op", "")) == "equal":
            continue
        ref, hyp = str(row["ref"] or ""), str(row["hyp"] or "")
        if not ref and not hyp:
            raise InputError(f"{path}:{n}: a word pair needs a word on at least one side")
        lang = utterance_language(ref, hyp, str(row.get("lang") or "") or None)
        uid = f"{rid}:{seen[rid]}" if rid in repeated else (rid or f"p{n}")
        source = {"id": uid, "lang": lang, "ref": ref, "hyp": hyp}
        if row.get("op"):
            source["op"] = str(row["op"])
        items.append(Item(uid, {"ref": ref, "hyp": hyp, "lang": lang}, source))
    return items


def _breaks(path: str | Path) -> list[Item]:
    from voxjudge.breaks.annotation import parse
    from voxjudge.io.readers import read_lines

    suffix = Path(path).suffix.lower()
    if suffix in (".tsv", ".csv", ".jsonl", ".ndjson"):
        rows = _rows(path)
    else:  # one inline annotation per line; ids are line numbers, as 'breaks score' reads them
        rows = [(n, {"id": str(n), "annotation": line}) for n, line in enumerate(read_lines(path), 1) if line.strip()]
    items = []
    for n, row in rows:
        if "annotation" not in row:
            raise InputError(f"{path}:{n}: needs an 'annotation' column")
        try:
            ann = parse(str(row["annotation"]), "inline")
        except InputError as e:
            raise InputError(f"{path}:{n}: {e}") from None
        uid = str(row.get("id") or n)
        audio = []
        if row.get("audio"):
            audio.append(_audio_path(Path(path).parent, row["audio"], f"{path}:{n}"))
        payload = {"words": list(ann.words), "labels": list(ann.labels), "annotation": str(row["annotation"])}
        items.append(Item(uid, payload, {"id": uid, **{k: v for k, v in row.items() if k != "id"}}, audio))
    return items


def _clips(path: str | Path) -> list[Item]:
    """MOS clips: ``id``, ``audio`` and optional ``system`` and ``text`` (CSV, TSV or JSONL). Training
    rows may add ``expected`` (a score, or a list of acceptable scores) and ``explain``."""
    items = []
    for n, row in _rows(path):
        if not row.get("audio"):
            raise InputError(f"{path}:{n}: a MOS clip needs an 'audio' column")
        uid = str(row.get("id") or n)
        clip = _audio_path(Path(path).parent, row["audio"], f"{path}:{n}")
        payload = {"text": str(row.get("text") or "")}  # the system stays hidden from the listener
        for key in ("expected", "explain"):
            if row.get(key) not in (None, ""):
                payload[key] = row[key]
        source = {"id": uid, **{k: v for k, v in row.items() if k not in ("id", "expected", "explain")}}
        items.append(Item(uid, payload, source, [clip]))
    return items


def _audio_path(base: Path, value: Any, where: str) -> str:
    p = Path(str(value))
    p = p if p.is_absolute() else base / p
    if not p.is_file():
        raise InputError(f"{where}: audio file {p} not found")
    return str(p.resolve())


def _pairs(path: str | Path) -> list[Item]:
    from voxjudge.io.readers import jsonl_objects
    from voxjudge.pairwise.data import read_pairs

    pairs = read_pairs(path, labels=False)  # the studio collects its own labels
    objects = [obj for _, obj in jsonl_objects(path)]
    items = []
    for pair, obj in zip(pairs, objects):
        source = {k: v for k, v in obj.items() if k not in ("human", "human_confident")}
        audio = [str(pair.audio_a.resolve()), str(pair.audio_b.resolve())]
        items.append(Item(pair.pair_id, {"text": pair.text}, source, audio))
    return items


def _candidate_sets(path: str | Path) -> list[Item]:
    from voxjudge.io.readers import jsonl_objects
    from voxjudge.pairwise.data import read_candidate_sets

    sets = read_candidate_sets(path)
    objects = [obj for _, obj in jsonl_objects(path)]
    items = []
    for cset, obj in zip(sets, objects):
        source = {k: v for k, v in obj.items() if k != "human_topk"}
        audio = [str(p.resolve()) for p in cset.candidates]
        items.append(Item(cset.set_id, {"text": cset.text, "n": len(audio)}, source, audio))
    return items


# --- presentation order -------------------------------------------------------------------


def presentation_order(task: str, n_audio: int, rng) -> list[int] | None:
    """Which source clip each presented slot shows; randomised per annotator and item."""
    if task == "pairwise":
        return [1, 0] if rng.random() < 0.5 else [0, 1]
    if task == "rank":
        return [int(i) for i in rng.permutation(n_audio)]
    return None


# --- answers ----------------------------------------------------------------------------------


def _int(value: Any, name: str) -> int:
    try:
        if isinstance(value, bool):
            raise ValueError
        number = int(str(value).strip())
    except (TypeError, ValueError):
        raise AnswerError(f"{name} must be a whole number") from None
    return number


def validate(task: str, payload: dict[str, Any], order: list[int] | None, answer: dict[str, Any], config) -> dict:
    """The answer cleaned to the task's scale, or AnswerError naming what is wrong."""
    if task == "asr-sentence":
        limit = payload["ref_words"] + payload["hyp_words"]
        out = {}
        for tier in ("major", "minor", "no_penalty"):
            v = _int(answer.get(tier, 0) or 0, tier.replace("_", "-") + " errors")
            if not 0 <= v <= limit:
                raise AnswerError(f"{tier.replace('_', '-')} errors must be between 0 and {limit}")
            out[tier] = v
        if out["major"] + out["minor"] > limit:
            raise AnswerError(f"more errors than words: at most {limit} major and minor errors together")
        return out
    if task == "asr-pairs":
        value = str(answer.get("error_type", ""))
        allowed = [*config["error_types"], "none"]
        if value not in allowed:
            raise AnswerError("choose one error type from the rubric")
        return {"error_type": value}
    if task in ("breaks", "mos"):
        if answer.get("score") in (None, ""):
            raise AnswerError("choose a score from 1 to 5")
        v = _int(answer.get("score"), "score")
        if v not in BREAK_SCALE:
            raise AnswerError("score must be 1, 2, 3, 4 or 5")
        return {"score": v}
    if task == "pairwise":
        out = {}
        for dim in config["dimensions"]:
            v = str(answer.get(dim, ""))
            if v not in SLOTS:
                raise AnswerError(f"choose first, second or tie for {dim}")
            out[dim] = v
        return out
    # rank: presented positions, best first
    top = answer.get("top")
    if isinstance(top, str):
        top = [t for t in top.split(",") if t.strip()]
    n = len(order or [])
    k = min(TOP_K, n)
    if not isinstance(top, list) or len(top) != k:
        raise AnswerError(f"choose the top {k} clips in order")
    picks = [_int(t, "rank") for t in top]
    if len(set(picks)) != k or any(not 0 <= p < n for p in picks):
        raise AnswerError(f"choose {k} different clips")
    return {"top": picks}


def to_source(task: str, answer: dict[str, Any], order: list[int] | None) -> dict[str, Any]:
    """An answer in source terms: presentation slots mapped back to clips A/B or candidate indices."""
    if task == "pairwise":
        swapped = order == [1, 0]
        back = {"first": "B" if swapped else "A", "second": "A" if swapped else "B", "tie": "tie"}
        return {dim: back[v] for dim, v in answer.items()}
    if task == "rank":
        return {"top": [order[p] for p in answer["top"]]}
    return dict(answer)
