"""``--engine ray`` for embedders: the texts the cache lacks, in the batches the local run would
send, spread over a pool of Ray actors, each holding one embedder (its own backend, the shared
cache file and call log, the cluster's rate limits and cost ledger). Every actor is up (its model loaded) before
the first share is handed out, and each gets its next share as it finishes one, so the work is
spread over all of them however fast the first one starts.

An actor embeds its shares with the same ``Embedder.aembed`` the local engine runs (halving,
one-by-one retries, checks, normalisation, caching), so the vectors are the local run's. An
in-process model (``e5/``) is CPU-bound: each actor reserves the CPUs its engine uses and the
driver gives it ``threads = num_cpus // workers`` of them, so two workers on two CPUs run one
engine thread each instead of four threads fighting for two cores. Resume is the cache's: every
vector is committed as its batch finishes, so a rerun embeds only what no worker finished.

``--max-cost`` holds for all the workers together: each actor's embedder reserves the worst case of
every call in the ledger of one ``ClusterLimiter`` (the limit, and what the embedder had already
spent) and settles what it was billed. Once a reservation is refused, no new share is handed out,
the shares in flight finish (their vectors cached), and the run stops with the local engine's
``BudgetExceeded``.

Imported only by the Ray engine (``ray`` is an optional extra).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import ray

from voxjudge.llm.embed import Embedder
from voxjudge.llm.errors import BudgetExceeded
from voxjudge.llm.ray_limits import ClusterLimiter, _ClusterRates
from voxjudge.llm.ray_start import ensure_ray, quiet_ray_logs, voxjudge_cause
from voxjudge.llm.recipe import ClientRecipe
from voxjudge.llm.types import Usage

_FIELDS = ("requests", "cache_hits", "retries", "failures", "input_tokens")


@dataclass
class EmbedderRecipe(ClientRecipe):
    """An embedder's recipe (``recipe``), with the worker's share of the CPUs for an in-process model."""

    @classmethod
    def of(cls, embedder: Embedder, threads: int | None) -> EmbedderRecipe:
        recipe = cls(*ClientRecipe.parts(embedder))
        if threads is not None:  # a transport option: same vectors, same keys
            recipe.spec = replace(recipe.spec, options={**recipe.spec.options, "threads": str(threads)})
        return recipe

    def build(self) -> ClusterEmbedder:
        return self.built(ClusterEmbedder)


class ClusterEmbedder(Embedder):
    """A worker's embedder: with a ``ledger`` (the cluster's limiter, this actor's incarnation),
    each call's worst-case cost is held there, so the workers together keep ``--max-cost``."""

    ledger: tuple[Any, str] | None = None

    async def _hold_budget(self, tokens: int) -> float:
        if self.ledger is None or self.meter.price is None:
            return await super()._hold_budget(tokens)
        worst = self.meter.price.cost(Usage(tokens, 0))
        refusal = await self.ledger[0].reserve.remote(self.ledger[1], worst)
        if refusal is not None:
            raise BudgetExceeded(refusal)
        return worst

    async def _release_budget(self, reserved: float, usage: Usage) -> None:
        if self.ledger is None or self.meter.price is None:
            return await super()._release_budget(reserved, usage)
        await self.ledger[0].settle.remote(self.ledger[1], reserved, self.meter.price.cost(usage))


class _EmbedWorker:
    """One actor: one embedder, reused for every share it is given."""

    def __init__(self, recipe: EmbedderRecipe, limiter: Any, rated: bool, max_cost: float | None):
        self.embedder = recipe.build()
        if limiter is not None and rated:
            self.embedder.limiter = _ClusterRates(limiter, True)  # type: ignore[assignment]
        if limiter is not None and max_cost is not None:
            # a restarted actor is a new incarnation: the limiter drops what the dead one reserved
            incarnation = uuid.uuid4().hex
            limiter.forget.remote(ray.get_runtime_context().get_actor_id(), incarnation)
            self.embedder.ledger = (limiter, incarnation)

    def ready(self) -> int:
        """Loads an in-process model before any share is handed out; the worker's pid."""
        if self.embedder.backend.limits.local:
            getattr(self.embedder.backend, "model", None)
        return os.getpid()

    async def share(self, start: int, texts: list[str]) -> tuple:
        result = await self.embedder.aembed(texts)
        # The actor's running totals (shares run concurrently here, so per-share deltas overlap):
        # the driver keeps the latest totals of each worker.
        used = {k: getattr(self.embedder.meter, k) for k in _FIELDS}
        return start, result.vectors, result.failed, used, os.getpid()

    def used(self) -> tuple[dict[str, int], int]:
        """The actor's running totals (a share stopped by the cost limit returns none)."""
        return {k: getattr(self.embedder.meter, k) for k in _FIELDS}, os.getpid()

    async def close(self) -> None:
        await self.embedder.aclose()  # the call log flushed, the cache closed


