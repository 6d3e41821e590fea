"""API limits held for a whole Ray cluster: one limiter actor every worker's judge asks.

``--rpm``/``--tpm`` are token buckets inside the actor, ``--concurrency`` a semaphore, and
``--max-cost`` a ledger of spent and reserved dollars, so N workers together keep the limits one
local run keeps.

Concurrency slots are *leased* (``_LeasedSlots``): a worker takes several in one round trip and
hands them from one of its calls to the next without asking again; idle ones go back after
``LINGER``, and slots beyond its fair share after ``LEASE`` if other workers wait. Each run sets
slots aside (``begin_run``) so a new worker calls at once with its share instead of waiting for
its first round trip here (~1 s from a new process on a busy machine), and frees what its
workers still hold when it ends (``end_run``). Rate tokens and cost reservations stay one round
trip per call: they are taken before a slot, so that latency overlaps other calls.

A worker that dies while holding slots or reservations would leak them; Ray restarts it under
the same actor id, and its constructor calls ``forget`` to return what the dead incarnation
held (and to drop its queued requests for slots).

Imported only by the Ray engine: ``ray`` is an optional extra.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from typing import Any

import ray

from voxjudge.llm.errors import BudgetExceeded
from voxjudge.llm.judge import Judge
from voxjudge.llm.limits import RateLimiter
from voxjudge.llm.types import Request, Usage
from voxjudge.llm.usage import UsageMeter, estimate_request_tokens

# The usage meter of the batch a coroutine works for: an actor runs several batches at once and
# reports each one's usage with its answers.
BATCH_METER: contextvars.ContextVar[UsageMeter | None] = contextvars.ContextVar("batch_meter", default=None)
LINGER = 0.02  # seconds an idle leased slot waits for this worker's next call before going back
LEASE = 0.25  # seconds a worker keeps slots beyond its fair share while others may want them


@ray.remote(num_cpus=0, max_concurrency=100_000)
class ClusterLimiter:
    def __init__(
        self,
        requests_per_minute: float | None,
        tokens_per_minute: float | None,
        concurrency: int,
        max_cost: float | None,
        spent: float = 0.0,
    ):
        self.rates = RateLimiter(requests_per_minute, tokens_per_minute)
        self.slots = asyncio.Semaphore(concurrency)
        self.max_cost = max_cost
        self.spent = spent
        self.reserved: dict[str, float] = {}  # incarnation -> dollars held by its calls in flight
        self.held: dict[str, int] = {}  # incarnation -> slots held
        self.current: dict[str, str] = {}  # worker actor id -> its live incarnation
        self.workers: dict[str, Any] = {}  # worker actor id -> handle (tests kill one)
        self.set_aside: dict[str, int] = {}  # run -> slots kept for its workers' first calls
        self.runs: dict[str, str] = {}  # incarnation -> its run

    async def begin_run(self, run: str, slots: int) -> None:
        """Set slots aside for a run's first workers: they start calling with them before their
        first round trip here (the first one from a new worker process takes ~1 s)."""
        for _ in range(slots):
            await self.slots.acquire()
        self.set_aside[run] = slots

    def end_run(self, run: str) -> None:
        """The run's workers are gone (Ray ends the pool): free whatever they still held."""
        for _ in range(self.set_aside.pop(run, 0)):
            self.slots.release()
        for incarnation in [i for i, r in self.runs.items() if r == run]:
            del self.runs[incarnation]
            for _ in range(self.held.pop(incarnation, 0)):
                self.slots.release()
            self.reserved.pop(incarnation, None)
        self.current = {a: i for a, i in self.current.items() if i in self.runs}

    def forget(self, actor_id: str, incarnation: str, handle: Any = None, run: str = "", granted: int = 0) -> int:
        """A worker (re)started: give back what its previous incarnation held. ``granted``: the
        slots a first incarnation took from those set aside for its run."""
        old = self.current.get(actor_id)
        if old is not None:
            for _ in range(self.held.pop(old, 0)):
                self.slots.release()
            self.reserved.pop(old, None)
            self.runs.pop(old, None)
        taken = min(granted, self.set_aside.get(run, 0))
        if run in self.set_aside:
            self.set_aside[run] -= taken
        self.held[incarnation] = self.held.get(incarnation, 0) + taken
        self.runs[incarnation] = run
        self.current[actor_id] = incarnation
        if handle is not None:
            self.workers[actor_id] = handle
        return taken

    def _alive(self, incarnation: str) -> bool:
        return incarnation in self.current.values()

    async def acquire(self, tokens: int) -> None:
        await self.rates.acquire(tokens)

    async def enter(self, incarnation: str) -> bool:
        await self.slots.acquire()
        if not self._alive(incarnation):  # queued by a worker that has since died
            self.slots.release()
            return False
        self.held[incarnation] = self.held.get(incarnation, 0) + 1
        return True

    def leave(self, incarnation: str) -> None:
        self.give_back(incarnation, 1)

    async def lease(self, incarnation: str, want: int) -> int:
        """At least one slot (waiting for it) and up to ``want`` while no other worker waits."""
        if not await self.enter(incarnation):
            return 0
        got = 1
        while got < want and not self.slots.locked():
            await self.slots.acquire()  # free and nobody queued: returns at once
            got += 1
        self.held[incarnation] += got - 1
        return got

    def give_back(self, incarnation: str, count: int) -> None:
        count = min(count, self.held.get(incarnation, 0))
        if count:
            self.held[incarnation] -= count
            for _ in range(count):
                self.slots.release()

    def reserve(self, incarnation: str, worst: float) -> str | None:
        """Hold a call's worst-case cost; the refusal message when the limit would be passed."""
        if self.max_cost is None:
            return None
        if self.spent + sum(self.reserved.values()) + worst > self.max_cost:
            return (
                f"cost limit of {self.max_cost:g} USD reached (spent {self.spent:.4f} USD); "
                "rerun with a higher limit to continue from the cache"
            )
        self.reserved[incarnation] = self.reserved.get(incarnation, 0.0) + worst
        return None

    def settle(self, incarnation: str, worst: float, cost: float) -> None:
        if incarnation in self.reserved:
            self.reserved[incarnation] = max(0.0, self.reserved[incarnation] - worst)
        self.spent += cost

    def worker_handles(self) -> list[Any]:
        return list(self.workers.values())

    def state(self) -> dict[str, Any]:
        return {"spent": self.spent, "slots_held": sum(self.held.values()), "workers": len(self.current)}


