"""``label_many``: the one way an evaluator asks a model to label items.

It owns what every model-judged path needs and what used to drift between copies: batching with
the batch's ids pinned in the answer schema, answers mapped back by id (one bad item does not
sink its batch; missing ones are asked again alone), the schema repair retry (in ``Judge``), a
repair retry for answers that fail the caller's ``check``, budget stops, and unscored accounting.

Unscored is a state, not a label: an item without a valid answer keeps ``answers == [None]``
and a reason. A ``--max-cost`` stop never raises: the items not asked are unscored with the stop
as their reason, ``outcome.stopped`` says why, and rerunning resumes from the cache.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from voxjudge.llm.advice import reason_key
from voxjudge.llm.errors import BudgetExceeded
from voxjudge.llm.judge import Judge
from voxjudge.llm.parse import InvalidOutput, extract_json, validate
from voxjudge.llm.task import ITEMS_FIELD, Item, Task, batch_shape
from voxjudge.llm.types import Message, Request

# check(item, answer) -> None when the answer is usable, else the reason (sent in a repair request).
Check = Callable[[Item, Any], "str | None"]
NOT_STARTED = "not asked: "


@dataclass
class Labelled:
    """An item's answers, one per sample; ``None`` where a sample is unscored, with its reason."""

    id: str
    answers: list[Any]
    reasons: list[str | None]
    cache_hit: bool = False

    @property
    def answer(self) -> Any:
        return self.answers[0]

    @property
    def ok(self) -> bool:
        return all(a is not None for a in self.answers)

    @property
    def reason(self) -> str | None:
        return next((r for r in self.reasons if r), None)


@dataclass
class LabelOutcome:
    task: str
    task_hash: str
    results: dict[str, Labelled] = field(default_factory=dict)  # in input order
    stopped: str | None = None  # why the run stopped early (e.g. --max-cost), else None
    unknown_ids: list[str] = field(default_factory=list)  # ids answered that were never sent
    retried_individually: list[str] = field(default_factory=list)
    repaired: int = 0  # answers that failed the check and were fixed by the repair request
    batches: int = 0
    split: int = 0  # batches halved before sending because their answer would not fit

    def answer(self, item_id: str) -> Any:
        r = self.results.get(item_id)
        return None if r is None else r.answer

    @property
    def answers(self) -> dict[str, Any]:
        """First-sample answers of the items that have one."""
        return {k: r.answer for k, r in self.results.items() if r.answer is not None}

    @property
    def unscored(self) -> dict[str, str]:
        """Items without any valid sample, with the reason."""
        return {k: r.reason or "no valid answer" for k, r in self.results.items() if all(a is None for a in r.answers)}

    @property
    def not_started(self) -> list[str]:
        return [k for k, reason in self.unscored.items() if reason.startswith(NOT_STARTED)]

    @property
    def complete(self) -> bool:
        return self.stopped is None and all(r.ok for r in self.results.values())

    def merge(self, other: LabelOutcome) -> LabelOutcome:
        """Combine outcomes of the same task run in parts (e.g. per iteration)."""
        self.results.update(other.results)
        self.stopped = self.stopped or other.stopped
        self.unknown_ids += other.unknown_ids
        self.retried_individually += other.retried_individually
        self.repaired += other.repaired
        self.batches += other.batches
        self.split += other.split
        return self

    def as_dict(self) -> dict[str, Any]:
        unscored = self.unscored
        reasons: dict[str, int] = {}
        for reason in unscored.values():
            key = reason_key(reason)
            reasons[key] = reasons.get(key, 0) + 1
        return {
            "task": self.task,
            "task_hash": self.task_hash,
            "items": len(self.results),
            "answered": len(self.results) - len(unscored),
            "unscored": len(unscored),
            "unscored_reasons": reasons,
            "unscored_samples": sum(1 for r in self.results.values() for a in r.answers if a is None),
            "stopped": self.stopped,
            "batches": self.batches,
            "split": self.split,
            "retried_individually": len(self.retried_individually),
            "repaired": self.repaired,
            "unknown_ids": self.unknown_ids,
        }


def plan_batches(task: Task, items: Sequence[Item]) -> list[list[Item]]:
    """Requests of the first round: items with their own schema, or of an unbatched task, go
    alone; the rest in batches of ``task.batch_size`` among items of the same context."""
    groups: dict[str, list[Item]] = {}
    singles: list[list[Item]] = []
    for it in items:
        if not task.batched or it.schema is not None or task.batch_size == 1:
            singles.append([it])
        else:
            key = json.dumps(it.context or {}, sort_keys=True, ensure_ascii=False)
            groups.setdefault(key, []).append(it)
    batches = [g[k : k + task.batch_size] for g in groups.values() for k in range(0, len(g), task.batch_size)]
    return batches + singles


def planned_requests(task: Task, items: Sequence[Item], context: Mapping[str, Any] | None = None) -> list[Request]:
    """Every first-round request (for ``Judge.estimate`` in a dry run)."""
    return [task.request(b, context) for b in plan_batches(task, items)]