async def embed_on_ray(
    embedder: Embedder,
    texts: list[str],
    *,
    address: str | None,
    num_cpus: int,
    workers: int,
    cpus_per_worker: float,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[int, np.ndarray], dict[int, str]]:
    """Unit vectors of ``texts`` (distinct, non-empty, not cached) by position, and why the
    others failed, on ``workers`` actors of the Ray at ``address`` (None: as ``ensure_ray``
    decides, one started here with ``num_cpus``); the workers' usage is added to the embedder's meter."""
    import asyncio

    if not texts:
        return {}, {}
    ensure_ray(address, num_cpus)  # on this thread: see ray_start
    return await asyncio.to_thread(_run, embedder, texts, workers, cpus_per_worker, num_cpus, progress)


def _keep_latest(totals: dict, pid: int, used: dict) -> None:
    """A worker's running totals, as the latest of its answers gives them (they only grow)."""
    seen = totals.setdefault(pid, used)
    totals[pid] = {k: max(seen[k], used[k]) for k in _FIELDS}


def _run(embedder: Embedder, texts: list[str], workers: int, cpus_per_worker: float, started_cpus: int, progress):
    found: dict[int, np.ndarray] = {}
    reasons: dict[int, str] = {}
    quiet_ray_logs()
    size = max(1, embedder.backend.limits.max_batch)
    shares = [(s, texts[s : s + size]) for s in range(0, len(texts), size)]
    workers = min(workers, len(shares))
    limits = embedder.backend.limits
    if limits.local:
        # CPU-bound in the actor: it reserves the CPUs its engine threads use.
        cpus = max(1, int(ray.cluster_resources().get("CPU", started_cpus)) // workers)
        threads = num_cpus = min(cpus, limits.threads or cpus)
    else:
        threads, num_cpus = None, cpus_per_worker
    rpm = embedder.limiter.requests.capacity if embedder.limiter.requests else None
    tpm = embedder.limiter.tokens.capacity if embedder.limiter.tokens else None
    max_cost = embedder.max_cost if embedder.meter.price is not None else None  # unpriced: nothing to hold
    limiter = None
    if rpm or tpm or max_cost is not None:
        spent = embedder.meter.cost or 0.0  # what this embedder already paid counts against the limit
        limiter = ClusterLimiter.remote(rpm, tpm, embedder.concurrency, max_cost, spent)
    # A server's batches wait on the network: a few per actor at once; an engine's run one at a time.
    in_flight = 1 if limits.local else 4
    options = {"num_cpus": num_cpus, "max_concurrency": in_flight, "max_restarts": 1, "max_task_retries": 1}
    actor = ray.remote(_EmbedWorker).options(**options)
    recipe = EmbedderRecipe.of(embedder, threads)
    actors = [actor.remote(recipe, limiter, bool(rpm or tpm), max_cost) for _ in range(workers)]
    done, totals, pending = 0, {}, {}
    queue = iter(shares)
    stopped: list[BudgetExceeded] = []
    try:
        ray.get([a.ready.remote() for a in actors])  # every worker up before any share: all of them get work

        def hand_out(worker: Any) -> None:
            for start, batch in queue:
                if stopped:  # the cost limit is reached: no new share; those in flight finish
                    return
                pending[worker.share.remote(start, batch)] = worker
                return

        for _ in range(in_flight):
            for worker in actors:  # round robin: a short run still reaches every worker
                hand_out(worker)
        while pending:
            [ref], _ = ray.wait(list(pending), num_returns=1)
            worker = pending.pop(ref)
            try:
                start, vectors, failed, used, pid = ray.get(ref)
            except Exception as e:
                cause = voxjudge_cause(e)
                if not isinstance(cause, BudgetExceeded):
                    raise
                stopped.append(cause)  # its finished batches are cached by the worker
                continue
            hand_out(worker)
            _keep_latest(totals, pid, used)
            for j in range(len(vectors)):
                if j in failed:
                    reasons[start + j] = failed[j]
                else:
                    found[start + j] = vectors[j]
                    embedder._check_dim(len(vectors[j]), answer=True)
            done += len(vectors)
            if progress is not None:
                progress(done, len(texts))
        if stopped:  # the shares that stopped returned no totals: ask every worker for its own
            for used, pid in ray.get([a.used.remote() for a in actors], timeout=30):
                _keep_latest(totals, pid, used)
    except Exception as e:
        raise voxjudge_cause(e) from None
    finally:
        ray.wait([a.close.remote() for a in actors], num_returns=len(actors), timeout=30)
        for a in actors:
            ray.kill(a)
    for used in totals.values():
        for name in _FIELDS:
            setattr(embedder.meter, name, getattr(embedder.meter, name) + used[name])
    embedder.workers_used = len(totals)  # reported in the usage: how far the batches were spread
    if stopped:
        message = str(stopped[0])
        if embedder.cache is None:  # nothing to continue from: say it as the local engine does
            message = message.replace(" from the cache", "")
        raise BudgetExceeded(message)
    return found, reasons
