"""Turning model text into a validated object: find the JSON, check it against the schema."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class InvalidOutput(ValueError):
    pass


class InvalidSchema(ValueError):
    """A schema answers cannot be checked against (not an object, an unknown type, a broken pattern)."""


def extract_json(text: str) -> Any:
    """The JSON value in a model's answer: the whole text, a fenced block, or the first {...}/[...]."""
    stripped = text.strip()
    candidates = [stripped]
    candidates += [m.strip() for m in _FENCE.findall(stripped)]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            pass
    for k, ch in enumerate(stripped):
        if ch in "{[":
            try:
                return decoder.raw_decode(stripped, k)[0]
            except json.JSONDecodeError:
                continue
    raise InvalidOutput("no JSON value found in the answer")


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    # fastjsonschema compiles the schema to Python once; validating a judge's answer then costs
    # microseconds instead of the ~0.5 ms a generic validator needs for a nested rubric schema.
    import fastjsonschema

    return fastjsonschema.compile(json.loads(schema_json))


_BY_ID: dict[int, tuple[dict[str, Any], Any]] = {}


def _validator_for(schema: dict[str, Any]) -> Any:
    """The compiled validator of a schema object; a run sends the same schema object thousands of
    times, so it is looked up by identity before paying for a canonical dump."""
    hit = _BY_ID.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    fn = _validator(json.dumps(schema, sort_keys=True))
    if len(_BY_ID) > 1024:
        _BY_ID.clear()
    _BY_ID[id(schema)] = (schema, fn)  # holding the schema keeps its id from being reused
    return fn


def validate(value: Any, schema: dict[str, Any]) -> None:
    import fastjsonschema

    quick = getattr(schema, "quick_check", None)  # a batch schema: its shape is compiled once
    if quick is not None and quick(value, validate):
        return
    try:
        _validator_for(schema)(value)
    except fastjsonschema.JsonSchemaValueException as e:
        where = "/".join(str(p) for p in e.path[1:]) or "(top level)"
        raise InvalidOutput(f"schema violation at {where}: {e.message}") from None


def parse_structured(text: str, schema: dict[str, Any]) -> Any:
    value = extract_json(text)
    validate(value, schema)
    return value


def check_schema(schema: Any) -> None:
    """Raise ``InvalidSchema`` unless ``schema`` is a JSON Schema object answers can be validated
    against (compiled once, as validation will; the compiled validator is kept)."""
    if not isinstance(schema, dict):
        raise InvalidSchema(f"a JSON Schema here is an object ({{...}}), not {type(schema).__name__}")
    try:
        _validator_for(schema)
    except ImportError:
        raise
    except Exception as e:  # fastjsonschema's definition errors, re.error of a pattern, a type error
        raise InvalidSchema(f"{type(e).__name__}: {e}") from None
