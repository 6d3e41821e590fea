"""Leased concurrency slots against the real limiter logic, in one event loop (no Ray started):
the cluster-wide limit holds however the workers lease, hand over and give back, and a worker
alone uses every slot."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("ray", reason="the Ray engine needs the [ray] extra")

from voxjudge.llm.ray_limits import ClusterLimiter, _LeasedSlots  # noqa: E402

Limiter = ClusterLimiter.__ray_actor_class__  # the plain class behind the actor


class Local:
    """An actor handle whose ``.method.remote(...)`` runs the method in this loop."""

    def __init__(self, obj):
        self.obj = obj

    def __getattr__(self, name):
        method = getattr(self.obj, name)

        class Remote:
            @staticmethod
            def remote(*args):
                async def call():
                    out = method(*args)
                    return await out if asyncio.iscoroutine(out) else out

                return asyncio.ensure_future(call())

        return Remote


async def _run(workers: int, calls: int, concurrency: int, granted: int):
    limiter = Limiter(None, None, concurrency, None)
    handle = Local(limiter)
    await limiter.begin_run("run", granted * workers)
    busy = peak = 0
    done = [0] * workers
    pools = []
    for w in range(workers):
        confirm = handle.forget.remote(f"actor{w}", f"inc{w}", None, "run", granted)
        pools.append(_LeasedSlots(handle, f"inc{w}", concurrency, -(-concurrency // workers), granted, confirm))

    async def call(w: int) -> None:
        nonlocal busy, peak
        async with pools[w]:
            busy += 1
            peak = max(peak, busy)
            await asyncio.sleep(0.005)
            busy -= 1
        done[w] += 1

    await asyncio.gather(*(call(w) for w in range(workers) for _ in range(calls)))
    await asyncio.sleep(0.05)  # idle slots go back after LINGER
    limiter.end_run("run")
    return peak, done, limiter


@pytest.mark.parametrize(("workers", "granted"), [(2, 0), (2, 4), (3, 2), (5, 0)])
def test_leased_slots_never_exceed_the_cluster_limit(workers, granted):
    peak, done, limiter = asyncio.run(_run(workers, 60, 8, granted))
    assert peak <= 8 and done == [60] * workers
    assert limiter.slots._value == 8 and not any(limiter.held.values())  # everything given back


def test_a_worker_alone_fills_every_slot():
    peak, done, _ = asyncio.run(_run(1, 80, 8, 0))
    assert peak == 8 and done == [80]
