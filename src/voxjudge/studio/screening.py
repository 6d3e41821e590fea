"""Per-rater screening on gold (trap) items, P.808-style: a rater who gets fewer than ``min_gold``
of the gold items right is dropped from the results, and the report says who and why.

A gold answer may give one expected value per field or a list of acceptable ones
(``{"score": [1, 2]}`` for a clip with an obvious defect). A skipped gold item counts as missed:
otherwise a rater could dodge screening by skipping the gold clips (they come at fixed places)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def gold_ok(answer: dict[str, Any], gold: dict[str, Any]) -> bool:
    return all(answer.get(k) in v if isinstance(v, list) else answer.get(k) == v for k, v in gold.items())


def screen(answers: list[dict[str, Any]], min_gold: float) -> dict[str, dict[str, Any]]:
    """Per annotator: gold right/shown (answered or skipped), the failed items, and ``kept`` with the
    reason when not. With ``min_gold`` 0 nobody is dropped; a rater with no gold shown yet is kept as
    unscreened."""
    golds: dict[str, list[dict]] = defaultdict(list)
    names = set()
    for a in answers:
        names.add(a["annotator"])
        if a["gold"] and a["status"] in ("answered", "skipped") and not a["repeat"]:
            golds[a["annotator"]].append(a)
    out = {}
    for name in sorted(names):
        got = golds.get(name, [])
        failed = [a for a in got if a["status"] == "skipped" or not gold_ok(a["answer"], a["gold"])]
        right = len(got) - len(failed)
        row: dict[str, Any] = {"gold": (right, len(got)), "failed": [], "kept": True, "reason": ""}
        row["failed"] = [{"item_id": a["item_id"], "answer": a["answer"], "expected": a["gold"]} for a in failed]
        if min_gold > 0 and not got:
            row["reason"] = "not screened yet (no gold item answered)"
        elif min_gold > 0 and right < min_gold * len(got):
            row["kept"] = False
            detail = "; ".join(
                f"{f['item_id']}: {'skipped' if f['answer'] is None else 'answered ' + _short(f['answer'])}, "
                f"expected {_short(f['expected'])}"
                for f in row["failed"]
            )
            row["reason"] = f"failed {len(failed)} of {len(got)} gold items ({detail})"
        out[name] = row
    return out


def _short(answer: dict[str, Any]) -> str:
    if len(answer) == 1:
        v = next(iter(answer.values()))
        return " or ".join(map(str, v)) if isinstance(v, list) else str(v)
    return ", ".join(f"{k}={v}" for k, v in answer.items())


def dropped(answers: list[dict[str, Any]], min_gold: float) -> set[str]:
    return {name for name, row in screen(answers, min_gold).items() if not row["kept"]}
