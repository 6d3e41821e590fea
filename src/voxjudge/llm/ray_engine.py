"""``--engine ray``: the same judged runs on a Ray cluster (or a Ray started on this machine).

The driver plans exactly what the local engine would send (``plan_batches``), so requests, cache
keys and answers are the same; those planned batches become a Ray Dataset and ``map_batches``
hands them to a pool of actors, each holding one judge client (its own backend, the shared cache
and call log) whose limits are the cluster's (``ray_limits.ClusterLimiter``). Each actor runs
the local engine on its share and returns the partial outcome; the driver merges the parts,
``label_many`` puts them back in input order.

Resume: every answer is committed to the cache as it arrives, so a worker killed mid-run is
restarted by Ray, its unfinished share is handed out again, and only the calls that were in
flight when it died are paid twice. A rerun of the whole command is served from the cache.

Attach to a running cluster with ``address="auto"`` (after ``ray start --head``); workers there
need voxjudge installed and, for a file cache, a path they all see.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import pickle
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import ray

from voxjudge.llm import negotiate
from voxjudge.llm.errors import ConfigError, LLMError
from voxjudge.llm.judge import Judge
from voxjudge.llm.label import Check, LabelOutcome, label_planned
from voxjudge.llm.ray_limits import BATCH_METER, ClusterJudge, ClusterLimiter
from voxjudge.llm.retry import RetryPolicy
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.task import Item, Task
from voxjudge.llm.types import Request, Response
from voxjudge.llm.usage import Price, UsageMeter

_SHARES_AT_ONCE = 4  # shares an actor works on together
_METER_FIELDS = ("requests", "cache_hits", "retries", "failures", "input_tokens", "output_tokens", "audio_seconds")


def ensure_ray(address: str | None, num_cpus: int = 2) -> None:
    """Connect to ``address`` (e.g. "auto"), or start a Ray inside this process with ``num_cpus``."""
    if ray.is_initialized():
        return
    quiet: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    try:
        if address:
            ray.init(address=address, **quiet)
        else:
            # Ray runs its workers at nice 15 so they cannot starve its own daemons; the workers
            # of a judged run mostly wait on the network, and at nice 15 on a busy machine they
            # lose the CPU to every other process (measured: the Ray run took 1.8x the local one).
            ray.init(num_cpus=num_cpus, _system_config={"worker_niceness": 0}, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise ConfigError(f"cannot start or join Ray (address {address or 'a new local Ray'}): {e}") from None
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the library never prints; the CLI shows its own bar
    if hasattr(context, "print_on_execution_start"):
        context.print_on_execution_start = False
    _quiet_ray_logs()


def _quiet_ray_logs() -> None:
    for name in ("ray", "ray.data"):  # the library never prints; Ray's own chatter stays quiet
        logging.getLogger(name).setLevel(logging.ERROR)


@dataclass
class JudgeRecipe:
    """What a worker needs to build the driver's judge again (a judge itself holds open files)."""

    spec: JudgeSpec
    cache: str | None
    records: str | None
    concurrency: int
    retry: RetryPolicy
    timeout: float
    price: Price | None
    rated: bool

    @classmethod
    def of(cls, judge: Judge) -> JudgeRecipe:
        return cls(
            judge.spec,
            None if judge.cache is None else str(judge.cache.path),
            None if judge.records is None else str(judge.records.path),
            judge.concurrency,
            judge.retry,
            judge.timeout,
            judge.meter.price,
            judge.limiter.requests is not None or judge.limiter.tokens is not None,
        )

    def build(self, limiter: Any, incarnation: str, max_cost: float | None, **slots: Any) -> ClusterJudge:
        judge = ClusterJudge(
            self.spec,
            cache=self.cache,
            records=self.records,
            concurrency=self.concurrency,
            retry=self.retry,
            timeout=self.timeout,
        )
        judge.meter.price = self.price
        judge.attach(limiter, incarnation, rated=self.rated, max_cost=max_cost, **slots)
        return judge


class _Worker:
    """One actor of the pool: one judge client, reused for every share it is given. ``__call__``
    is a coroutine, so Ray Data gives the actor several shares at once and their calls fill the
    worker's slots together (one share at a time would drain the slots at the end of each)."""

    def __init__(self, recipe: JudgeRecipe, limiter: Any, max_cost: float | None, job: tuple, slots: tuple):
        run, fair, granted = slots
        context = ray.get_runtime_context()
        incarnation = uuid.uuid4().hex
        # A first incarnation starts calling at once with slots the limiter set aside for it;
        # a restarted one (its first incarnation may have used them) leases like any other.
        granted = 0 if context.was_current_actor_reconstructed else granted
        # Not waited for: the limiter runs this worker's requests in the order they were sent.
        confirm = limiter.forget.remote(context.get_actor_id(), incarnation, context.current_actor, run, granted)
        self.judge = recipe.build(limiter, incarnation, max_cost, fair=fair, granted=granted, confirm=confirm)
        self.job = job

    async def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        shares = [pickle.loads(p) for p in batch["payload"]]
        meter = UsageMeter(self.judge.meter.price)
        context = contextvars.copy_context()
        context.run(BATCH_METER.set, meter)  # this share's calls count in its own meter
        result = await asyncio.get_running_loop().create_task(self._work(shares), context=context)
        used = {k: getattr(meter, k) for k in _METER_FIELDS}
        part = (result, used, self.judge.stop_reason, negotiate.take_notices())
        return {"part": np.array([pickle.dumps(part)], dtype=object)}

    async def _work(self, shares: list) -> Any:
        if self.job[0] == "label":
            _, task, context, check = self.job
            return await label_planned(self.judge, task, shares, context=context, check=check)
        _, validate = self.job
        answers = await Judge.complete_many(self.judge, [(uid, r) for _, uid, r in shares], validate=validate)
        return [(k, a) for (k, _, _), a in zip(shares, answers)]


