"""``--engine ray``: the same judged runs on a Ray cluster (or a Ray started on this machine).

The driver plans exactly what the local engine would send (``plan_batches``), so requests, cache
keys and answers are the same; those planned batches become a Ray Dataset and ``map_batches``
hands them to a pool of actors, each holding one judge client (its own backend, the shared cache
and call log) whose limits are the cluster's (``ray_limits.ClusterLimiter``). Each actor runs
the local engine on its share and returns the partial outcome; the driver merges the parts,
``label_many`` puts them back in input order.

Resume: each share's results go to the worker's JSONL shard as soon as the share is done
(``ray_shards``), and every answer is committed to the cache as it arrives. A worker killed
mid-run is restarted by Ray and its unfinished shares are handed out again; a rerun of an
interrupted command skips the items its shards record and gets finished calls from the cache,
so only the calls in flight at the interruption are paid twice.

Embedders (``RayEngine.embed``) spread their batches over the workers the same way
(``ray_embed``); their resume is the cache's.

Attach to a running cluster with ``address="auto"`` (after ``ray start --head``); workers there
need voxjudge installed and, for a file cache, a path they all see.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import io
import pickle
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import ray

from voxjudge.errors import VoxjudgeError
from voxjudge.llm import negotiate
from voxjudge.llm.cache import default_cache_path
from voxjudge.llm.judge import Judge
from voxjudge.llm.label import Check, LabelOutcome, label_planned
from voxjudge.llm.ray_limits import BATCH_METER, ClusterJudge, ClusterLimiter
from voxjudge.llm.ray_shards import (
    Shards,
    ShardWriter,
    item_key,
    job_key,
    label_settings,
    labelled_from,
    labelled_record,
    request_key,
    responses_from,
    responses_record,
    task_digest,
)
from voxjudge.llm.ray_start import ensure_ray, quiet_ray_data, voxjudge_cause
from voxjudge.llm.recipe import ClientRecipe
from voxjudge.llm.scripts import fake_script, register_fake_script
from voxjudge.llm.task import Item, Task
from voxjudge.llm.types import AudioPart, Request, Response
from voxjudge.llm.usage import UsageMeter

_SHARES_AT_ONCE = 4  # shares an actor works on together
_METER_FIELDS = ("requests", "cache_hits", "retries", "failures", "input_tokens", "output_tokens", "audio_seconds")


@dataclass
class JudgeRecipe(ClientRecipe):
    """A judge's recipe (``recipe``), with its limits' kind and a fake judge's script."""

    rated: bool = False
    script: Any = None  # a fake judge's script registered in the driver (e.g. fake/prosody)

    @classmethod
    def of(cls, judge: Judge) -> JudgeRecipe:
        return cls(
            *ClientRecipe.parts(judge),
            judge.limiter.requests is not None or judge.limiter.tokens is not None,
            fake_script(judge.spec.model) if judge.spec.provider == "fake" else None,
        )

    def build(self, limiter: Any, incarnation: str, max_cost: float | None, **slots: Any) -> ClusterJudge:
        if self.script is not None:
            register_fake_script(self.spec.model, self.script)
        judge = self.built(ClusterJudge)
        judge.attach(limiter, incarnation, rated=self.rated, max_cost=max_cost, **slots)
        return judge


