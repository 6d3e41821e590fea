"""Pairwise protocol overhead: 1,000 pairs x 10 samples (5 + 5 orders) with the fake audio judge.

    python bench/pairwise.py [--pairs 1000] [--samples 10]

The fake judge answers instantly, so the time is the protocol's own: building audio requests,
the judge wrapper (cache lookups and writes, validation), swap-back, records, aggregation and the
analysis. Target: <= 5 s. Also timed: the same run again (served from the cache) and the
coupled vs per-dimension modes.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from voxjudge.llm import Judge
from voxjudge.pairwise import LLMPairJudge, Pair, Rubric, accuracy_report, run_judgments


def make_clips(folder: Path, n: int) -> list[Path]:
    import wave

    paths = []
    rng = np.random.default_rng(0)
    for k in range(n):
        path = folder / f"clip{k}.wav"
        with wave.open(str(path), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes((rng.normal(0, 3000, 8000)).astype(np.int16).tobytes())
        paths.append(path)
    return paths


class Took(tuple):
    """(wall, CPU) seconds of one step, shown as ``wall/CPU s`` (one process: the CPU seconds say
    more on a loaded machine)."""

    def __new__(cls, wall: float, cpu: float):
        return super().__new__(cls, (wall, cpu))

    def __add__(self, other):
        return Took(self[0] + other[0], self[1] + other[1])

    def __format__(self, spec: str) -> str:
        return f"{self[0]:.2f}/{self[1]:.2f}s"


def _now() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(t: tuple[float, float]) -> Took:
    wall, cpu = _now()
    return Took(wall - t[0], cpu - t[1])


def run(pairs, rubric, mode, samples, cache) -> tuple[Took, Took, dict]:
    judge = Judge("fake/prosody?bias=0.8&noise=0.7", cache=cache, concurrency=64)
    pair_judge = LLMPairJudge(judge, rubric, mode)
    t0 = _now()
    records = judge.run(run_judgments(pairs, pair_judge, rubric, samples))
    judging = _since(t0)
    t1 = _now()
    report = accuracy_report(records, pairs, rubric)
    analysis = _since(t1)
    judge.close()
    return (
        judging,
        analysis,
        {"records": len(records), "requests": judge.meter.requests, "hits": judge.meter.cache_hits, **report},
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=10)
    args = ap.parse_args()
    import voxjudge.pairwise.judges  # noqa: F401  registers fake/prosody

    rubric = Rubric.default()
    with tempfile.TemporaryDirectory() as tmp:
        clips = make_clips(Path(tmp), 100)
        rng = np.random.default_rng(1)
        pairs = [
            Pair(
                f"p{k}",
                "When the rain stopped, the streets were full of people.",
                clips[a],
                clips[b],
                {"overall": "A" if rng.random() < 0.5 else "B"},
            )
            for k, (a, b) in enumerate(rng.integers(0, 100, size=(args.pairs, 2)))
        ]
        cache = Path(tmp) / "cache.sqlite"
        judge_s, analysis_s, first = run(pairs, rubric, "coupled", args.samples, cache)
        again_s, _, second = run(pairs, rubric, "coupled", args.samples, cache)
        nocache_s, _, _ = run(pairs, rubric, "coupled", args.samples, None)
        perdim_s, _, perdim = run(pairs, rubric, "per-dimension", args.samples, None)
    total = judge_s + analysis_s
    print(f"{args.pairs} pairs x {args.samples} samples ({first['records']} judgments, {first['requests']} requests)")
    print("  seconds as wall/CPU")
    print(f"  coupled, with cache: judging {judge_s} + analysis {analysis_s} = {total} (target <= 5 s wall)")
    print(f"  rerun from the cache: {again_s} ({second['requests']} requests, {second['hits']} cache hits)")
    print(f"  coupled, no cache: {nocache_s}; per-dimension, no cache: {perdim_s} ({perdim['requests']} requests)")
    print(
        f"  injected slot bias 0.8 -> delta_pos {first['delta_pos']:+.3f}, "
        f"second-slot rate {first['second_slot_rate']:.3f}"
    )


if __name__ == "__main__":
    main()
