"""Prosody rubric as data: dimensions (id, group, description, weight), the score scale, section
loss weights for distillation, and the prompts of the coupled and per-dimension modes.

The default rubric ships as ``rubric.json``; ``--rubric FILE`` replaces it (same format). Its
content hash is recorded with every judgment.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError


@dataclass(frozen=True)
class Dimension:
    id: str
    name: str
    description: str
    weight: float
    group: str  # "core" or "live"


@dataclass(frozen=True)
class Rubric:
    name: str
    version: str
    low: int
    high: int
    dimensions: tuple[Dimension, ...]
    section_weights: dict[str, float]
    prompts: dict[str, str]
    sha256: str

    @property
    def ids(self) -> list[str]:
        return [d.id for d in self.dimensions]

    @property
    def core(self) -> list[str]:
        return [d.id for d in self.dimensions if d.group == "core"]

    @property
    def weights(self) -> dict[str, float]:
        return {d.id: d.weight for d in self.dimensions}

    def dimension(self, dim_id: str) -> Dimension:
        for d in self.dimensions:
            if d.id == dim_id:
                return d
        raise InputError(f"unknown dimension {dim_id!r}; the rubric has {', '.join(self.ids)}")

    def select(self, dims: list[str] | None) -> Rubric:
        """The same rubric restricted to some dimensions (e.g. the core ones)."""
        if not dims:
            return self
        chosen = tuple(self.dimension(d) for d in dims)
        return Rubric(
            self.name, self.version, self.low, self.high, chosen, self.section_weights, self.prompts, self.sha256
        )

    @classmethod
    def default(cls) -> Rubric:
        text = resources.files("voxjudge.pairwise").joinpath("rubric.json").read_text(encoding="utf-8")
        return cls.from_text(text, "the default rubric")

    @classmethod
    def load(cls, path: str | Path | None) -> Rubric:
        if path is None:
            return cls.default()
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(f"{path}: rubric file not found") from None
        return cls.from_text(text, str(path))

    @classmethod
    def from_text(cls, text: str, where: str) -> Rubric:
        try:
            data: dict[str, Any] = json.loads(text)
            low, high = (int(x) for x in data["scale"])
            dims = tuple(
                Dimension(
                    str(d["id"]),
                    str(d["name"]),
                    str(d["description"]),
                    float(d.get("weight", 1.0)),
                    str(d.get("group", "core")),
                )
                for d in data["dimensions"]
            )
            prompts = dict(data["prompts"])
            for key in ("system", "coupled", "per_dimension"):
                prompts[key]  # noqa: B018 - each prompt must be present
        except json.JSONDecodeError as e:
            raise InputError(f"{where}:{e.lineno}: rubric is not valid JSON") from None
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(
                f"{where}: rubric needs scale [low, high], dimensions (id, name, description) and prompts "
                f"(system, coupled, per_dimension); problem: {e!r}"
            ) from None
        if not dims or len({d.id for d in dims}) != len(dims):
            raise InputError(f"{where}: rubric dimensions must be non-empty with unique ids")
        if low >= high:
            raise InputError(f"{where}: the scale must go from a lower to a higher score")
        return cls(
            str(data.get("name", "rubric")),
            str(data.get("version", "")),
            low,
            high,
            dims,
            {"summary": 1.0, "conclusion": 2.0, **data.get("section_weights", {})},
            prompts,
            hashlib.sha256(text.encode("utf-8")).hexdigest()[:16],
        )