class _Worker:
    """One actor of the pool: one judge client, reused for every share it is given. ``__call__``
    is a coroutine, so Ray Data gives the actor several shares at once and their calls fill the
    worker's slots together (one share at a time would drain the slots at the end of each).
    Each share's records go to this worker's shard before the share is reported done."""

    def __init__(self, recipe: JudgeRecipe, limiter: Any, max_cost: float | None, job: tuple, run: tuple):
        run_id, fair, granted, shard_dir, audio = run
        context = ray.get_runtime_context()
        incarnation = uuid.uuid4().hex
        # A first incarnation starts calling at once with slots the limiter set aside for it;
        # a restarted one (its first incarnation may have used them) leases like any other.
        granted = 0 if context.was_current_actor_reconstructed else granted
        # Not waited for: the limiter runs this worker's requests in the order they were sent.
        confirm = limiter.forget.remote(context.get_actor_id(), incarnation, context.current_actor, run_id, granted)
        self.judge = recipe.build(limiter, incarnation, max_cost, fair=fair, granted=granted, confirm=confirm)
        self.job = job
        self.shard = ShardWriter(Path(shard_dir), run_id, incarnation)
        self.audio_refs: dict[str, Any] = audio
        self.clip = functools.lru_cache(maxsize=1024)(lambda sha: ray.get(self.audio_refs[sha]))

    async def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        shares = await asyncio.to_thread(lambda: [_loads(p, self.clip) for p in batch["payload"]])
        meter = UsageMeter(self.judge.meter.price)
        context = contextvars.copy_context()
        context.run(BATCH_METER.set, meter)  # this share's calls count in its own meter
        try:
            result, records = await asyncio.get_running_loop().create_task(self._work(shares), context=context)
        except VoxjudgeError as e:
            # An error that stops the run (a 401, a URL no request can go to) goes back as a value for
            # the driver to raise as itself: Ray Data keeps only its traceback, as text.
            return {"part": np.array([pickle.dumps(e)], dtype=object)}
        await asyncio.to_thread(self.shard.write, records)
        used = {k: getattr(meter, k) for k in _METER_FIELDS}
        part = (result, used, self.judge.stop_reason, negotiate.take_notices())
        return {"part": np.array([pickle.dumps(part)], dtype=object)}

    async def _work(self, shares: list) -> tuple[Any, list[dict]]:
        if self.job[0] == "label":
            _, tasks, context, check = self.job
            groups: dict[int, list] = {}
            for index, batch, keys in shares:
                groups.setdefault(index, []).append((batch, keys))
            outcomes = await asyncio.gather(
                *(
                    label_planned(self.judge, tasks[i], [b for b, _ in group], context=context, check=check)
                    for i, group in groups.items()
                )
            )
            keys = {it.id: k for _, batch, ks in shares for it, k in zip(batch, ks)}
            records = [labelled_record(keys[r.id], r) for o in outcomes for r in o.results.values()]
            return list(zip(groups, outcomes)), records
        _, validate = self.job
        answers = await Judge.complete_many(self.judge, [(uid, r) for _, uid, r, _ in shares], validate=validate)
        records = [responses_record(key, a) for (_, _, _, key), a in zip(shares, answers)]
        return [(k, a) for (k, _, _, _), a in zip(shares, answers)], records


class _ClipsOut(pickle.Pickler):
    """Pickles a share with each clip replaced by its hash: a clip judged in many pairs travels
    to the object store once, not once per request."""

    def __init__(self, file: io.BytesIO, clips: dict[str, AudioPart]):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.clips = clips

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is AudioPart:
            self.clips.setdefault(obj.sha256, obj)
            return obj.sha256
        return None


class _ClipsIn(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, clip: Callable[[str], AudioPart]):
        super().__init__(file)
        self.clip = clip

    def persistent_load(self, pid: Any) -> Any:
        return self.clip(pid)


def _dumps(value: Any, clips: dict[str, AudioPart]) -> bytes:
    buffer = io.BytesIO()
    _ClipsOut(buffer, clips).dump(value)
    return buffer.getvalue()


def _loads(data: bytes, clip: Callable[[str], AudioPart]) -> Any:
    return _ClipsIn(io.BytesIO(data), clip).load()


