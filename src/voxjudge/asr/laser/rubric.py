"""The LASER rubric as data: tiers with penalties, error types with descriptions and examples.

The default ships as ``rubric.json``; ``--rubric FILE`` replaces it (other weights, more types).
Its content hash is recorded with every result.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from voxjudge.errors import InputError

LABELS = ("match", "no_penalty", "minor", "major")


@dataclass(frozen=True)
class ErrorType:
    id: str
    tier: str
    description: str
    examples: dict[str, list[list[str]]]


@dataclass(frozen=True)
class LaserRubric:
    name: str
    version: str
    tiers: dict[str, float]
    types: tuple[ErrorType, ...]
    sha256: str
    convention_data: dict = field(default_factory=dict, compare=False, hash=False)
    speech_data: dict = field(default_factory=dict, compare=False, hash=False)

    def conventions(self, lang: str):
        """How annotators apply this rubric in ``lang`` (see ``lang_conventions.py``)."""
        from dataclasses import replace

        from voxjudge.asr.laser.lang_conventions import Calibration, Conventions

        tiers = {t.id: t.tier for t in self.types}
        cal = Calibration(
            **{
                k: tiers[t]
                for k, t in (
                    ("homophone", "homophone"),
                    ("filler", "filler"),
                    ("repetition", "repetition"),
                    ("partial", "partial_word"),
                )
                if t in tiers
            }
        )
        return replace(Conventions.from_data(lang, self.convention_data.get(lang)), calibration=cal)

    def fillers(self, lang: str) -> frozenset[str]:
        """Folded fillers and hesitations for ``lang`` (its list plus the one for every language)."""
        from voxjudge.asr.laser.lang import fold

        lists = self.speech_data.get("fillers", {})
        return frozenset(fold(w) for key in ("*", lang) for w in lists.get(key, []))

    def penalty(self, label: str) -> float:
        return 0.0 if label == "match" else self.tiers[label]

    def pair_penalty(self, lab) -> float:
        """A labelled pair's penalty: its tier's (0, 0.5 or 1 under the shipped rubric) and nothing
        else -- case, punctuation and meaning are figures of their own beside the score."""
        return 0.0 if lab.label == "match" else self.tiers[lab.label]

    def type(self, type_id: str) -> ErrorType:
        for t in self.types:
            if t.id == type_id:
                return t
        raise InputError(f"unknown error type {type_id!r}; the rubric has {', '.join(t.id for t in self.types)}")

    @property
    def type_ids(self) -> list[str]:
        return [t.id for t in self.types]

    @classmethod
    def load(cls, path: str | Path | None = None) -> LaserRubric:
        if path is None:
            text = resources.files("voxjudge.asr.laser").joinpath("rubric.json").read_text(encoding="utf-8")
            where = "the default LASER rubric"
        else:
            try:
                text = Path(path).read_text(encoding="utf-8")
            except FileNotFoundError:
                raise InputError(f"{path}: rubric file not found") from None
            where = str(path)
        try:
            data = json.loads(text)
            tiers = {str(k): float(v) for k, v in data["tiers"].items()}
            types = tuple(
                ErrorType(str(t["id"]), str(t["tier"]), str(t.get("description", "")), dict(t.get("examples", {})))
                for t in data["types"]
            )
            conventions = dict(data.get("conventions", {}))
            speech = dict(data.get("speech", {}))
        except json.JSONDecodeError as e:
            raise InputError(f"{where}:{e.lineno}: rubric is not valid JSON") from None
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(
                f"{where}: a LASER rubric needs tiers {{name: penalty}} and types [{{id, tier}}] ({e!r})"
            ) from None
        if set(tiers) != {"no_penalty", "minor", "major"}:
            raise InputError(f"{where}: tiers must be no_penalty, minor and major, got {sorted(tiers)}")
        bad = [t.id for t in types if t.tier not in tiers]
        if bad:
            raise InputError(f"{where}: types with an unknown tier: {', '.join(bad)}")
        return cls(
            str(data.get("name", "laser")),
            str(data.get("version", "")),
            tiers,
            types,
            hashlib.sha256(text.encode("utf-8")).hexdigest()[:16],
            conventions,
            speech,
        )
