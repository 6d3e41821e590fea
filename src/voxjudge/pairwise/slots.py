"""What the protocol asks of a pair judge and gets back: the two presentation orders and how the
samples are shared between them, the judge's interface, and one judgment in slot order.

The runner (``protocol.py``) and the judges (``judges.py``) both stand on it, so neither has to
import the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from voxjudge.pairwise.data import Pair


def orders(samples: int) -> list[tuple[str, int]]:
    """(clip presented first, number of samples) for the two orders."""
    if samples < 1:
        raise ValueError("samples must be at least 1")
    return [("A", (samples + 1) // 2), ("B", samples // 2)]


@dataclass
class SlotJudgment:
    """One sampled judgment in presented order: scores of the first and second slot."""

    first: dict[str, float] = field(default_factory=dict)
    second: dict[str, float] = field(default_factory=dict)
    rationale: dict[str, str] = field(default_factory=dict)
    verdict: str | None = None  # coupled mode: "first", "second" or "tie"
    error: str | None = None
    flag: str | None = None  # a pair decided without rating (one clip holds no speech), and why


class PairJudge(Protocol):
    """Optional attributes: ``deterministic`` (True: the same inputs give the same judgment, so
    one judgment per order stands for all samples) and ``measures`` (the dimension ids the judge
    can score at all; None: every dimension of the rubric)."""

    name: str
    mode: str

    async def judge(self, pair: Pair, first: str, samples: int) -> list[SlotJudgment]:
        """``samples`` judgments of ``pair`` with clip ``first`` ("A" or "B") presented first."""
        ...


__all__ = ["PairJudge", "SlotJudgment", "orders"]
