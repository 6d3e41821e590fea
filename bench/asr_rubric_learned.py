"""Speed of the default Hindi pair judge (rules + learned model) on 10,000 distinct word pairs,
one core, beside the pure rules judge on the same pairs.

    python bench/asr_rubric_learned.py [--pairs 10000]

Pairs are built from the shipped training words with realistic edits (vowel length, nasal sign,
nukta, ै/े, an aspirate, a changed or added auxiliary, a split compound, another word), so
that no cache can answer them. Target: <= 1 s for the learned judge on 10,000 pairs.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core
os.environ.setdefault("OMP_NUM_THREADS", "1")

from voxjudge.asr.laser import LaserRubric  # noqa: E402
from voxjudge.asr.laser.judges import offline_labeler  # noqa: E402
from voxjudge.asr.laser.learned import shipped_data_path  # noqa: E402
from voxjudge.asr.laser.rules import _classify_words  # noqa: E402
from voxjudge.asr.laser.training import pair_of  # noqa: E402

EDITS = [("ी", "ि"), ("ि", "ी"), ("ू", "ु"), ("ं", ""), ("़", ""), ("ै", "े"), ("थ", "त"), ("े", "ा"), ("ा", "े")]
AUX = ["है", "हैं", "था", "थे", "थी", "रहा", "रहे"]


def make_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    with shipped_data_path().open(encoding="utf-8", newline="") as f:
        vocab = sorted({w for r in csv.DictReader(f) for w in (r["ref"] + " " + r["hyp"]).split()})
    out: set[tuple[str, str]] = set()
    while len(out) < n:
        a = rng.choice(vocab)
        ref = a if rng.random() < 0.7 else f"{a} {rng.choice(vocab)}"
        x = rng.random()
        if x < 0.5:
            src, dst = rng.choice(EDITS)
            hyp = ref.replace(src, dst, 1) if src in ref else ref + dst
        elif x < 0.65:
            hyp, ref = f"{ref} {rng.choice(AUX)}", f"{ref} {rng.choice(AUX)}"
        elif x < 0.75 and len(a) > 3:
            hyp = a[:2] + " " + a[2:]
        else:
            hyp = rng.choice(vocab)
        if ref != hyp:
            out.add((ref, hyp))
    return sorted(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=10_000)
    args = ap.parse_args()
    pairs = make_pairs(args.pairs)
    items = [(str(k), pair_of(r, h), "hi") for k, (r, h) in enumerate(pairs)]
    rubric = LaserRubric.load()
    warm = [(str(k), pair_of(r, h), "hi") for k, (r, h) in enumerate(make_pairs(50, seed=1))]
    times = {}
    for name in ("rules", "default"):
        labeler, _ = offline_labeler(name, rubric)
        labeler(warm)  # imports and table building are paid once per process, not per pair
        labeler, _ = offline_labeler(name, rubric)  # fresh convention caches
        _classify_words.cache_clear()
        wall, cpu = time.perf_counter(), time.process_time()
        labels = labeler(items)
        times[name] = time.process_time() - cpu
        wall = time.perf_counter() - wall
        counts: dict[str, int] = {}
        for lab in labels:
            counts[lab.label] = counts.get(lab.label, 0) + 1
        print(f"  {name:<8} CPU {times[name]:.3f}s (wall {wall:.3f}s on a shared machine)  {counts}")
    print(
        f"{len(items):,} distinct Hindi pairs, CPU time on one core: default judge (rules + learned) "
        f"{times['default']:.3f}s = {times['default'] / times['rules']:.2f}x the rules judge "
        f"({times['rules']:.3f}s); target <= 1 s"
    )


if __name__ == "__main__":
    main()
