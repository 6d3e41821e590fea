"""Fake judge scripts (what ``fake/<name>`` answers, registered by name) and fake vectors.

A script is ``script(request, sample_index)`` returning text, a JSON-able object, a ``FakeReply``
or an exception to raise; with a true ``takes_options`` attribute it also gets the spec's options.
Evaluators register their own (``pairwise`` registers ``prosody``), tests register theirs; the fake
provider (``providers.fake``) and the Ray engine's workers look them up here, the public home of
the registry, so nothing outside a provider reaches into one. ``hashed_vector`` is what the fake
embedder (``fake/hash``, ``fake/words``) and the fake HTTP server's embeddings answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from voxjudge.llm.types import Request


@dataclass
class FakeReply:
    text: str
    finish_reason: str = "stop"
    latency: float | None = None


Script = Callable[[Request, int], Any]
_SCRIPTS: dict[str, Script] = {}


def register_fake_script(name: str, script: Script) -> None:
    """``script(request, sample_index)`` returns text, a JSON-able object, a FakeReply or an exception.
    A script with a true ``takes_options`` attribute also gets the spec's options (``?key=value``)."""
    _SCRIPTS[name] = script


def example_from_schema(schema: dict[str, Any]) -> Any:
    """A small valid instance of a JSON schema (enough for the schemas voxjudge sends)."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: example_from_schema(v) for k, v in props.items() if k in schema.get("required", props)}
    if kind == "array":
        item = schema.get("items") or {}
        count = schema.get("minItems", 0)
        values = [example_from_schema(item) for _ in range(count)]
        # Batch schemas pin ids with an enum: give every position a different id.
        for key, sub in (item.get("properties") or {}).items():
            if "enum" in sub and len(sub["enum"]) >= count:
                for k, v in enumerate(values):
                    v[key] = sub["enum"][k]
        return values
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1 if "exclusiveMinimum" in schema else 0)
        return int(low) if kind == "integer" else float(low)
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    return {"boolean": False, "null": None}.get(kind, None)


def _echo(request: Request, index: int) -> str:
    users = [m for m in request.messages if m.role == "user"]
    return users[-1].text_content if users else ""


def _schema(request: Request, index: int) -> Any:
    return example_from_schema(request.schema) if request.schema else "ok"


register_fake_script("echo", _echo)
register_fake_script("schema", _schema)


def fake_script(name: str) -> Script | None:
    """The script registered under ``name``, or None."""
    return _SCRIPTS.get(name)


def fake_script_names() -> list[str]:
    return sorted(_SCRIPTS)


def _features(name: str, text: str) -> list[str]:
    if name == "words":
        return text.lower().split()
    padded = f" {text.lower()} "
    return [padded[i : i + 3] for i in range(max(1, len(padded) - 2))]


def hashed_vector(name: str, text: str, dim: int) -> np.ndarray:
    """The fake vector of one text (also the oracle tests compare against)."""
    out = np.zeros(dim, dtype=np.float32)
    for feature in _features(name, text):
        h = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        index = int.from_bytes(h[:4], "little") % dim
        out[index] += 1.0 if h[4] & 1 else -1.0
    if not out.any():
        out[0] = 1.0  # a text with no feature still has a direction
    return out
