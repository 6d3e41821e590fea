"""``--engine ray`` for embedders: the texts the cache lacks, in the batches the local run would
send, spread over a pool of Ray actors, each holding one embedder (its own backend, the shared
cache file and call log, the cluster's rate limits).

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
import pickle
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import ray

from voxjudge.llm.ray_limits import ClusterLimiter, _ClusterRates
from voxjudge.llm.retry import RetryPolicy
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.usage import Price

if TYPE_CHECKING:
    from voxjudge.llm.embed import Embedder
    from voxjudge.llm.ray_engine import RayEngine

_FIELDS = ("requests", "cache_hits", "retries", "failures", "input_tokens")


@dataclass
class EmbedderRecipe:
    """What a worker needs to build the driver's embedder again (it holds open files)."""

    spec: JudgeSpec
    cache: str | None
    records: str | None
    concurrency: int
    retry: RetryPolicy
    timeout: float
    price: Price | None

    @classmethod
    def of(cls, embedder: Embedder, threads: int | None) -> EmbedderRecipe:
        spec = embedder.model_spec
        if threads is not None:  # the worker's share of the CPUs (a transport option: same vectors, same keys)
            spec = replace(spec, options={**spec.options, "threads": str(threads)})
        return cls(
            spec,
            None if embedder.cache is None else str(embedder.cache.path),
            None if embedder.records is None else str(embedder.records.path),
            embedder.concurrency,
            embedder.retry,
            embedder.timeout,
            embedder.meter.price,
        )

    def build(self) -> Embedder:
        from voxjudge.llm.embed import Embedder

        embedder = Embedder(
            self.spec,
            cache=self.cache,
            records=self.records,
            concurrency=self.concurrency,
            retry=self.retry,
            timeout=self.timeout,
        )
        embedder.meter.price = self.price
        return embedder


class _EmbedWorker:
    """One actor: one embedder, reused for every share it is given."""

    def __init__(self, recipe: EmbedderRecipe, limiter: Any):
        self.embedder = recipe.build()
        if limiter is not None:
            self.embedder.limiter = _ClusterRates(limiter, True)  # type: ignore[assignment]

    async def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = []
        for payload in batch["payload"]:
            start, texts = pickle.loads(payload)
            result = await self.embedder.aembed(texts)
            used = {k: result.usage[k] for k in _FIELDS}
            out.append(pickle.dumps((start, result.vectors, result.failed, used, os.getpid())))
        return {"part": np.array(out, dtype=object)}


async def embed_on_ray(
    engine: RayEngine, embedder: Embedder, texts: list[str], progress: Callable[[int, int], None] | None = None
) -> tuple[dict[int, np.ndarray], dict[int, str]]:
    """Unit vectors of ``texts`` (distinct, non-empty, not cached) by position, and why the
    others failed; the workers' usage is added to the embedder's meter."""
    import asyncio

    return await asyncio.to_thread(_run, engine, embedder, texts, progress)


def _run(engine: RayEngine, embedder: Embedder, texts: list[str], progress) -> tuple[dict, dict]:
    from voxjudge.llm.ray_engine import _quiet_ray_logs, _voxjudge_cause, ensure_ray

    found: dict[int, np.ndarray] = {}
    reasons: dict[int, str] = {}
    if not texts:
        return found, reasons
    ensure_ray(engine.address, engine.num_cpus)
    _quiet_ray_logs()
    size = max(1, embedder.backend.limits.max_batch)
    shares = [(s, texts[s : s + size]) for s in range(0, len(texts), size)]
    workers = min(engine.workers, len(shares))
    limits = embedder.backend.limits
    if limits.local:
        # CPU-bound in the actor: it reserves the CPUs its engine threads use.
        cpus = max(1, int(ray.cluster_resources().get("CPU", engine.num_cpus)) // workers)
        threads = num_cpus = min(cpus, limits.threads or cpus)
    else:
        threads, num_cpus = None, engine.cpus_per_worker
    rpm = embedder.limiter.requests.capacity if embedder.limiter.requests else None
    tpm = embedder.limiter.tokens.capacity if embedder.limiter.tokens else None
    limiter = ClusterLimiter.remote(rpm, tpm, embedder.concurrency, None, 0.0) if (rpm or tpm) else None
    dataset = ray.data.from_items(
        [{"payload": pickle.dumps(s)} for s in shares], override_num_blocks=len(shares)
    ).map_batches(
        _EmbedWorker,
        fn_constructor_kwargs={"recipe": EmbedderRecipe.of(embedder, threads), "limiter": limiter},
        batch_size=1,
        batch_format="numpy",
        # A server's batches wait on the network: a few per actor at once; an engine's run one at a time.
        compute=ray.data.ActorPoolStrategy(
            size=workers,
            max_tasks_in_flight_per_actor=1 if limits.local else 4,
            max_concurrent_calls_per_actor=1 if limits.local else 4,
        ),
        num_cpus=num_cpus,
    )
    done, pids = 0, set()
    try:
        for row in dataset.iter_rows():
            start, vectors, failed, used, pid = pickle.loads(row["part"])
            pids.add(pid)
            for name, value in used.items():
                setattr(embedder.meter, name, getattr(embedder.meter, name) + value)
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
        raise _voxjudge_cause(e) from None
    embedder.workers_used = len(pids)  # reported in the usage: how far the batches were spread
    return found, reasons