@dataclass
class RayEngine:
    """``workers`` actors in the pool; ``address`` None starts Ray here with ``num_cpus``."""

    address: str | None = None
    workers: int = 2
    num_cpus: int = 2
    cpus_per_worker: float = 0.5  # the work is waiting on an API or a GPU actor, not the CPU
    limiters: dict[int, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError("a Ray engine needs at least one worker")

    def limiter_for(self, judge: Judge) -> Any:
        """The judge's cluster-wide limiter, created once so limits span every call of a run."""
        if id(judge) not in self.limiters:
            rpm = judge.limiter.requests.capacity if judge.limiter.requests else None
            tpm = judge.limiter.tokens.capacity if judge.limiter.tokens else None
            limiter = ClusterLimiter.remote(rpm, tpm, judge.concurrency, judge.max_cost, judge.meter.cost or 0.0)
            # Up before the workers: started alongside them it came up last (they compete for
            # the CPU while they start), and every worker waited for it before its first call.
            ray.get(limiter.state.remote())
            self.limiters[id(judge)] = limiter
        return self.limiters[id(judge)]

    async def label(
        self,
        judge: Judge,
        task: Task,
        batches: Sequence[Sequence[Item]],
        *,
        context: Mapping[str, Any] | None = None,
        check: Check | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> LabelOutcome:
        outcome = LabelOutcome(task.name, task.sha256)
        if not batches:
            return outcome
        payloads = [pickle.dumps(list(b)) for b in batches]
        job = ("label", task, dict(context) if context is not None else None, check)
        total = sum(len(b) for b in batches)
        parts = await asyncio.to_thread(self._run, judge, job, payloads, total, progress, lambda r: len(r.results))
        for part in parts:
            outcome.merge(part)
        return outcome

    async def complete_many(
        self,
        judge: Judge,
        items: Sequence[tuple[str, Request]],
        *,
        validate: bool = True,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[list[Response] | None]:
        results: list[list[Response] | None] = [None] * len(items)
        if not items:
            return results
        payloads = [pickle.dumps((k, uid, r)) for k, (uid, r) in enumerate(items)]
        parts = await asyncio.to_thread(self._run, judge, ("complete", validate), payloads, len(items), progress, len)
        for part in parts:
            for k, answer in part:
                results[k] = answer
        return results

    def _run(self, judge: Judge, job: tuple, payloads: list[bytes], total: int, progress, size) -> list[Any]:
        ensure_ray(self.address, self.num_cpus)
        _quiet_ray_logs()  # Ray Data sets its loggers up on first use
        limiter = self.limiter_for(judge)
        # Shares of about 1/32 of the work per worker, four running at once in each actor: the
        # slots stay full while Ray hands over the next share, the last shares are short (no
        # long tail on one worker), and a killed worker's shares are redone cheaply (their
        # finished answers come from the cache).
        rows = max(1, -(-len(payloads) // (32 * self.workers)))
        blocks = -(-len(payloads) // rows)  # one share per block: each is one Ray task
        run = uuid.uuid4().hex
        fair = -(-judge.concurrency // self.workers)  # a worker's share of the slots when all ask
        granted = judge.concurrency // self.workers  # slots each first worker starts with
        ray.get(limiter.begin_run.remote(run, granted * self.workers))
        dataset = ray.data.from_items([{"payload": p} for p in payloads], override_num_blocks=blocks).map_batches(
            _Worker,
            fn_constructor_kwargs={
                "recipe": JudgeRecipe.of(judge),
                "limiter": limiter,
                "max_cost": judge.max_cost,
                "job": job,
                "slots": (run, fair, granted),
            },
            batch_size=rows,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(
                size=self.workers,
                max_tasks_in_flight_per_actor=_SHARES_AT_ONCE,
                max_concurrent_calls_per_actor=_SHARES_AT_ONCE,
            ),
            num_cpus=self.cpus_per_worker,
            num_gpus=1 if judge.spec.provider == "vllm" else 0,  # each worker holds one vLLM engine
        )
        parts, done = [], 0
        try:
            for row in dataset.iter_rows():
                result, used, stop_reason, notices = pickle.loads(row["part"])
                for name, value in used.items():
                    setattr(judge.meter, name, getattr(judge.meter, name) + value)
                judge.stop_reason = judge.stop_reason or stop_reason
                for text in notices:
                    negotiate.relay(text)
                parts.append(result)
                done += size(result)
                if progress is not None:
                    progress(done, total)
        except Exception as e:
            raise _voxjudge_cause(e) from None
        finally:
            ray.get(limiter.end_run.remote(run))
        return parts


def _voxjudge_cause(error: BaseException) -> BaseException:
    """The judge's own error (bad key, bad spec) out of Ray's wrappers, so the CLI says it in one line."""
    seen = error
    for _ in range(10):
        if isinstance(seen, LLMError):
            return seen
        nxt = getattr(seen, "cause", None) or seen.__cause__
        if nxt is None:
            break
        seen = nxt
    return error
