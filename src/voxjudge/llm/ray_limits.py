"""API limits held for a whole Ray cluster: one limiter actor every worker's judge asks.

``--rpm``/``--tpm`` are token buckets inside the actor, ``--concurrency`` a semaphore, and
``--max-cost`` a ledger of spent and reserved dollars, so N workers together keep the limits one
local run keeps. A worker that dies while holding slots or reservations would leak them; Ray
restarts it under the same actor id, and its constructor calls ``forget`` to return what the
dead incarnation held (and to drop its queued requests for slots).

Imported only by the Ray engine: ``ray`` is an optional extra.
"""

from __future__ import annotations

import asyncio
from typing import Any

import ray

from voxjudge.llm.errors import BudgetExceeded
from voxjudge.llm.judge import Judge
from voxjudge.llm.limits import RateLimiter
from voxjudge.llm.types import Request, Usage
from voxjudge.llm.usage import estimate_request_tokens


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

    def forget(self, actor_id: str, incarnation: str, handle: Any = None) -> None:
        """A worker (re)started: give back what its previous incarnation held."""
        old = self.current.get(actor_id)
        if old is not None:
            for _ in range(self.held.pop(old, 0)):
                self.slots.release()
            self.reserved.pop(old, None)
        self.current[actor_id] = incarnation
        if handle is not None:
            self.workers[actor_id] = handle

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
        if self.held.get(incarnation, 0) > 0:
            self.held[incarnation] -= 1
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


class _ClusterSlots:
    """Stands in for the judge's local concurrency semaphore."""

    def __init__(self, limiter: Any, incarnation: str):
        self.limiter, self.incarnation = limiter, incarnation

    async def __aenter__(self) -> None:
        await self.limiter.enter.remote(self.incarnation)

    async def __aexit__(self, *exc: Any) -> None:
        await self.limiter.leave.remote(self.incarnation)


class _ClusterRates:
    """Stands in for the judge's local rate limiter."""

    def __init__(self, limiter: Any, active: bool):
        self.limiter, self.active = limiter, active

    async def acquire(self, tokens: int) -> None:
        if self.active:
            await self.limiter.acquire.remote(tokens)


class ClusterJudge(Judge):
    """A worker's judge: its own backend, cache and call log, the cluster's limits."""

    def attach(self, limiter: Any, incarnation: str, *, rated: bool, max_cost: float | None) -> None:
        self.limiter = _ClusterRates(limiter, rated)  # type: ignore[assignment]
        self._slots = _ClusterSlots(limiter, incarnation)  # type: ignore[assignment]
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
