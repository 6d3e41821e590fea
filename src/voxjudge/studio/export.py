"""Export the humans' answers in exactly the format each evaluator's ``--human`` input reads.

| task | file | read by |
|---|---|---|
| asr-sentence | id, score (LASER from the error counts, mean over annotators) | ``asr score --human`` |
| breaks | id, score (mean 1-5 rating) | ``breaks score --human`` |
| asr-pairs | id, lang, ref, hyp, label, error_type (majority) | ``asr train`` / ``asr export-pairs`` |
| pairwise | the pairs JSONL with ``human`` (majority per dimension) and ``human_confident`` | ``pairwise analyze`` |
| rank | the candidate sets JSONL with the agreed ordered ``human_topk`` | ``pairwise select`` |
| mos | id, score (MOS), n_annotators, ci_low, ci_high, sd, system | ``stats agree --human``, ``--human`` score inputs |

Skipped answers, repeats (self-consistency checks), training items and the answers of raters
dropped by gold screening are left out; items nobody answered are not written, and the summary
says how many items had answers (an export made mid-study is partial). Audio paths are rewritten
relative to the output file. CSV and TSV exports neutralise spreadsheet formulas (``neutralise``:
a text cell starting with ``= + - @``, tab or CR gets a leading ``'``); JSONL is written as is.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError

TIER_ORDER = ("match", "no_penalty", "minor", "major")


def laser_score(answer: dict[str, int], ref_words: int, tiers: dict[str, float]) -> float | None:
    """LASER from an annotator's error counts: 1 - (minor and major penalties) / reference words."""
    if not ref_words:
        return None
    penalty = (
        answer["major"] * tiers["major"] + answer["minor"] * tiers["minor"] + answer["no_penalty"] * tiers["no_penalty"]
    )
    return 1 - penalty / ref_words