class _LeasedSlots:
    """Stands in for the judge's local concurrency semaphore: slots leased from the limiter and
    handed from one call of this worker to the next locally.

    A worker may lease every slot of the cluster while the others do not ask (the first worker
    up, or the last one busy, keeps them all full), but slots beyond its fair share are leases
    of ``LEASE`` seconds: once that is over they go back as calls end, and the limiter gives them
    to the workers waiting first (or straight back to this one if none is)."""

    def __init__(self, limiter: Any, incarnation: str, cap: int, fair: int, granted: int = 0, confirm: Any = None):
        """``granted`` slots are used at once; ``confirm`` (the limiter's answer to ``forget``)
        says how many of them were really set aside, and any missing ones are dropped as they
        come free (only if Ray started more first workers than the pool's size)."""
        self.limiter, self.incarnation = limiter, incarnation
        self.cap, self.fair = max(1, cap), max(1, fair)
        self.leased = granted  # held from the limiter, busy or idle
        self.idle = granted
        self.owed = 0
        self.confirm, self.granted = confirm, granted
        self.since = 0.0  # when the last lease was granted
        self.waiting: deque[asyncio.Future] = deque()
        self.asking = False
        self.returning: asyncio.TimerHandle | None = None

    async def __aenter__(self) -> None:
        if self.confirm is not None:
            confirm, self.confirm = self.confirm, None
            asyncio.ensure_future(self._confirm(confirm))
        if self.idle:
            self.idle -= 1
            return
        slot = asyncio.get_running_loop().create_future()
        self.waiting.append(slot)
        self._ask()
        try:
            await slot
        except asyncio.CancelledError:
            if slot.done() and not slot.cancelled():
                self._free_one()  # handed over just as the call was cancelled: pass it on
            raise

    async def __aexit__(self, *exc: Any) -> None:
        loop = asyncio.get_running_loop()
        if self.leased > self.fair and self.waiting and loop.time() - self.since > LEASE:
            self.leased -= 1
            self.limiter.give_back.remote(self.incarnation, 1)
            self._ask()
            return
        self._free_one()

    async def _confirm(self, confirm: Any) -> None:
        missing = self.granted - await confirm
        self.leased -= missing
        self.owed += missing
        while self.owed and self.idle:
            self.owed -= 1
            self.idle -= 1

    def _free_one(self) -> None:
        if self.owed:
            self.owed -= 1
            return
        while self.waiting:
            slot = self.waiting.popleft()
            if not slot.done():
                slot.set_result(None)
                return
        self.idle += 1
        if self.returning is None:
            self.returning = asyncio.get_running_loop().call_later(LINGER, self._give_back_idle)

    def _give_back_idle(self) -> None:
        self.returning = None
        if self.idle:
            count, self.idle = self.idle, 0
            self.leased -= count
            self.limiter.give_back.remote(self.incarnation, count)

    def _ask(self) -> None:
        want = min(len(self.waiting), self.cap - self.leased)
        if not self.asking and want > 0:
            self.asking = True
            asyncio.ensure_future(self._lease(want))

    async def _lease(self, want: int) -> None:
        try:
            got = await self.limiter.lease.remote(self.incarnation, want)
            if not got:  # this incarnation is being replaced; its calls end with it
                await asyncio.sleep(0.1)
            self.leased += got
            self.since = asyncio.get_running_loop().time()
        finally:
            self.asking = False
        for _ in range(got):
            self._free_one()
        self._ask()


