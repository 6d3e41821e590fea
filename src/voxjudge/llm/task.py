"""A labelling task as data: prompt templates, the answer schema of one item, the batch policy.

Tasks live in the evaluators' data files (``asr/laser/prompts.json``, ``breaks/prompts.json``,
the pairwise rubric) and are hashed by content: the hash goes into every request's cache key and
every record, so editing a prompt can never be served an answer to the old one.

Templates use ``$name`` placeholders (``string.Template``), so JSON braces need no escaping.
Context values (rubric text, language, demonstrations) are trusted and inserted as they are;
item data is untrusted and always inserted as JSON (``$items`` is the batch as a JSON array of
``{"id": ..., **data}``; an unbatched task also gets each data field as ``$field``, JSON-quoted).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from string import Template
from typing import Any

from voxjudge.llm.errors import ConfigError
from voxjudge.llm.types import AudioPart, Message, Request, TextPart

ITEMS_FIELD = "items"
DEFAULT_REPAIR = (
    "Your previous answer could not be used: $reason. Answer again with only the JSON value, "
    "exactly as the schema requires."
)

CONTENT_FIELDS = ("name", "system", "user", "item_schema", "batched", "schema_name", "repair")


@dataclass(frozen=True)
class Item:
    """One thing to label. ``data`` is rendered into the prompt; ``parts`` (text or audio) follow
    the user prompt in order; ``schema`` replaces the task's item schema for this item (e.g. its
    words pinned), which sends it in a request of its own; ``context`` adds template values for
    this item (items are batched only with items of the same context)."""

    id: str
    data: Mapping[str, Any] = field(default_factory=dict)
    parts: tuple[TextPart | AudioPart, ...] = ()
    schema: dict[str, Any] | None = None
    context: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Task:
    name: str
    system: str
    user: str
    item_schema: dict[str, Any]
    batched: bool = True  # answers come as {"items": [{"id": ..., ...}]} with the batch's ids pinned
    batch_size: int = 32
    max_tokens_per_item: int = 256
    temperature: float = 0.0
    seed: int | None = 0
    samples: int = 1
    schema_name: str = "answer"
    repair: str = DEFAULT_REPAIR  # sent when an answer fails the caller's check; $reason is why

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ConfigError(f"task {self.name}: batch_size must be at least 1")
        if self.samples < 1:
            raise ConfigError(f"task {self.name}: samples must be at least 1")
        if self.samples > 1 and self.batched:
            raise ConfigError(f"task {self.name}: several samples need an unbatched task")
        for name in ("system", "user", "repair"):
            text = getattr(self, name)
            for m in Template.pattern.finditer(text):
                if m.group("invalid") is not None:
                    line = text.count("\n", 0, m.start()) + 1
                    raise ConfigError(
                        f"task {self.name}: bad placeholder in the {name} template (line {line}); "
                        "write $name or ${name}, and $$ for a dollar sign"
                    )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> Task:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"{where}: unknown task field(s) {', '.join(unknown)}")
        missing = [k for k in ("name", "system", "user", "item_schema") if k not in data]
        if missing:
            raise ConfigError(f"{where}: a task needs {', '.join(missing)}")
        try:
            return cls(**dict(data))
        except TypeError as e:
            raise ConfigError(f"{where}: {e}") from None

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @cached_property
    def sha256(self) -> str:
        """Hash of what the model is shown and must answer: templates and schema. The policy
        (batch size, samples, temperature, seed, token limits) is not in it: those that change an
        answer are request fields of their own in the cache key, and more samples must not
        invalidate the ones already paid for."""
        content = {k: getattr(self, k) for k in CONTENT_FIELDS}
        canonical = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    @property
    def label(self) -> str:
        """``name@hash``: what records and cache keys call the template."""
        return f"{self.name}@{self.sha256}"

    def with_options(self, **changes: Any) -> Task:
        """The same task with other values (batch size, temperature, seed, samples, schema...)."""
        return replace(self, **changes)

    # ---- rendering -------------------------------------------------------------------------------

    def render(self, batch: Sequence[Item], context: Mapping[str, Any] | None = None) -> tuple[Message, ...]:
        values: dict[str, Any] = {k: _plain(v) for k, v in (context or {}).items()}
        values.update({k: _plain(v) for k, v in (batch[0].context or {}).items()})
        values[ITEMS_FIELD] = json.dumps([{"id": it.id, **it.data} for it in batch], ensure_ascii=False)
        if not self.batched:
            values.update({k: json.dumps(v, ensure_ascii=False) for k, v in batch[0].data.items()})
            values["id"] = json.dumps(batch[0].id, ensure_ascii=False)
        system = self._fill("system", values)
        user = self._fill("user", values)
        parts: tuple[TextPart | AudioPart, ...] = (TextPart(user), *[p for it in batch for p in it.parts])
        return ((Message.text("system", system),) if system else ()) + (Message("user", parts),)

    def _fill(self, which: str, values: Mapping[str, Any]) -> str:
        try:
            return Template(getattr(self, which)).substitute(values)
        except KeyError as e:
            raise ConfigError(f"task {self.name}: the {which} template needs a value for ${e.args[0]}") from None

    def answer_schema(self, batch: Sequence[Item]) -> dict[str, Any]:
        item_schema = batch[0].schema or self.item_schema
        if not self.batched:
            return item_schema
        return batch_schema(item_schema, [it.id for it in batch])

    def request(self, batch: Sequence[Item], context: Mapping[str, Any] | None = None) -> Request:
        return Request(
            self.render(batch, context),
            schema=self.answer_schema(batch),
            schema_name=self.schema_name,
            temperature=self.temperature,
            seed=self.seed,
            max_tokens=self.max_tokens_per_item * len(batch) + (64 if self.batched else 0),
            n=self.samples,
            template=self.name,
            template_hash=self.sha256,
        )

    def repair_message(self, reason: str) -> str:
        return Template(self.repair).safe_substitute(reason=reason)


def _plain(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def item_schema_with_id(item_schema: dict[str, Any], ids: Sequence[str]) -> dict[str, Any]:
    item = copy.deepcopy(item_schema)
    item.setdefault("type", "object")
    item["properties"] = {"id": {"type": "string", "enum": list(ids)}, **item.get("properties", {})}
    item["required"] = ["id", *[r for r in item.get("required", list(item_schema.get("properties", {}))) if r != "id"]]
    item.setdefault("additionalProperties", False)
    return item


def batch_schema(item_schema: dict[str, Any], ids: Sequence[str]) -> dict[str, Any]:
    """Answers for a batch: exactly one entry per id sent, ids pinned by an enum."""
    schema = PinnedBatchSchema(
        {
            "type": "object",
            "properties": {
                ITEMS_FIELD: {
                    "type": "array",
                    "items": item_schema_with_id(item_schema, ids),
                    "minItems": len(ids),
                    "maxItems": len(ids),
                }
            },
            "required": [ITEMS_FIELD],
            "additionalProperties": False,
        }
    )
    schema.ids = frozenset(ids)
    schema.count = len(ids)
    schema.shape = batch_shape(json.dumps(item_schema, sort_keys=True))
    return schema


class PinnedBatchSchema(dict):
    """A batch's answer schema that also knows its shape without the pinned ids. Every batch
    pins other ids, so compiling each one's validator cost ~8 ms of CPU per request (most of a
    run's CPU); an answer is checked against the shape, compiled once per task, plus its ids."""

    ids: frozenset[str] = frozenset()
    count = 0
    shape: dict[str, Any] | None = None

    def quick_check(self, value: Any, validate: Any) -> bool:
        """True when ``value`` is valid; False means "check it the slow way" (for the message)."""
        if self.shape is None or not isinstance(value, dict):
            return False
        entries = value.get(ITEMS_FIELD)
        if not isinstance(entries, list) or len(entries) != self.count:
            return False
        if not all(isinstance(e, dict) and e.get("id") in self.ids for e in entries):
            return False
        try:
            validate(value, self.shape)
        except ValueError:
            return False
        return True


@functools.lru_cache(maxsize=256)
def batch_shape(item_schema_json: str) -> dict[str, Any]:
    """A batch schema with ``id`` any string and any number of entries (one object per task)."""
    item = item_schema_with_id(json.loads(item_schema_json), [])
    item["properties"]["id"] = {"type": "string"}
    schema = {"type": "object", "properties": {ITEMS_FIELD: {"type": "array", "items": item}}}
    return {**schema, "required": [ITEMS_FIELD], "additionalProperties": False}


def load_tasks(text: str, where: str) -> dict[str, Task]:
    """``{"tasks": {"key": {task fields}}}`` from a data file."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{where}:{e.lineno}: not valid JSON") from None
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        raise ConfigError(f'{where}: expected {{"tasks": {{"name": {{...}}}}}}')
    return {key: Task.from_dict(value, f"{where}: task {key!r}") for key, value in tasks.items()}
