"""``--engine ray`` for the offline LASER judges: the chunks that ``parallel.score_chunks`` gives to
local worker processes go to a pool of Ray actors instead, so a corpus too big for one machine
is a cluster job. Each actor builds its own ``stream.ChunkScorer`` (judge and caches, as a local
worker does) and scores whole chunks; the driver reads the rows, sends chunks, and gets back each
chunk's ``ChunkResult`` -- records as UTF-8 bytes, the tally's share, per-utterance figures --
in input order, so the records written are byte for byte the local run's.

A bounded number of chunks is in flight (two per actor: the next one is already there when an
actor finishes), so the driver's memory does not grow with the corpus; a chunk goes to the actor
with the fewest unfinished chunks. An actor that dies (a lost node) is restarted by Ray and its
unfinished chunks are scored again there: a chunk's result depends on the chunk alone.

Ray is imported only here (an optional extra). Each actor claims one CPU: the work is CPU-bound.
"""

from __future__ import annotations

import itertools
import pickle
from collections import deque
from collections.abc import Iterator
from typing import Any

from voxjudge.asr.laser import parallel
from voxjudge.asr.laser.chunk_records import ChunkResult
from voxjudge.asr.laser.parallel import _chunks, _scored, _settle
from voxjudge.asr.laser.stream import ChunkScorer, StreamSettings

IN_FLIGHT = 2  # chunks per actor sent ahead
RESTARTS = 3  # an actor lost this many times in a run fails the run


class _ChunkActor:
    """One Ray actor: a chunk scorer built once, reused for every chunk it is sent."""

    def __init__(self, settings: StreamSettings):
        from voxjudge._heap import keep_freed_heap

        keep_freed_heap()  # a worker frees and makes again a chunk's worth of memory per chunk
        self.scorer = ChunkScorer(settings)

    def score(self, chunk: bytes) -> bytes:
        """A chunk's result; both pickled here, not by Ray: Ray's serializer took the driver 24 ms
        a chunk (2.4 CPU s of a 200k-utterance run, on the cores the actors share)."""
        result = _scored(self.scorer, pickle.loads(chunk))
        _settle()  # nothing else runs in the actor between chunks (as in a local worker)
        return pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)


def score_chunks_on_ray(
    rows,
    settings: StreamSettings,
    *,
    workers: int = 2,
    address: str | None = None,
    total: int | None = None,
) -> Iterator[ChunkResult]:
    """Results of successive chunks of ``(id, ref, hyp)`` rows, in input order, scored by
    ``workers`` Ray actors (one CPU each) on the cluster at ``address`` (None: as ``ensure_ray``
    decides, a Ray started in this process with a CPU per worker and at least two)."""
    import ray

    from voxjudge.llm.ray_start import ensure_ray

    if workers < 1:
        raise ValueError("a Ray engine needs at least one worker")
    size = parallel.CHUNK
    chunks = _chunks(rows, size)
    first = next(chunks, None)
    if first is None:  # nothing to score: no cluster to start
        return
    chunks = itertools.chain([first], chunks)
    if total is not None:  # no idle actors on a short run
        workers = max(1, min(workers, -(-total // size)))
    ensure_ray(address, num_cpus=max(2, workers))
    _check_cpus(ray, workers)
    actor = ray.remote(num_cpus=1, max_restarts=RESTARTS, max_task_retries=RESTARTS)(_ChunkActor)
    actors = [actor.remote(settings) for _ in range(workers)]
    unfinished: list[list[Any]] = [[] for _ in actors]  # per actor: chunks sent, not known done
    pending: deque = deque()  # (result ref, actor index), in input order
    try:
        for chunk in chunks:
            if len(pending) >= IN_FLIGHT * workers:
                yield _collected(ray, pending.popleft(), unfinished)
            k = _least_busy(ray, unfinished)
            ref = actors[k].score.remote(pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL))
            unfinished[k].append(ref)
            pending.append((ref, k))
        while pending:
            yield _collected(ray, pending.popleft(), unfinished)
    finally:
        for a in actors:  # their CPUs go back to the cluster at once
            ray.kill(a)


def _least_busy(ray, unfinished: list[list[Any]]) -> int:
    """The actor with the fewest chunks not yet done (the first such), after forgetting the done ones."""
    for refs in unfinished:
        if refs:
            done, rest = ray.wait(refs, num_returns=len(refs), timeout=0, fetch_local=False)
            if done:
                refs[:] = rest
    return min(range(len(unfinished)), key=lambda k: len(unfinished[k]))


def _collected(ray, job: tuple, unfinished: list[list[Any]]) -> ChunkResult:
    ref, k = job
    try:
        result = pickle.loads(ray.get(ref))
    except ray.exceptions.RayTaskError as e:  # the scorer's own error, not Ray's wrapper
        cause = getattr(e, "cause", None)
        raise (cause if isinstance(cause, Exception) else e) from None
    if ref in unfinished[k]:
        unfinished[k].remove(ref)
    return result


def _check_cpus(ray, workers: int) -> None:
    """Actors that can never be placed would wait forever: say so at once."""
    from voxjudge.llm.errors import ConfigError

    cpus = ray.cluster_resources().get("CPU", 0)
    if cpus < workers:
        raise ConfigError(
            f"{{ray_workers}}{workers} needs {workers} CPUs (one per worker) and the Ray cluster has {cpus:g}; "
            f"use {{ray_workers}}{max(1, int(cpus))} or add nodes",
            options={"ray_workers": "ray_workers="},
        )
