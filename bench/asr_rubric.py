"""LASER speed: 10,000 sentence pairs of ~25 words, one core, the default judge beside the rules
judge (target: default <= 2x rules) and jiwer's WER.

    python bench/asr_rubric.py [--pairs 10000]

Sentences are drawn from the shipped Hindi and English examples; hypotheses get realistic edits
(spelling variants, digits for number words, split compounds, agreement changes, wrong words,
omissions, insertions). Target: <= 10 s for the whole LASER scoring.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

import jiwer

from voxjudge.asr.laser import LaserRubric, score
from voxjudge.asr.laser.judges import offline_labeler

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = {
    "बाज़ार": "बाजार",
    "दस": "10",
    "इसलिए": "इस लिए",
    "गई": "गया",
    "हिन्दी": "हिंदी",
    "ज़्यादा": "ज्यादा",
    "करती": "करते",
    "पाँच": "5",
    "ten": "10",
    "everyone": "every one",
    "colour": "color",
    "closed": "close",
}


def corpus(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    sentences = []
    for lang in ("hi", "en"):
        for line in (ROOT / "examples" / "asr" / lang / "ref.txt").read_text(encoding="utf-8").splitlines():
            sentences.append(line.split(" ", 1)[1])
    vocab = [w for s in sentences for w in s.split()]
    refs, hyps = [], []
    for _ in range(n):
        words = []
        while len(words) < 25:
            words += rng.choice(sentences[:50] if rng.random() < 0.5 else sentences[50:]).split()
        words = words[:25] + list(rng.choice(list(VARIANTS)) for _ in range(2))
        hyp = []
        for w in words:
            x = rng.random()
            if w in VARIANTS and x < 0.7:
                hyp.append(VARIANTS[w])
            elif x < 0.06:
                hyp.append(rng.choice(vocab))
            elif x < 0.09:
                continue
            elif x < 0.11:
                hyp += [w, rng.choice(vocab)]
            else:
                hyp.append(w)
        refs.append(" ".join(words))
        hyps.append(" ".join(hyp))
    return refs, hyps


def _time_one(judge: str, pairs: int) -> tuple[float, float]:
    """(wall, CPU) seconds for one judge on the corpus, in this (fresh) process after a 50-pair
    warm-up (imports, espeak-ng)."""
    refs, hyps = corpus(pairs)
    rubric = LaserRubric.load()
    labeler, _ = offline_labeler(None if judge == "default" else judge, rubric)
    score(refs[:50], hyps[:50], lang=None, rubric=rubric, labeler=labeler)
    t0, c0 = time.perf_counter(), time.process_time()
    score(refs, hyps, lang=None, rubric=rubric, labeler=labeler)
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--only", choices=("rules", "default"), help=argparse.SUPPRESS)  # one timing, for the parent
    args = ap.parse_args()
    if args.only:
        print(*_time_one(args.only, args.pairs))
        return
    refs, hyps = corpus(args.pairs)
    t0, c0 = time.perf_counter(), time.process_time()
    jiwer.process_words(refs, hyps)
    wer, wer_cpu = time.perf_counter() - t0, time.process_time() - c0
    # each judge in a fresh process (no cache of one helps the other), in the order ABBA
    times: dict[str, list[float]] = {"rules": [], "default": []}
    cpus: dict[str, list[float]] = {"rules": [], "default": []}
    for judge in ("rules", "default", "default", "rules"):
        out = subprocess.run(
            [sys.executable, __file__, "--only", judge, "--pairs", str(args.pairs)],
            check=True,
            capture_output=True,
            text=True,
        )
        wall, cpu = map(float, out.stdout.strip().splitlines()[-1].split())
        times[judge].append(wall)
        cpus[judge].append(cpu)
    rules, default = sum(times["rules"]), sum(times["default"])
    first = min(1000, args.pairs)
    results = score(refs[:first], hyps[:first], lang=None)
    labels: dict[str, int] = {}
    for u in results:
        for p in u.pairs:
            labels[p.label] = labels.get(p.label, 0) + 1
    print(f"{args.pairs:,} sentence pairs, one core; each judge twice, in fresh processes (ABBA)")
    print(f"  jiwer WER: {wer:.2f} s wall, {wer_cpu:.2f} CPU s")
    for name in ("rules", "default"):
        walls, cpu = " + ".join(f"{t:.2f}" for t in times[name]), " + ".join(f"{t:.2f}" for t in cpus[name])
        print(f"  LASER {name} judge: {walls} s wall, {cpu} CPU s")
    ratio_cpu = sum(cpus["default"]) / sum(cpus["rules"])
    print(f"  default / rules: wall {default / rules:.2f}x (target <= 2x), CPU {ratio_cpu:.2f}x")
    print(f"  word-pair labels of the default judge on the first {first:,} sentence pairs: {labels}")


if __name__ == "__main__":
    main()
