"""Boundary label sets and maps from other annotation conventions to the canonical labels.

The canonical set is ordered from weakest to strongest: NB (no boundary), AP (accent phrase),
IP (intonation phrase), SB (sentence end). The order is the hierarchy used by the optional
``hierarchy`` similarity (a stronger boundary also counts at every weaker level).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from voxjudge.errors import InputError

DEFAULT_LABELS = ("NB", "AP", "IP", "SB")


@dataclass(frozen=True)
class LabelSet:
    labels: tuple[str, ...] = DEFAULT_LABELS

    def __post_init__(self) -> None:
        if len(self.labels) < 2 or len(set(self.labels)) != len(self.labels):
            raise InputError(f"a label set needs at least two distinct labels, got {list(self.labels)}")

    @property
    def none(self) -> str:
        """The no-boundary label (the first, weakest one)."""
        return self.labels[0]

    @property
    def end(self) -> str:
        """The sentence-end label (the last, strongest one)."""
        return self.labels[-1]

    @cached_property
    def levels_by_label(self) -> dict[str, int]:
        return {lab: k for k, lab in enumerate(self.labels)}

    @cached_property
    def valid(self) -> frozenset[str]:
        return frozenset(self.labels)

    def level(self, label: str) -> int:
        try:
            return self.labels.index(label)
        except ValueError:
            raise InputError(f"unknown boundary label {label!r}; expected one of {', '.join(self.labels)}") from None

    def check(self, labels) -> None:
        """Raise for the first label not in the set."""
        if not self.valid.issuperset(labels):
            self.level(sorted(set(labels) - self.valid)[0])

    @classmethod
    def parse(cls, spec: str | None) -> LabelSet:
        if not spec:
            return cls()
        return cls(tuple(x.strip() for x in spec.split(",") if x.strip()))


@dataclass(frozen=True)
class LabelMap:
    """Source-convention label -> canonical label (e.g. ToBI break index 4 -> IP)."""

    name: str
    mapping: dict[str, str] = field(default_factory=dict)

    def __call__(self, source: str) -> str:
        try:
            return self.mapping[source]
        except KeyError:
            raise InputError(
                f"label {source!r} is not in the {self.name} label map ({', '.join(self.mapping)}); "
                "pass {label_map} to map it",
                options={"label_map": "a label_map (LabelMap.load(FILE))"},
            ) from None

    def check(self, labelset: LabelSet) -> None:
        """Raise unless every label it maps to is in ``labelset`` (else a converted annotation would
        carry a label no reference table can hold)."""
        bad = {k: v for k, v in self.mapping.items() if v not in labelset.valid}
        if bad:
            source, target = next(iter(bad.items()))
            raise InputError(
                f"{self.name}: the label map maps {source!r} to {target!r}, which is not in the label set "
                f"({', '.join(labelset.labels)})"
            )

    @classmethod
    def load(cls, path: str | Path, labelset: LabelSet | None = None) -> LabelMap:
        """A map from a JSON file; with ``labelset``, checked against it (``check``)."""
        from voxjudge.io.readers import read_json

        data = read_json(path, "label map")
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise InputError(f'{path}: a label map is a JSON object of "source": "canonical" labels')
        out = cls(str(path), {str(k): v for k, v in data.items()})
        if labelset is not None:
            out.check(labelset)
        return out


# Defaults for the conventions voxjudge reads. The final juncture of an utterance is always SB.
TOBI = LabelMap(
    "tobi",
    {
        "0": "NB",
        "1": "NB",
        "2": "NB",
        "3": "AP",
        "4": "IP",
        "1-": "NB",
        "2-": "NB",
        "3-": "AP",
        "4-": "IP",
        "1p": "NB",
        "2p": "NB",
        "3p": "AP",
    },
)
K_TOBI = LabelMap("k-tobi", {"0": "NB", "1": "NB", "2": "AP", "3": "IP"})
MANDARIN = LabelMap("mandarin", {"#0": "NB", "#1": "NB", "#2": "AP", "#3": "IP", "#4": "SB"})
PAUSE_BUCKETS = LabelMap("pause", {"0": "NB", "1": "AP", "2": "AP", "3": "IP", "4": "IP", "5": "IP"})
DEFAULT_MAPS = {"tobi": TOBI, "k-tobi": K_TOBI, "mandarin": MANDARIN, "pause": PAUSE_BUCKETS}
