"""``--engine ray`` for the acoustic judge: its measurements run as Ray tasks, the records are the
local run's, byte for byte.

The driver plans the same (pair, order) judgments as the local run (``protocol._run_batched``)
and cuts them into chunks in input order; each chunk is one Ray task that builds the acoustic
judge and judges its share (clips shared by the pairs of a chunk are measured once). The results
come back into their planned places, so the records, their order and every number are those of
the local run. A few chunks per worker are in flight at once, so memory stays bounded and Ctrl-C
cancels what is running.

Workers read the clips from their paths: on a cluster of several machines the audio must sit at
the same paths on every node (a shared filesystem). Ray starts on this machine (``num_cpus``)
unless an ``address`` is given (e.g. "auto" after ``ray start --head``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any

from voxjudge.pairwise.acoustic import MEASURED
from voxjudge.pairwise.data import Pair
from voxjudge.pairwise.judges import AcousticPairJudge, require_measured
from voxjudge.pairwise.rubric import Rubric
from voxjudge.pairwise.slots import SlotJudgment

_CHUNKS_PER_WORKER = 8  # chunks a worker's share is cut into: short tails, cheap cancellation
_IN_FLIGHT_PER_WORKER = 2  # chunks submitted ahead per worker
_MAX_CHUNK = 256  # (pair, order) judgments per chunk at most


def judge_chunk(rubric: Rubric, plan: Sequence[tuple[Pair, str, int]]) -> list[list[SlotJudgment]]:
    """One Ray task: the acoustic judgments of a chunk of the plan, in its order."""
    judge = AcousticPairJudge(rubric)
    return [judge.judge_now(pair, first, n) for pair, first, n in plan]


class RayAcousticPairJudge:
    """The acoustic judge with its work on Ray (see the module docstring); the same name, mode
    and measured dimensions as ``AcousticPairJudge``, so the records cannot tell them apart."""

    name = "acoustic"
    mode = "per-dimension"
    deterministic = True
    measures = MEASURED
    batched = True  # run_judgments hands every judgment of a run to judge_many at once
    engine = "ray"

    def __init__(self, rubric: Rubric, *, address: str | None = None, workers: int = 2, num_cpus: int = 2):
        if workers < 1:
            raise ValueError("a Ray engine needs at least one worker")
        require_measured(rubric)
        self.rubric, self.address, self.workers, self.num_cpus = rubric, address, workers, num_cpus
        self.tasks_done = 0  # Ray tasks whose results came back (what ran on Ray)

    async def judge(self, pair: Pair, first: str, samples: int) -> list[SlotJudgment]:
        return (await self.judge_many([(pair, first, samples)]))[0]

    async def judge_many(
        self, plan: Sequence[tuple[Pair, str, int]], progress: Callable[[int, int], None] | None = None
    ) -> list[list[SlotJudgment]]:
        stop = threading.Event()
        try:
            return await asyncio.to_thread(self._run, list(plan), progress, stop)
        except asyncio.CancelledError:  # Ctrl-C: the thread cancels the tasks and returns
            stop.set()
            raise

    def _run(self, plan: list, progress, stop: threading.Event) -> list[list[SlotJudgment]]:
        import ray

        from voxjudge.llm.ray_engine import ensure_ray

        results: list[list[SlotJudgment] | None] = [None] * len(plan)
        if not plan:
            return []
        ensure_ray(self.address, self.num_cpus)
        size = max(1, min(_MAX_CHUNK, -(-len(plan) // (_CHUNKS_PER_WORKER * self.workers))))
        chunks = [(lo, plan[lo : lo + size]) for lo in range(0, len(plan), size)]
        task = ray.remote(num_cpus=1, max_retries=2)(judge_chunk)
        rubric = ray.put(self.rubric)
        waiting = iter(chunks)
        running: dict[Any, tuple[int, int]] = {}
        done = 0
        try:
            while True:
                while len(running) < _IN_FLIGHT_PER_WORKER * self.workers:
                    nxt = next(waiting, None)
                    if nxt is None:
                        break
                    lo, share = nxt
                    running[task.remote(rubric, share)] = (lo, len(share))
                if not running or stop.is_set():
                    break
                ready, _ = ray.wait(list(running), num_returns=1, timeout=0.2)
                for ref in ready:
                    lo, n = running.pop(ref)
                    try:
                        results[lo : lo + n] = ray.get(ref)
                    except Exception as e:  # the judge's own error (a clip gone from a node) in one line
                        raise _cause(e) from None
                    done += n
                    self.tasks_done += 1
                    if progress is not None:
                        progress(done, len(plan))
        finally:
            for ref in running:
                ray.cancel(ref, force=True)
        if stop.is_set():
            return []
        return [r for r in results if r is not None]


def _cause(error: BaseException) -> BaseException:
    """The voxjudge error inside Ray's wrapper (``RayTaskError``), else the error itself."""
    from voxjudge.errors import VoxjudgeError

    seen: BaseException | None = error
    for _ in range(10):
        if seen is None:
            break
        inner = getattr(seen, "cause", None)  # Ray's wrapper also subclasses the error it wraps
        if inner is None and isinstance(seen, VoxjudgeError):
            return seen
        seen = inner or seen.__cause__
    return error


__all__ = ["RayAcousticPairJudge", "judge_chunk"]
