"""Batch prompting: many items in one request, answers mapped back by id.

The schema sent with a batch pins its ids (an ``enum`` of exactly the batch's ids and an array of
exactly that length), so constrained decoders cannot invent or skip items. Answers are still
checked item by item: valid answers are kept, missing or ambiguous items are retried one at a
time, and ids that were never sent are reported and ignored.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from voxjudge.llm.judge import Judge
from voxjudge.llm.parse import InvalidOutput, extract_json, validate
from voxjudge.llm.types import Message, Request

ITEMS_FIELD = "items"
BuildMessages = Callable[[Sequence[tuple[str, Any]]], tuple[Message, ...]]


def item_schema_with_id(item_schema: dict[str, Any], ids: Sequence[str]) -> dict[str, Any]:
    item = copy.deepcopy(item_schema)
    item.setdefault("type", "object")
    item["properties"] = {"id": {"type": "string", "enum": list(ids)}, **item.get("properties", {})}
    item["required"] = ["id", *[r for r in item.get("required", list(item_schema.get("properties", {}))) if r != "id"]]
    item.setdefault("additionalProperties", False)
    return item


def batch_schema(item_schema: dict[str, Any], ids: Sequence[str]) -> dict[str, Any]:
    return {
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


@dataclass
class BatchOutcome:
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    retried_individually: list[str] = field(default_factory=list)
    unknown_ids: list[str] = field(default_factory=list)
    batches: int = 0
    split: int = 0  # batches halved before sending because their answer would not fit

    def as_dict(self) -> dict[str, Any]:
        return {
            "answered": len(self.answers),
            "unscored": len(self.errors),
            "retried_individually": len(self.retried_individually),
            "unknown_ids": self.unknown_ids,
            "batches": self.batches,
            "split": self.split,
        }


def split_answers(text: str, ids: Sequence[str], item_schema: dict[str, Any]) -> tuple[dict[str, dict], list[str]]:
    """Valid answers by id, and ids that were answered but never sent. Lenient on purpose:
    one bad item must not sink its whole batch."""
    try:
        value = extract_json(text)
    except InvalidOutput:
        return {}, []
    entries = value.get(ITEMS_FIELD) if isinstance(value, dict) else value
    if not isinstance(entries, list):
        return {}, []
    schema = item_schema_with_id(item_schema, ids)
    wanted = set(ids)
    seen: dict[str, list[dict]] = {}
    unknown = []
    for entry in entries:
        uid = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(uid, str) or uid not in wanted:
            unknown.append(str(uid))
            continue
        seen.setdefault(uid, []).append(entry)
    good = {}
    for uid, answers in seen.items():
        distinct = {repr(sorted(a.items())) for a in answers}
        if len(distinct) != 1:
            continue  # contradictory duplicates: ask again for this item alone
        try:
            validate(answers[0], schema)
        except InvalidOutput:
            continue
        good[uid] = answers[0]
    return good, unknown


def batch_request(
    batch: Sequence[tuple[str, Any]],
    build: BuildMessages,
    item_schema: dict[str, Any],
    *,
    template: str = "",
    temperature: float = 0.0,
    seed: int | None = 0,
    max_tokens_per_item: int = 256,
) -> Request:
    """The request for one batch: the caller's messages and a schema pinning the batch's ids."""
    ids = [uid for uid, _ in batch]
    return Request(
        build(batch),
        schema=batch_schema(item_schema, ids),
        schema_name="batch",
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens_per_item * len(batch) + 64,
        template=template,
    )


def split_batches(items: Sequence[tuple[str, Any]], batch_size: int) -> list[list[tuple[str, Any]]]:
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    return [list(items[k : k + batch_size]) for k in range(0, len(items), batch_size)]


async def judge_in_batches(
    judge: Judge,
    items: Sequence[tuple[str, Any]],
    build: BuildMessages,
    item_schema: dict[str, Any],
    *,
    batch_size: int = 32,
    template: str = "",
    temperature: float = 0.0,
    seed: int | None = 0,
    max_tokens_per_item: int = 256,
    progress: Callable[[int, int], None] | None = None,
) -> BatchOutcome:
    ids = [uid for uid, _ in items]
    if len(set(ids)) != len(ids):
        raise ValueError("item ids must be unique within a run")
    batches = split_batches(items, batch_size)
    outcome = BatchOutcome()
    done = 0

    def request_for(batch: list[tuple[str, Any]]) -> Request:
        return batch_request(
            batch,
            build,
            item_schema,
            template=template,
            temperature=temperature,
            seed=seed,
            max_tokens_per_item=max_tokens_per_item,
        )

    fits = getattr(judge.backend, "answer_fits", None)

    async def run_batch(batch: list[tuple[str, Any]]) -> None:
        nonlocal done
        if len(batch) > 1 and fits is not None and not fits(request_for(batch)):
            # The answer could outgrow the context or max_tokens: split before sending, never truncate.
            outcome.split += 1
            half = len(batch) // 2
            await asyncio.gather(run_batch(batch[:half]), run_batch(batch[half:]))
            return
        batch_ids = [uid for uid, _ in batch]
        response = (await judge.complete(request_for(batch), item_id=",".join(batch_ids), validate=False))[0]
        outcome.batches += 1
        good, unknown = split_answers(response.text, batch_ids, item_schema) if response.ok else ({}, [])
        outcome.unknown_ids += unknown
        outcome.answers.update(good)
        missing = [item for item in batch if item[0] not in good]
        if len(batch) == 1 and missing:
            reason = response.error or "answer missing or invalid"
            # A lone item gets the judge's own validation and repair (the first answer is
            # served from the cache) before it is recorded as unscored.
            single = (await judge.complete(request_for(batch), item_id=batch_ids[0]))[0]
            if single.ok:
                outcome.answers[batch_ids[0]] = single.parsed[ITEMS_FIELD][0]
            else:
                outcome.errors[batch_ids[0]] = single.error or reason
            missing = []
        done += len(batch) - len(missing)
        if progress is not None:
            progress(done, len(items))
        if missing:
            outcome.retried_individually += [uid for uid, _ in missing]
            await asyncio.gather(*(run_batch([item]) for item in missing))

    await asyncio.gather(*(run_batch(b) for b in batches))
    return outcome