def split_answers(text: str, ids: Sequence[str], item_schema: dict[str, Any]) -> tuple[dict[str, dict], list[str]]:
    """Valid answers by id, and ids answered that were never sent. Lenient on purpose: one bad
    item must not sink its whole batch."""
    try:
        value = extract_json(text)
    except InvalidOutput:
        return {}, []
    entries = value.get(ITEMS_FIELD) if isinstance(value, dict) else value
    if not isinstance(entries, list):
        return {}, []
    # ids are checked against those sent below: the shape with any id is compiled once per task
    schema = batch_shape(json.dumps(item_schema, sort_keys=True))["properties"][ITEMS_FIELD]["items"]
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
        if len({json.dumps(a, sort_keys=True) for a in answers}) != 1:
            continue  # contradictory duplicates: ask again for this item alone
        try:
            validate(answers[0], schema)
        except InvalidOutput:
            continue
        good[uid] = answers[0]
    return good, unknown


async def label_many(
    judge: Judge,
    task: Task,
    items: Sequence[Item],
    *,
    context: Mapping[str, Any] | None = None,
    check: Check | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> LabelOutcome:
    """Label every item with ``task`` through ``judge``; see the module docstring."""
    ids = _unique_ids(items)
    batches = plan_batches(task, items)
    if getattr(judge, "engine", None) is not None:
        # Another engine (Ray) runs the same planned batches elsewhere and returns the parts merged.
        outcome = await judge.engine.label(judge, task, batches, context=context, check=check, progress=progress)
    else:
        outcome = await label_planned(judge, task, batches, context=context, check=check, progress=progress)
    return _in_input_order(judge, outcome, ids)


def _unique_ids(items: Sequence[Item]) -> list[str]:
    ids = [it.id for it in items]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise ValueError(f"item ids must be unique within a call; {dup!r} repeats")
    return ids


def _in_input_order(judge: Judge, outcome: LabelOutcome, ids: Sequence[str]) -> LabelOutcome:
    """Results in the items' order; a run stopped before some items says why."""
    outcome.results = {i: outcome.results[i] for i in ids}
    outcome.stopped = outcome.stopped or (judge.stop_reason if outcome.not_started else None)
    return outcome


async def label_tasks(
    judge: Judge,
    asks: Sequence[tuple[Task, Sequence[Item]]],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> list[LabelOutcome]:
    """Several ``label_many`` calls at once, one outcome per (task, items) in order. Locally the
    same as gathering them; on an engine (Ray) they travel as one job, not one job each (a
    pairwise run asks two or more small tasks per pair)."""
    if getattr(judge, "engine", None) is None or not asks:
        total = sum(len(items) for _, items in asks)
        done = 0

        def one_more(_done: int, _total: int) -> None:
            nonlocal done
            done += 1
            if progress is not None:
                progress(done, total)

        return list(await asyncio.gather(*(label_many(judge, t, items, progress=one_more) for t, items in asks)))
    ids = [_unique_ids(items) for _, items in asks]
    planned = [(task, plan_batches(task, items)) for task, items in asks]
    outcomes = await judge.engine.label_tasks(judge, planned, progress=progress)
    return [_in_input_order(judge, o, i) for o, i in zip(outcomes, ids)]


async def label_planned(
    judge: Judge,
    task: Task,
    batches: Sequence[Sequence[Item]],
    *,
    context: Mapping[str, Any] | None = None,
    check: Check | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> LabelOutcome:
    """Run batches already planned by ``plan_batches`` (any subset of them: an engine may give
    each worker a share). Results come in completion order; ``label_many`` restores input order."""
    total = sum(len(b) for b in batches)
    run = _Run(judge, task, context, check, progress, total)
    queue = iter(batches)

    async def worker() -> None:
        for batch in queue:
            await run.batch(list(batch))

    workers = max(1, min(total, judge.concurrency * 2))
    await asyncio.gather(*(worker() for _ in range(workers)))
    return run.outcome


class _Run:
    def __init__(self, judge, task, context, check, progress, total):
        self.judge, self.task, self.context, self.check = judge, task, context, check
        self.progress, self.total, self.done = progress, total, 0
        self.outcome = LabelOutcome(task.name, task.sha256)

    def _finish(self, item: Item, answers: list[Any], reasons: list[str | None], cache_hit: bool = False) -> None:
        self.outcome.results[item.id] = Labelled(item.id, answers, reasons, cache_hit)
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)

    def _stop(self, items: Sequence[Item], reason: str) -> None:
        self.judge.stop_reason = self.judge.stop_reason or reason
        self.outcome.stopped = self.outcome.stopped or self.judge.stop_reason
        for it in items:
            if it.id not in self.outcome.results:
                self._finish(it, [None] * self.task.samples, [NOT_STARTED + self.judge.stop_reason] * self.task.samples)

    async def batch(self, batch: list[Item]) -> None:
        if self.judge.stop_reason:
            self._stop(batch, self.judge.stop_reason)
            return
        if len(batch) == 1:
            await self.single(batch[0])
            return
        request = self.task.request(batch, self.context)
        fits = getattr(self.judge.backend, "answer_fits", None)
        if fits is not None and not fits(request):
            # The answer could outgrow the context or max_tokens: split before sending, never truncate.
            self.outcome.split += 1
            half = len(batch) // 2
            await asyncio.gather(self.batch(batch[:half]), self.batch(batch[half:]))
            return
        try:
            response = (await self.judge.complete(request, item_id=",".join(it.id for it in batch), validate=False))[0]
        except BudgetExceeded as e:
            self._stop(batch, str(e))
            return
        self.outcome.batches += 1
        if not response.ok and response.error and ("gave up after" in response.error or self.judge.stop_reason):
            # The server stayed unreachable through every retry, or cannot be reached at all:
            # asking each item again alone would only repeat that. They stay unscored; a rerun resumes.
            self.outcome.stopped = self.outcome.stopped or self.judge.stop_reason
            for it in batch:
                self._finish(it, [None], [response.error])
            return
        item_schema = self.task.item_schema
        good, unknown = split_answers(response.text, [it.id for it in batch], item_schema) if response.ok else ({}, [])
        self.outcome.unknown_ids += unknown
        again: list[tuple[Item, tuple[dict, str] | None]] = []
        for it in batch:
            answer = good.get(it.id)
            if answer is None:
                again.append((it, None))  # missing or invalid: asked again alone
                continue
            answer = {k: v for k, v in answer.items() if k != "id"}
            reason = self.check(it, answer) if self.check is not None else None
            if reason is None:
                self._finish(it, [answer], [None], response.cache_hit)
            else:
                again.append((it, (answer, reason)))  # rejected: one repair request, alone
        if again:
            self.outcome.retried_individually += [it.id for it, _ in again]
            await asyncio.gather(*(self.single(it, rejected) for it, rejected in again))

    async def single(self, item: Item, rejected: tuple[dict, str] | None = None) -> None:
        """One item alone: the judge validates and repairs the schema, then the check may repair.
        ``rejected``: the item's answer from its batch and why the check refused it; the item
        then goes straight to a repair request that shows the model that answer."""
        if self.judge.stop_reason:
            self._stop([item], self.judge.stop_reason)
            return
        request = self.task.request([item], self.context)
        if rejected is not None:
            answer, reason = rejected
            shown = json.dumps({ITEMS_FIELD: [{"id": item.id, **answer}]}, ensure_ascii=False)
            try:
                fixed, why = await self._repair(item, request, shown, reason)
            except BudgetExceeded as e:
                self._stop([item], str(e))
                return
            self._finish(item, [fixed], [why])
            return
        try:
            responses = await self.judge.complete(request, item_id=item.id)
            self.outcome.batches += 1
            answers, reasons = [], []
            for r in responses:
                if self.task.batched and not r.ok:
                    _, unknown = split_answers(r.text, [item.id], item.schema or self.task.item_schema)
                    self.outcome.unknown_ids += unknown
                answer, reason = self._unwrap(r.parsed) if r.ok else (None, r.error)
                if answer is not None and self.check is not None:
                    reason = self.check(item, answer)
                    if reason is not None and self.task.samples == 1:
                        answer, reason = await self._repair(item, request, r.text, reason)
                    elif reason is not None:
                        answer = None
                answers.append(answer)
                reasons.append(reason if answer is None else None)
        except BudgetExceeded as e:
            self._stop([item], str(e))
            return
        if self.judge.stop_reason and not all(r.ok for r in responses):
            self.outcome.stopped = self.outcome.stopped or self.judge.stop_reason  # e.g. the server is unreachable
        self._finish(item, answers, reasons, all(r.cache_hit for r in responses))

    def _unwrap(self, parsed: Any) -> tuple[Any, str | None]:
        if not self.task.batched:
            return parsed, None
        entries = parsed.get(ITEMS_FIELD) if isinstance(parsed, dict) else None
        if not entries:
            return None, "invalid output: no item in the answer"
        return {k: v for k, v in entries[0].items() if k != "id"}, None

    async def _repair(self, item: Item, request: Request, text: str, reason: str) -> tuple[Any, str | None]:
        repair = replace(
            request,
            messages=request.messages
            + (Message.text("assistant", text), Message.text("user", self.task.repair_message(reason))),
            n=1,
        )
        fixed = (await self.judge.complete(repair, item_id=item.id))[0]
        if not fixed.ok:
            return None, f"answer rejected: {reason}; repair failed: {fixed.error}"
        answer, problem = self._unwrap(fixed.parsed)
        second = problem or (self.check(item, answer) if self.check else None)
        if second is not None:
            return None, f"answer rejected: {reason}; after repair: {second}"
        self.outcome.repaired += 1
        return answer, None
