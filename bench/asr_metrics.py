"""Classic ASR metrics: voxjudge against jiwer 4.0 in the same run.

    python bench/asr_metrics.py            # 10,000 and 100,000 pairs
    python bench/asr_metrics.py --sizes 10000 --repeat 5

Prints wall time (best of --repeat), the speed ratio, and peak traced memory for each size, and
checks that hits/substitutions/deletions/insertions and WER/MER/WIL/WIP are identical. Target:
at least 5x faster than jiwer.process_words. Machines are noisy: read the ratios, not the times.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
import tracemalloc

import jiwer

from voxjudge.asr import Tokenizer, compute_metrics, count_errors, total


def make_corpus(n: int, seed: int = 0, words_per_utt: int = 25) -> tuple[list[str], list[str]]:
    """Synthetic pairs with ~15% WER: substitutions, deletions, insertions at realistic rates."""
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(5000)]
    refs, hyps = [], []
    for _ in range(n):
        ref = [rng.choice(vocab) for _ in range(rng.randint(words_per_utt - 5, words_per_utt + 5))]
        hyp = []
        for w in ref:
            x = rng.random()
            if x < 0.08:
                hyp.append(rng.choice(vocab))
            elif x < 0.12:
                continue
            elif x < 0.15:
                hyp += [w, rng.choice(vocab)]
            else:
                hyp.append(w)
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps


def best_time(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def peak_memory(fn) -> int:
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def words_voxjudge(refs, hyps):
    return total(count_errors(refs, hyps, Tokenizer("word")))


def words_jiwer(refs, hyps):
    return jiwer.process_words(refs, hyps)


def run(n: int, repeat: int) -> dict:
    refs, hyps = make_corpus(n)
    t_j, oracle = best_time(lambda: words_jiwer(refs, hyps), repeat)
    t_v, ours = best_time(lambda: words_voxjudge(refs, hyps), repeat)
    same = (ours.hits, ours.substitutions, ours.deletions, ours.insertions) == (
        oracle.hits,
        oracle.substitutions,
        oracle.deletions,
        oracle.insertions,
    ) and (ours.wer, ours.mer, ours.wil, ours.wip) == (oracle.wer, oracle.mer, oracle.wil, oracle.wip)
    # The full `asr metrics` job (words + code-point CER) against jiwer doing the same two passes.
    t_jc, _ = best_time(lambda: (jiwer.process_words(refs, hyps), jiwer.process_characters(refs, hyps)), repeat)
    t_vc, full = best_time(lambda: compute_metrics(refs, hyps), repeat)
    same_cer = full.cer == jiwer.cer(refs, hyps)
    mem_j = peak_memory(lambda: words_jiwer(refs, hyps))
    mem_v = peak_memory(lambda: words_voxjudge(refs, hyps))
    return {
        "pairs": n,
        "ref_words": ours.ref_len,
        "wer": ours.wer,
        "identical_numbers": same and same_cer,
        "words_jiwer_s": round(t_j, 4),
        "words_voxjudge_s": round(t_v, 4),
        "words_speedup": round(t_j / t_v, 2),
        "words_and_cer_jiwer_s": round(t_jc, 4),
        "words_and_cer_voxjudge_s": round(t_vc, 4),
        "words_and_cer_speedup": round(t_jc / t_vc, 2),
        "peak_mem_jiwer_mb": round(mem_j / 2**20, 1),
        "peak_mem_voxjudge_mb": round(mem_v / 2**20, 1),
        "peak_mem_ratio": round(mem_j / mem_v, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated corpus sizes (default: 10000,100000)")
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats, best kept (default: 3)")
    ap.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    args = ap.parse_args()
    for n in (int(s) for s in args.sizes.split(",")):
        r = run(n, args.repeat)
        if args.json:
            print(json.dumps(r))
            continue
        print(
            f"{n:,} pairs, {r['ref_words']:,} reference words, WER {100 * r['wer']:.2f}%, "
            f"identical numbers: {r['identical_numbers']}"
        )
        print(
            f"  WER/MER/WIL/WIP   jiwer {r['words_jiwer_s']:.3f}s  voxjudge {r['words_voxjudge_s']:.3f}s  "
            f"-> {r['words_speedup']:.2f}x faster"
        )
        print(
            f"  + CER (metrics)   jiwer {r['words_and_cer_jiwer_s']:.3f}s  "
            f"voxjudge {r['words_and_cer_voxjudge_s']:.3f}s  "
            f"-> {r['words_and_cer_speedup']:.2f}x faster"
        )
        print(
            f"  peak memory       jiwer {r['peak_mem_jiwer_mb']} MB  voxjudge {r['peak_mem_voxjudge_mb']} MB  "
            f"-> {r['peak_mem_ratio']:.2f}x less"
        )


if __name__ == "__main__":
    main()
