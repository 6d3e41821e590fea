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


def _cold() -> None:
    """Empty the caches both judges share (phonemes, folds, stems), so neither runs on the other's."""
    from voxjudge.asr.laser import lang, phonetics, rules

    phonetics._cache.clear()
    for f in (rules._classify_words, rules.skeleton, rules._stems, lang.fold):
        f.cache_clear()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=10_000)
    args = ap.parse_args()
    refs, hyps = corpus(args.pairs)
    rubric = LaserRubric.load()
    rules, _ = offline_labeler("rules", rubric)
    default, _ = offline_labeler(None, rubric)
    score(refs[:50], hyps[:50], labeler=rules)  # imports and espeak-ng loaded outside the timings
    score(refs[:50], hyps[:50], labeler=default)
    t0 = time.perf_counter()
    jiwer.process_words(refs, hyps)
    t1 = time.perf_counter()
    _cold()
    score(refs, hyps, lang=None, rubric=rubric, labeler=offline_labeler("rules", rubric)[0])
    t2 = time.perf_counter()
    _cold()
    results = score(refs, hyps, lang=None, rubric=rubric, labeler=offline_labeler(None, rubric)[0])
    t3 = time.perf_counter()
    labels = {}
    for u in results:
        for p in u.pairs:
            labels[p.label] = labels.get(p.label, 0) + 1
    mean = sum(u.laser for u in results) / len(results)
    print(f"{args.pairs:,} sentence pairs, {sum(u.ref_words for u in results):,} reference words")
    print(f"  jiwer WER: {t1 - t0:.2f}s;  LASER rules judge: {t2 - t1:.2f}s;  default judge: {t3 - t2:.2f}s")
    print(f"  default / rules: {(t3 - t2) / (t2 - t1):.2f}x (target <= 2x)")
    print(f"  mean LASER (default) {mean:.3f}; pair labels {labels}")


if __name__ == "__main__":
    main()
