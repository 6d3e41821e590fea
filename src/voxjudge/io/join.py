"""Join two id-keyed sides (a metric's items and a human file, a pairs file and its judgments):
the one place that decides what a partial join may do.

``join_by_id(left, right, ...)`` returns a ``Joined``: the matched ``(id, left value, right
value)`` triples in left order plus, for each side, how many ids it has, how many matched and
which did not. Rules, the same for every command that joins:

- no id in common is always an ``InputError`` (the files are about different items);
- an id of ``left`` that ``right`` lacks is an ``InputError`` naming the first ids and the
  ``allow_partial`` setting, unless ``allow_partial``;
- an id of ``right`` that ``left`` lacks is an error too unless ``allow_partial``, or unless
  ``right_extra="ignore"`` (a human file of the whole study beside a run of some of it);
- with ``allow_partial`` the intersection is used and ``Joined.coverage()`` says how much.

Used by ``breaks score --human``, ``stats agree``, ``pairwise analyze|compare`` and
``asr score --human``; the caller turns ``coverage()`` into the coverage line of its summary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from voxjudge.errors import InputError, few_ids
from voxjudge.plural import counted

L = TypeVar("L")
R = TypeVar("R")

PARTIAL_OPTION = {"allow_partial": "allow_partial=True"}


@dataclass(frozen=True)
class JoinSide:
    """One side of a join: its name (a file, or a role such as "human scores"), its number of
    distinct ids, how many of them matched, and the unmatched ids in the side's own order."""

    name: str
    n: int
    matched: int
    missing: list[str] = field(default_factory=list)  # ids of this side without a partner

    @property
    def coverage(self) -> float:
        return self.matched / self.n if self.n else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n": self.n,
            "matched": self.matched,
            "coverage": self.coverage,
            "unmatched": len(self.missing),
            "unmatched_ids": list(self.missing),
        }


@dataclass(frozen=True)
class Joined(Generic[L, R]):
    """The matched items in left order (``ids``, ``left``, ``right`` are parallel) and both sides'
    coverage. ``partial`` is true when any id of either side went unmatched."""

    ids: list[str]
    left: list[L]
    right: list[R]
    left_side: JoinSide
    right_side: JoinSide
    allow_partial: bool = False

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def partial(self) -> bool:
        return bool(self.left_side.missing or self.right_side.missing)

    @property
    def left_partial(self) -> bool:
        """Some ids of ``left`` (the evaluated items) have no partner: aggregates cover fewer."""
        return bool(self.left_side.missing)

    def triples(self) -> Iterable[tuple[str, L, R]]:
        return zip(self.ids, self.left, self.right)

    def right_by_id(self) -> dict[str, R]:
        return dict(zip(self.ids, self.right))

    def coverage(self) -> dict[str, Any]:
        """JSON-ready: ``matched``, ``partial``, and per side ``n``/``matched``/``coverage``/
        ``unmatched``/``unmatched_ids``."""
        return {
            "matched": len(self.ids),
            "partial": self.partial,
            "allow_partial": self.allow_partial,
            "left": self.left_side.as_dict(),
            "right": self.right_side.as_dict(),
        }


def coverage_text(cov: dict[str, Any], what: str = "items", covered: str = "every number below covers") -> str:
    """A ``Joined.coverage()`` in words, for a summary's first line or a report's coverage box;
    "" when both sides matched fully."""
    left, right = cov["left"], cov["right"]
    parts = []
    if left["unmatched"]:
        parts.append(
            f"partial: {cov['matched']} of {left['n']} {what} of {left['name']} matched in {right['name']} "
            f"({100 * left['coverage']:.2f}%); {covered} only those {cov['matched']}"
        )
    if right["unmatched"]:
        n = right["unmatched"]
        parts.append(f"{_ids(n)} of {right['name']} not among the {what} {'was' if n == 1 else 'were'} ignored")
    return "; ".join(parts)


few = few_ids  # this module's name for it (``errors.few_ids``)


def _ids(n: int) -> str:
    return counted(n, "id")


def _are(ids: list[str]) -> str:
    return "is" if len(ids) == 1 else "are"


def _has(name: str) -> str:
    """The verb for a side's name: "h.tsv has", "the human scores have"."""
    return "have" if " " in name and name.endswith("s") else "has"


def _them(ids: list[str]) -> str:
    return "it" if len(ids) == 1 else "them"


def _as_dict(side: Mapping[str, Any] | Iterable[tuple[str, Any]], name: str) -> dict[str, Any]:
    if isinstance(side, Mapping):
        return {str(k): v for k, v in side.items()}
    out: dict[str, Any] = {}
    for key, value in side:
        key = str(key)
        if key in out:
            raise InputError(f"{name}: id {key!r} appears more than once")
        out[key] = value
    return out


def join_by_id(
    left: Mapping[str, L] | Iterable[tuple[str, L]],
    right: Mapping[str, R] | Iterable[tuple[str, R]],
    *,
    left_name: str = "metric",
    right_name: str = "the human scores",
    what: str = "items",
    allow_partial: bool = False,
    right_extra: Literal["error", "ignore"] = "error",
    partial_setting: str = PARTIAL_OPTION["allow_partial"],
) -> Joined[L, R]:
    """Match ``left`` and ``right`` by id (mappings, or iterables of ``(id, value)``; a repeated
    id in an iterable is an error). ``left`` is the side being evaluated and sets the order;
    ``what`` names its items in messages ("hypotheses", "utterances", "pairs"); the names are the
    caller's (a file, or a role such as "the human scores" when no file was read). See the module
    docstring for the rules; errors word the setting as ``{allow_partial}``, in API terms as
    ``partial_setting`` (the caller's own, e.g. ``LaserOptions(allow_partial=True)``)."""
    options = {"allow_partial": partial_setting}
    lv = _as_dict(left, left_name)
    rv = _as_dict(right, right_name)
    ids = [k for k in lv if k in rv]
    missing_right = [k for k in lv if k not in rv]  # left ids the right side lacks
    missing_left = [k for k in rv if k not in lv]  # right ids the left side lacks
    if not ids:
        example = few_ids(list(rv)[:3]) if rv else "it is empty"
        raise InputError(
            f"{right_name}: none of its {_ids(len(rv))} is among the {what} in {left_name} "
            f"(e.g. {example}); are these about the same {what}?"
        )
    if not allow_partial:
        if missing_right:
            raise InputError(
                f"{right_name} {_has(right_name)} no entry for {len(missing_right)} of the {len(lv)} {what} in "
                f"{left_name}: {few_ids(missing_right)}; add {_them(missing_right)}, or use {{allow_partial}} to "
                f"use the {len(ids)} in common",
                options=options,
            )
        if missing_left and right_extra == "error":
            raise InputError(
                f"{right_name} {_has(right_name)} {_ids(len(missing_left))} that {_are(missing_left)} not among "
                f"the {what} in {left_name}: {few_ids(missing_left)}; remove {_them(missing_left)}, or use "
                f"{{allow_partial}} to ignore {_them(missing_left)}",
                options=options,
            )
    return Joined(
        ids=ids,
        left=[lv[k] for k in ids],
        right=[rv[k] for k in ids],
        left_side=JoinSide(left_name, len(lv), len(ids), missing_right),
        right_side=JoinSide(right_name, len(rv), len(ids), missing_left),
        allow_partial=allow_partial,
    )


__all__ = ["JoinSide", "Joined", "PARTIAL_OPTION", "coverage_text", "few", "join_by_id"]
