"""``--engine ray`` for embedders: the texts the cache lacks, in the batches the local run would
send, spread over a pool of Ray actors, each holding one embedder (its own backend, the shared
cache file and call log, the cluster's rate limits). Every actor is up (its model loaded) before
the first share is handed out, and each gets its next share as it finishes one, so the work is
spread over all of them however fast the first one starts.

An actor embeds its shares with the same ``Embedder.aembed`` the local engine runs (halving,
one-by-one retries, checks, normalisation, caching), so the vectors are the local run's. An
in-process model (``e5/``) is CPU-bound: each actor reserves the CPUs its engine uses and the
driver gives it ``threads = num_cpus // workers`` of them, so two workers on two CPUs run one
engine thread each instead of four threads fighting for two cores. Resume is the cache's: every
vector is committed as its batch finishes, so a rerun embeds only what no worker finished.

Imported only by the Ray engine (``ray`` is an optional extra).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import ray

from voxjudge.llm.ray_limits import ClusterLimiter, _ClusterRates
from voxjudge.llm.ray_start import ensure_ray, quiet_ray_logs, voxjudge_cause
from voxjudge.llm.recipe import ClientRecipe

if TYPE_CHECKING:
    from voxjudge.llm.embed import Embedder

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

    def build(self) -> Embedder:
        from voxjudge.llm.embed import Embedder

        return self.built(Embedder)


class _EmbedWorker:
    """One actor: one embedder, reused for every share it is given."""

    def __init__(self, recipe: EmbedderRecipe, limiter: Any):
        self.embedder = recipe.build()
        if limiter is not None:
            self.embedder.limiter = _ClusterRates(limiter, True)  # type: ignore[assignment]

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
    others failed, on ``workers`` actors of the Ray at ``address`` (None: one started here with
    ``num_cpus``); the workers' usage is added to the embedder's meter."""
    import asyncio

    if not texts:
        return {}, {}
    ensure_ray(address, num_cpus)  # on this thread: see ray_start
    return await asyncio.to_thread(_run, embedder, texts, workers, cpus_per_worker, num_cpus, progress)


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
    limiter = ClusterLimiter.remote(rpm, tpm, embedder.concurrency, None, 0.0) if (rpm or tpm) else None
    # A server's batches wait on the network: a few per actor at once; an engine's run one at a time.
    in_flight = 1 if limits.local else 4
    options = {"num_cpus": num_cpus, "max_concurrency": in_flight, "max_restarts": 1, "max_task_retries": 1}
    actor = ray.remote(_EmbedWorker).options(**options)
    actors = [actor.remote(EmbedderRecipe.of(embedder, threads), limiter) for _ in range(workers)]
    done, totals, pending = 0, {}, {}
    queue = iter(shares)
    try:
        ray.get([a.ready.remote() for a in actors])  # every worker up before any share: all of them get work

        def hand_out(worker: Any) -> None:
            for start, batch in queue:
                pending[worker.share.remote(start, batch)] = worker
                return

        for _ in range(in_flight):
            for worker in actors:  # round robin: a short run still reaches every worker
                hand_out(worker)
        while pending:
            [ref], _ = ray.wait(list(pending), num_returns=1)
            worker = pending.pop(ref)
            start, vectors, failed, used, pid = ray.get(ref)
            hand_out(worker)
            seen = totals.setdefault(pid, used)
            totals[pid] = {k: max(seen[k], used[k]) for k in _FIELDS}
            for j in range(len(vectors)):
                if j in failed:
                    reasons[start + j] = failed[j]
                else:
                    found[start + j] = vectors[j]
                    embedder._check_dim(len(vectors[j]), answer=True)
            done += len(vectors)
            if progress is not None:
                progress(done, len(texts))
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
    return found, reasons
