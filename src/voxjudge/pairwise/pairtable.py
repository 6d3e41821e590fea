"""What ``pairwise judge`` shows per pair: the winner of each measured dimension, the weighted
verdict ``V_w`` (ties on zero), and whether the two presentation orders agree.

The two orders are aggregated apart (the judgments with clip A first, and those with clip B
first) and their weighted verdicts compared: a judge that follows the slot rather than the clip
gives different verdicts in the two orders. ``orders_agree`` is None when an order has no usable
verdict (one sample, or every judgment of an order abstained).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from voxjudge.pairwise.protocol import aggregate
from voxjudge.pairwise.rubric import Rubric

VERDICTS = ("A", "B", "tie", "abstain")


def pair_rows(records: Sequence[dict[str, Any]], rubric: Rubric) -> list[dict[str, Any]]:
    """One row per judged pair, in the records' order."""
    results = aggregate(records, rubric)
    by_order = {
        first: aggregate([r for r in records if r["first"] == first], rubric) for first in ("A", "B")
    }  # fmt: skip
    flags: dict[str, str] = {}
    for r in records:
        if r.get("flag"):
            flags.setdefault(r["pair_id"], r["flag"])
    rows = []
    for pid, res in results.items():
        orders = {first: (by_order[first][pid].overall if pid in by_order[first] else None) for first in ("A", "B")}
        usable = [v for v in orders.values() if v not in (None, "abstain")]
        rows.append(
            {
                "pair_id": pid,
                "dimensions": dict(res.verdicts),  # measured dimensions only
                "verdict": res.overall,
                "margin": res.margin if res.overall != "abstain" else None,
                "orders": orders,  # V_w of the A-first and of the B-first judgments
                "orders_agree": (usable[0] == usable[1]) if len(usable) == 2 else None,
                "flag": flags.get(pid),
            }
        )
    return rows


def verdict_counts(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How many pairs each verdict has, and how many pairs' orders agree (of those with both)."""
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}
    both = [r["orders_agree"] for r in rows if r["orders_agree"] is not None]
    return {
        "verdicts": counts,
        "orders_compared": len(both),
        "orders_agree": sum(both),
        "orders_agree_rate": sum(both) / len(both) if both else None,
    }


__all__ = ["VERDICTS", "pair_rows", "verdict_counts"]