def votes_by_item(answers: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Counted answers (answered, not repeats, not training) per item id, in stored order."""
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for a in answers:
        if a["status"] == "answered" and not a["repeat"] and a.get("role") != "training":
            out[a["item_id"]].append(a)
    return out


def plurality(values: list[Any]) -> Any | None:
    """The single most frequent value, or None when two values share the top count."""
    counts = Counter(values).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def per_annotator_values(task: str, answer: dict[str, Any], payload: dict[str, Any], config) -> dict[str, Any]:
    """The values an answer contributes per agreement dimension (source terms)."""
    if task == "asr-sentence":
        return {"laser": laser_score(answer, payload["ref_words"], config["tiers"])}
    if task == "asr-pairs":
        return {"error_type": answer["error_type"], "tier": config["type_tiers"].get(answer["error_type"], "match")}
    if task in ("breaks", "mos"):
        return {"score": answer["score"]}
    if task == "pairwise":
        return dict(answer)
    top = answer["top"]
    return {"top1": top[0], "top3": ",".join(map(str, top))}


def _rel_audio(value: str, items_dir: Path, out_dir: Path) -> str:
    p = Path(value)
    p = p if p.is_absolute() else items_dir / p
    try:
        return os.path.relpath(p.resolve(), out_dir.resolve())
    except ValueError:  # another drive
        return str(p.resolve())


def export_rows(store, answers: list[dict[str, Any]], out: str | Path) -> tuple[list[dict[str, Any]], dict]:
    """Rows to write and a summary (items written, left out and why)."""
    import json

    import sqlalchemy as sa

    from voxjudge.studio.screening import screen
    from voxjudge.studio.store import items

    config = store.config
    task = config["task"]
    with store.engine.connect() as c:
        rows = c.execute(
            sa.select(items.c.item_id, items.c.payload, items.c.source)
            .where(items.c.role != "training", *([items.c.role == "item"] if task == "mos" else []))
            .order_by(items.c.pk)
        ).all()
    screened = screen(answers, float(config.get("min_gold", 0.0)))
    drop = {name for name, r in screened.items() if not r["kept"]}
    answers = [a for a in answers if a["annotator"] not in drop]
    votes = votes_by_item(answers)
    mos = None
    if task == "mos":
        from voxjudge.studio.mos import mos_table

        systems = {r.item_id: str(json.loads(r.source).get("system") or "") for r in rows}
        mos = mos_table(answers, systems, set())
    items_dir = Path(config["items_dir"])
    out_dir = Path(out).parent
    written, unresolved = [], []
    for r in rows:
        got = votes.get(r.item_id)
        if not got:
            continue
        payload, source = json.loads(r.payload), json.loads(r.source)
        if task == "mos":
            m = mos["clips"].get(r.item_id)
            if m is None:
                continue
            written.append(
                {
                    "id": r.item_id,
                    "score": round(m["mos"], 6),
                    "n_annotators": m["n"],
                    "ci_low": None if m["ci_low"] is None else round(m["ci_low"], 6),
                    "ci_high": None if m["ci_high"] is None else round(m["ci_high"], 6),
                    "sd": None if m["sd"] is None else round(m["sd"], 6),
                    "system": m["system"],
                }
            )
        elif task in ("asr-sentence", "breaks"):
            values = [per_annotator_values(task, a["answer"], payload, config) for a in got]
            key = "laser" if task == "asr-sentence" else "score"
            scores = [v[key] for v in values if v[key] is not None]
            if not scores:
                unresolved.append(r.item_id)
                continue
            written.append({"id": r.item_id, "score": round(sum(scores) / len(scores), 6), "n_annotators": len(scores)})
        elif task == "asr-pairs":
            types = [a["answer"]["error_type"] for a in got]
            winner = plurality(types)
            if winner is None:
                unresolved.append(r.item_id)
                continue
            label = config["type_tiers"].get(winner, "match")
            written.append(
                {
                    **source,
                    "label": label,
                    "error_type": winner,
                    "n_annotators": len(types),
                    "agreement": round(types.count(winner) / len(types), 4),
                }
            )
        elif task == "pairwise":
            human, confident = {}, []
            for dim in config["dimensions"]:
                labels = [a["answer"][dim] for a in got]
                winner = plurality(labels)
                if winner is None:
                    continue
                human[dim] = winner
                if len(labels) >= 2 and labels.count(winner) == len(labels):
                    confident.append(dim)
            rec = dict(source)
            for side in ("audio_a", "audio_b"):
                rec[side] = _rel_audio(rec[side], items_dir, out_dir)
            written.append({**rec, "human": human, "human_confident": confident, "n_annotators": len(got)})
        else:  # rank: the ordered top three every annotator agrees on
            rankings = [tuple(a["answer"]["top"]) for a in got]
            rec = dict(source)
            cands = list(rec["candidates"])
            rec["candidates"] = [_rel_audio(x, items_dir, out_dir) for x in cands]
            if len(set(rankings)) == 1:
                rec["human_topk"] = [rec["candidates"][i] for i in rankings[0]]
            else:
                unresolved.append(r.item_id)
            written.append({**rec, "n_annotators": len(got)})
    summary = {
        "task": task,
        "written": len(written),
        "unresolved": unresolved,
        "items": len(rows),
        "answered": sum(1 for r in rows if votes.get(r.item_id)),
        "dropped": {name: r["reason"] for name, r in screened.items() if not r["kept"]},
        "systems": None if mos is None else mos["systems"],
    }
    return written, summary


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may read as the start of a formula


def _safe(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_START) else text


def neutralise(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Rows for a CSV/TSV file that a spreadsheet may open, made inert as OWASP recommends for CSV
    injection: every text cell (and column name) that starts with ``= + - @``, a tab or a carriage
    return gets a leading single quote, so it is shown as text, never run as a formula; the CSV
    writer quotes cells that hold the separator, quotes or line breaks. Numbers are left alone (the
    export's numbers are computed, not typed). Returns the rows and how many cells changed."""
    changed = 0
    out = []
    for row in rows:
        clean = {}
        for k, v in row.items():
            key = _safe(k)
            if isinstance(v, str) and _safe(v) != v:
                v = _safe(v)
                changed += 1
            changed += key != k
            clean[key] = v
        out.append(clean)
    return out, changed


def export(
    store, answers: list[dict[str, Any]], out: str | Path, fmt: str | None = None, systems: str | Path | None = None
) -> dict:
    """Write the export; ``systems`` (mos): also the per-system MOS table (id = system name)."""
    from voxjudge.io.writers import format_for, write_records

    task = store.config["task"]
    if systems is not None and task != "mos":
        raise InputError("{systems} is for the mos task", options={"systems": "systems="})
    fmt = fmt or format_for(out)
    if task in ("pairwise", "rank") and fmt != "jsonl":
        raise InputError(f"{out}: the {task} task exports JSONL (the format 'pairwise' reads); use a .jsonl name")
    if task not in ("pairwise", "rank") and fmt not in ("tsv", "csv", "jsonl"):
        raise InputError(f"{out}: export as .tsv, .csv or .jsonl")
    rows, summary = export_rows(store, answers, out)
    if not rows:
        raise InputError("no answers to export yet")
    if fmt in ("tsv", "csv"):
        rows, summary["neutralised"] = neutralise(rows)
    write_records(out, rows, fmt)
    if systems is not None:
        table = [
            {
                "id": name or "(none)",
                "score": round(m["mos"], 6),
                "ci_low": None if m["ci_low"] is None else round(m["ci_low"], 6),
                "ci_high": None if m["ci_high"] is None else round(m["ci_high"], 6),
                "n_ratings": m["n"],
                "n_clips": m["clips"],
            }
            for name, m in summary["systems"].items()
        ]
        if format_for(systems) in ("tsv", "csv"):  # system names come from the items file, as untrusted as ids
            table, n = neutralise(table)
            summary["neutralised"] = summary.get("neutralised", 0) + n
        write_records(systems, table, format_for(systems))
    return summary
