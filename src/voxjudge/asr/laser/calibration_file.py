"""The calibration file: how the tiers' calibration and ``laser_calibrated``'s models are written
(``as_json``, by ``asr train --ratings/--preferences``), read and checked field by field
(``read_file``: the shipped ``models/evidence.json`` or a user's ``--calibration FILE``), and
applied to a language's conventions (``conventions_source``). Fitting them is ``calibration.py``."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

from voxjudge.asr.laser import people
from voxjudge.asr.laser.lang_conventions import Calibration
from voxjudge.asr.laser.people import PeopleModel
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.errors import InputError

FORMAT = "voxjudge-laser-calibration-2"
POOLED = "*"
NOTICE = (
    "Calibrated on asr_sentence_ratings_train.csv (asr-metric-evaluation, MIT licence, "
    "LICENSE-asr-metric-evaluation.txt) and hats_pairs_train.tsv (HATS, metric-evaluator, MIT licence, "
    "LICENSE-hats.txt), shipped beside this file."
)


def as_json(cals: dict[str, Calibration], models: dict[str, PeopleModel], meta: dict) -> str:
    body = {
        "format": FORMAT,
        **meta,
        "calibrations": {k: asdict(v) for k, v in sorted(cals.items())},
        "people": {k: v.as_dict() for k, v in sorted(models.items())},
    }
    return json.dumps(body, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def shipped_path() -> Path:
    return Path(str(resources.files("voxjudge.asr.laser").joinpath("models", "evidence.json")))


def _read(path: str | Path | None) -> tuple[Path, dict]:
    p = Path(path) if path else shipped_path()
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{p}: calibration file not found") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, not a calibration file") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read the calibration file ({e.strerror or e})") from None
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: JSON nested too deep
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{p}: not a voxjudge LASER calibration ({FORMAT} JSON)")
    return p, data


@dataclass(frozen=True)
class CalibrationFile:
    """One calibration file read whole: the tiers by language, ``laser_calibrated``'s models by
    embedder, and where it came from (named in every summary that used it). Read once by the
    driver and handed to the workers (Ray's too), so no worker needs the file."""

    tiers: dict[str, Calibration]
    people: dict[str, PeopleModel]
    source: str  # "shipped" or the path given
    sha256: str
    rubric_sha256: str | None = None  # the rubric it was fitted under

    def describe(self) -> str:
        return "shipped (models/evidence.json)" if self.source == "shipped" else self.source


def read_file(path: str | Path | None = None) -> CalibrationFile:
    """A calibration file written by ``asr train --ratings/--preferences --out`` (None: the shipped one);
    ``InputError`` naming the file when it is missing or not one."""
    import hashlib

    p, data = _read(path)
    return CalibrationFile(
        _tiers(p, data),
        people.load_models(data.get("people", {}), str(p)),
        str(path) if path else "shipped",
        hashlib.sha256(p.read_bytes()).hexdigest(),
        data.get("rubric_sha256"),
    )


def _tiers(p: Path, data: dict) -> dict[str, Calibration]:
    """The file's tiers by language, every field present and valid (a hand-edited file is checked:
    an unknown tier or a non-finite threshold would otherwise crash the run or label silently)."""
    raw = data.get("calibrations")
    if not isinstance(raw, dict) or not raw:
        raise InputError(f"{p}: not a voxjudge LASER calibration ({FORMAT} JSON): no 'calibrations'")
    out = {}
    for lang, values in raw.items():
        where = f"{p}: calibrations.{lang}"
        if not isinstance(values, dict) or set(values) != _FIELDS:
            given = sorted(values) if isinstance(values, dict) else type(values).__name__
            raise InputError(f"{where} needs exactly the fields {', '.join(sorted(_FIELDS))} (found: {given})")
        for name, value in values.items():
            problem = _field_problem(name, value)
            if problem:
                raise InputError(f"{where}.{name} is {value!r}: {problem}")
        out[lang] = Calibration(**values)
    return out


_FIELDS = {f.name for f in fields(Calibration)}
TIER_NAMES = ("no_penalty", "minor", "major")


def _field_problem(name: str, value: Any) -> str | None:
    kind = type(getattr(Calibration(), name))
    if kind is str:
        return None if value in TIER_NAMES else f"a tier must be one of {', '.join(TIER_NAMES)}"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return "must be a finite number, 0 or more"
    if kind is int and not isinstance(value, int):
        return "must be a whole number"
    return None


def load(path: str | Path | None = None) -> dict[str, Calibration]:
    """The tiers' calibrations by language (``*``: pooled) of a calibration file (the shipped one by default)."""
    return _tiers(*_read(path))


def load_people(path: str | Path | None = None) -> dict[str, PeopleModel]:
    """``laser_calibrated``'s models by embedder spec (``none``: without meaning)."""
    return read_file(path).people


def for_language(cals: dict[str, Calibration], lang: str) -> Calibration | None:
    return cals.get(lang) or cals.get(POOLED)


def calibrated(conv, cals: dict[str, Calibration]):
    """Conventions with the calibration learned for their language (pooled for the others)."""
    cal = for_language(cals, conv.lang)
    return conv if cal is None else replace(conv, calibration=cal)


def conventions_source(rubric: LaserRubric | None, calibrations: dict | None = None):
    """lang -> the rubric's conventions, calibrated when ``calibrations`` are given (cached)."""
    cache: dict = {}

    def conv(lang: str):
        if lang not in cache:
            base = (rubric or LaserRubric.load()).conventions(lang)
            cache[lang] = calibrated(base, calibrations) if calibrations else base
        return cache[lang]

    return conv


def shipped_data() -> tuple[Path, Path]:
    """The human sets the shipped calibration was fitted on (inside the package, with licences)."""
    base = resources.files("voxjudge.asr.laser").joinpath("data")
    return Path(str(base.joinpath("asr_sentence_ratings_train.csv"))), Path(str(base.joinpath("hats_pairs_train.tsv")))
