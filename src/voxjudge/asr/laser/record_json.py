"""The JSON text of LASER's records, written without building objects: a pair's record
(``pair_json``), a figure (``number_json``) and the memo dicts that make each repeated text once
(``Memo``, ``NumberMemo``). Byte for byte what ``json.dumps(..., ensure_ascii=False)`` writes
for ``ScoredPair.as_dict`` and ``UtteranceScore.as_dict`` (``tests/asr/test_laser_stream.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from voxjudge.asr.laser.rules import Label

_dumps = json.dumps
string_json = encode_basestring  # a str as json.dumps(ensure_ascii=False) writes it


RUN_FIELDS = ("judge", "embedder", "calibration_sha256")  # how a run was made, named in every record


def run_fields(settings: dict[str, Any]) -> dict[str, str]:
    """The run's fields a record carries, in record order, from the run's settings (the
    calibration's sha256 only when a file was given)."""
    return {n: settings[n] for n in RUN_FIELDS if settings.get(n) is not None}


def run_json(settings: dict[str, Any]) -> str:
    """``run_fields`` as the JSON members a record starts with (after its id and language)."""
    return ", ".join(f"{string_json(k)}: {string_json(v)}" for k, v in run_fields(settings).items())


def pair_json(ref: str, hyp: str, op: str, lab: Label, penalty: float) -> str:
    """A pair's record, byte for byte what ``json.dumps(ScoredPair(...).as_dict(), ensure_ascii=False)``
    writes (a test holds it to that), without building the object and the dict."""
    error_type = "null" if lab.error_type is None else string_json(lab.error_type)
    pen = float.__repr__(penalty) if type(penalty) is float else _dumps(penalty)
    disputed = "true" if lab.disputed is True else "false" if lab.disputed is False else _dumps(lab.disputed)
    return (
        f'{{"ref": {string_json(ref)}, "hyp": {string_json(hyp)}, "op": {string_json(op)}, '
        f'"label": {string_json(lab.label)}, "error_type": {error_type}, "reason": {string_json(lab.reason)}, '
        f'"penalty": {pen}, "disputed": {disputed}}}'
    )


def number_json(x: float | None) -> str:
    """A float as ``json.dumps`` writes it (scores and penalties are finite)."""
    return "null" if x is None else float.__repr__(x)


class Memo(dict):
    """key -> make(key), made on first sight."""

    def __init__(self, make: Callable[[Any], Any]):
        super().__init__()
        self.make = make

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self.make(key)
        return value


class NumberMemo(Memo):
    """float or None -> ``make(x)``, its JSON text (scores repeat: a corpus has few distinct
    figures). Zeros are made every time: 0.0 and -0.0 are one key but two texts."""

    def __missing__(self, x: float | None) -> str:
        js = self.make(x)
        if x is None or x > 0.0:
            self[x] = js
        return js