class _ClusterRates:
    """Stands in for the judge's local rate limiter."""

    def __init__(self, limiter: Any, active: bool):
        self.limiter, self.active = limiter, active

    async def acquire(self, tokens: int) -> None:
        if self.active:
            await self.limiter.acquire.remote(tokens)


class ClusterJudge(Judge):
    """A worker's judge: its own backend, cache and call log, the cluster's limits, and usage
    counted per batch (``BATCH_METER``) so each batch reports its own."""

    @property  # type: ignore[override]
    def meter(self) -> UsageMeter:
        return BATCH_METER.get() or self._meter

    @meter.setter
    def meter(self, value: UsageMeter) -> None:
        self._meter = value

    def attach(
        self,
        limiter: Any,
        incarnation: str,
        *,
        rated: bool,
        max_cost: float | None,
        fair: int,
        granted: int = 0,
        confirm: Any = None,
    ) -> None:
        self.limiter = _ClusterRates(limiter, rated)  # type: ignore[assignment]
        slots = _LeasedSlots(limiter, incarnation, self.concurrency, fair, granted, confirm)
        self._slots = slots  # type: ignore[assignment]
        self._cluster, self._incarnation, self._cluster_max_cost = limiter, incarnation, max_cost

    async def _call(self, request: Request, n: int, item_id: str | None, indices: list[int]):
        tokens = estimate_request_tokens(request)
        price = self.meter.price
        worst = 0.0
        if self._cluster_max_cost is not None and price is not None:
            worst = price.cost(Usage(tokens, request.max_tokens * n))
            refusal = await self._cluster.reserve.remote(self._incarnation, worst)
            if refusal is not None:
                raise BudgetExceeded(refusal)
        cost = 0.0
        try:
            result, usage, latency = await self._call_with_retries(request, n, item_id, indices, tokens)
            cost = price.cost(usage) if price is not None else 0.0
            return result, usage, latency
        finally:
            if worst or cost:
                await self._cluster.settle.remote(self._incarnation, worst, cost)