@dataclass
class RayEngine:
    """``workers`` actors in the pool; ``address`` None starts Ray here with ``num_cpus``;
    ``shards``: where results are written as they complete (see ``ray_shards``; default
    ``ray-shards`` beside the judge's cache)."""

    address: str | None = None
    workers: int = 2
    num_cpus: int = 2
    cpus_per_worker: float = 0.5  # the work is waiting on an API or a GPU actor, not the CPU
    shards: str | Path | None = None
    limiters: dict[int, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError("a Ray engine needs at least one worker")

    def start(self) -> None:
        """Ray started or joined, on the caller's thread (see ``ray_start``), before any work."""
        ensure_ray(self.address, self.num_cpus)

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

    def shard_root(self, judge: Judge) -> Path:
        if self.shards is not None:
            return Path(self.shards)
        cache = judge.cache.path if judge.cache is not None else default_cache_path()
        return Path(cache).parent / "ray-shards"

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
        outcomes = await self.label_tasks(judge, [(task, batches)], context=context, check=check, progress=progress)
        return outcomes[0]

    async def label_tasks(
        self,
        judge: Judge,
        planned: Sequence[tuple[Task, Sequence[Sequence[Item]]]],
        *,
        context: Mapping[str, Any] | None = None,
        check: Check | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[LabelOutcome]:
        """Batches of several tasks (already planned) in one Ray job; one outcome per task."""
        tasks = [task for task, _ in planned]
        outcomes = [LabelOutcome(t.name, t.sha256) for t in tasks]
        context = dict(context) if context is not None else None
        shards = Shards(self.shard_root(judge), job_key(judge.spec, "label", label_settings(tasks, context, check)))
        recorded = await asyncio.to_thread(shards.recorded)
        shares, total = [], 0
        for index, (task, batches) in enumerate(planned):
            digest = task_digest(task)
            for batch in batches:
                keys = [item_key(digest, it) for it in batch]
                total += len(batch)
                if all(k in recorded for k in keys):  # a batch partly recorded is asked whole: same requests
                    for it, k in zip(batch, keys):
                        outcomes[index].results[it.id] = labelled_from(recorded[k])
                    continue
                shares.append((index, list(batch), keys))
        done = total - sum(len(b) for _, b, _ in shares)
        job, run = ("label", tasks, context, check), uuid.uuid4().hex
        if shares:
            self.start()
        parts = await asyncio.to_thread(self._run, judge, job, shares, shards, run, (done, total), progress, _labelled)
        for part in parts:
            for index, outcome in part:
                outcomes[index].merge(outcome)
        if all(o.complete for o in outcomes):
            shards.remove(run)
        return outcomes

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
        shards = Shards(self.shard_root(judge), job_key(judge.spec, "complete", {"validate": validate}))
        recorded = await asyncio.to_thread(shards.recorded)
        shares = []
        for k, (uid, request) in enumerate(items):
            key = request_key(judge.spec, uid, request)
            if key in recorded:
                results[k] = responses_from(recorded[key])
            else:
                shares.append((k, uid, request, key))
        counts, run = (len(items) - len(shares), len(items)), uuid.uuid4().hex
        job = ("complete", validate)
        if shares:
            self.start()
        parts = await asyncio.to_thread(self._run, judge, job, shares, shards, run, counts, progress, len)
        for part in parts:
            for k, answer in part:
                results[k] = answer
        if judge.stop_reason is None and all(r is not None and all(x.ok for x in r) for r in results):
            shards.remove(run)
        return results

    async def embed(
        self, embedder: Any, texts: list[str], *, progress: Callable[[int, int], None] | None = None
    ) -> tuple[dict[int, Any], dict[int, str]]:
        """An embedder's uncached texts, in its batches, over the workers (``ray_embed``)."""
        from voxjudge.llm.ray_embed import embed_on_ray

        return await embed_on_ray(
            embedder,
            texts,
            address=self.address,
            num_cpus=self.num_cpus,
            workers=self.workers,
            cpus_per_worker=self.cpus_per_worker,
            progress=progress,
        )

    def _run(self, judge: Judge, job: tuple, shares: list, shards: Shards, run: str, counts, progress, size) -> list:
        done, total = counts
        if not shares:
            if progress is not None and total:
                progress(done, total)
            return []
        quiet_ray_data()
        limiter = self.limiter_for(judge)
        clips: dict[str, AudioPart] = {}
        payloads = [_dumps(s, clips) for s in shares]
        audio = {sha: ray.put(clip) for sha, clip in clips.items()}
        # Shares of about 1/32 of the work per worker, four running at once in each actor: the
        # slots stay full while Ray hands over the next share, the last shares are short (no
        # long tail on one worker), and a killed worker's shares are redone cheaply (their
        # finished answers come from the cache).
        rows = max(1, -(-len(payloads) // (32 * self.workers)))
        blocks = -(-len(payloads) // rows)  # one share per block: each is one Ray task
        workers = min(self.workers, blocks)  # no idle actors (Ray Data warns of them) on a short run
        fair = -(-judge.concurrency // workers)  # a worker's share of the slots when all ask
        granted = judge.concurrency // workers  # slots each first worker starts with
        ray.get(limiter.begin_run.remote(run, granted * workers))
        dataset = ray.data.from_items([{"payload": p} for p in payloads], override_num_blocks=blocks).map_batches(
            _Worker,
            fn_constructor_kwargs={
                "recipe": JudgeRecipe.of(judge),
                "limiter": limiter,
                "max_cost": judge.max_cost,
                "job": job,
                "run": (run, fair, granted, str(shards.dir), audio),
            },
            batch_size=rows,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(
                size=workers,
                max_tasks_in_flight_per_actor=_SHARES_AT_ONCE,
                max_concurrent_calls_per_actor=_SHARES_AT_ONCE,
            ),
            num_cpus=self.cpus_per_worker,
            num_gpus=1 if judge.spec.provider == "vllm" else 0,  # each worker holds one vLLM engine
        )
        parts = []
        try:
            for row in dataset.iter_rows():
                got = pickle.loads(row["part"])
                if isinstance(got, BaseException):
                    raise got
                result, used, stop_reason, notices = got
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
            raise voxjudge_cause(e) from None
        finally:
            ray.get(limiter.end_run.remote(run))
        return parts


def _labelled(part: list[tuple[int, LabelOutcome]]) -> int:
    return sum(len(outcome.results) for _, outcome in part)
