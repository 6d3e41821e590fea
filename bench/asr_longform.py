"""Long-form lines: one transcript of N words, whole processes beside jiwer's CLI in the same run.

    python bench/asr_longform.py                          # one 300,000-word line: score, metrics, jiwer
    python bench/asr_longform.py --words 1000000 --no-jiwer   # memory at 1M words
    python bench/asr_longform.py --rates                  # the speeds asr/longform.py estimates with

The line is generated like ``laser_corpus.py``'s utterances (English words drawn by frequency,
forgiven variants among the edits), with an edit every ``1/--edit-rate`` words. Timed as whole
processes, alternating, best of ``--runs``: ``voxjudge asr score --lang en --jobs 1 --out
records.jsonl`` (the offline default judge), ``voxjudge asr metrics --unit word`` and ``jiwer -r
REF -h HYP`` (WER only). Wall and CPU seconds, peak RSS (largest process: a long alignment runs
in a forked child, whose RSS is counted there). Targets (issue 34): at 300,000 words ``asr
score`` <= 1.0x jiwer's time and <= 512 MB; at 1M words well under 1 GB.

``--rates`` measures, in this process, token pairs aligned per CPU second: word ids ranked by
frequency (``longform.ranked``) and in first-seen order (jiwer's), characters, and the rubric's
stretch programme (``laser.align._region``) -- the constants ``longform.PAIRS_PER_SECOND`` and
``align.REGION_CELLS_PER_SECOND`` come from it.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from asr_laser_scale import run  # noqa: E402
from asr_metrics import _script, bytecode_env  # noqa: E402
from laser_corpus import VARIANTS, vocabulary  # noqa: E402


def long_line(n: int, edit_rate: float, seed: int = 0) -> tuple[str, str]:
    rng = random.Random(seed)
    words, cum = vocabulary()
    ref = rng.choices(words, cum_weights=cum, k=n)
    hyp = list(ref)
    for _ in range(int(n * edit_rate)):
        k = rng.randrange(len(hyp))
        x = rng.random()
        if x < 0.45:
            hyp[k] = VARIANTS.get(hyp[k]) if hyp[k] in VARIANTS and rng.random() < 0.5 else rng.choice(words)
        elif x < 0.7 and len(hyp) > 1:
            del hyp[k]
        else:
            hyp.insert(k, rng.choices(words, cum_weights=cum)[0])
    return " ".join(ref), " ".join(hyp)


def rates() -> None:
    from rapidfuzz.distance import Levenshtein

    from voxjudge.asr import longform
    from voxjudge.asr.laser.align import _region, word_key
    from voxjudge.asr.laser.rules import equivalent

    for n in (30_000, 60_000):
        ref, hyp = (t.split() for t in long_line(n, 0.1))
        first: dict[str, int] = {}
        a, b = [first.setdefault(t, len(first)) for t in ref], [first.setdefault(t, len(first)) for t in hyp]
        ra, rb = longform.ranked(ref, hyp)
        for name, x, y in (("words, first-seen ids (jiwer)", a, b), ("words, ids ranked by frequency", ra, rb)):
            t = time.process_time()
            Levenshtein.editops(x, y)
            cpu = time.process_time() - t
            print(f"{n:,} words, {name}: {cpu:.2f} CPU s, {len(x) * len(y) / cpu / 1e9:.1f}G pairs/s")
    ref, hyp = long_line(4_000, 0.1)
    t = time.process_time()
    Levenshtein.editops(ref, hyp)
    cpu = time.process_time() - t
    print(f"{len(ref):,} characters: {cpu:.2f} CPU s, {len(ref) * len(hyp) / cpu / 1e9:.1f}G pairs/s")
    rng = random.Random(0)
    words, _ = vocabulary()
    eq = equivalent("en")
    rs, hs = rng.sample(words, 150), rng.sample(words, 150)
    t = time.process_time()
    _region(rs, hs, [word_key(w) for w in rs], [word_key(w) for w in hs], 0, 0, eq)
    cpu = time.process_time() - t
    print(f"rubric stretch programme, 150 x 150 words: {cpu:.2f} CPU s, {150 * 150 / cpu:,.0f} cells/s")
    print(f"(load average {os.getloadavg()[0]:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--words", type=int, default=300_000)
    ap.add_argument("--edit-rate", type=float, default=0.1, help="edits per reference word (default: 0.1)")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--no-jiwer", action="store_true")
    ap.add_argument("--no-metrics", action="store_true", help="skip voxjudge asr metrics")
    ap.add_argument("--rates", action="store_true", help="measure the alignment speeds only")
    args = ap.parse_args()
    if args.rates:
        rates()
        return
    folder = Path(tempfile.mkdtemp(prefix="longform-"))
    try:
        ref, hyp = long_line(args.words, args.edit_rate)
        (folder / "ref.txt").write_text(ref + "\n", encoding="utf-8")
        (folder / "hyp.txt").write_text(hyp + "\n", encoding="utf-8")
        r, h = str(folder / "ref.txt"), str(folder / "hyp.txt")
        vox = _script("voxjudge")
        commands = {
            "voxjudge asr score": [vox, "asr", "score", "--ref", r, "--hyp", h, "--no-ids", "--lang", "en"]
            + ["--jobs", "1", "--out", str(folder / "records.jsonl")],
            "voxjudge asr metrics --unit word": [vox, "asr", "metrics", "--ref", r, "--hyp", h, "--no-ids"]
            + ["--unit", "word"],
            "jiwer CLI (WER)": [_script("jiwer"), "-r", r, "-h", h],
        }
        if args.no_jiwer:
            del commands["jiwer CLI (WER)"]
        if args.no_metrics:
            del commands["voxjudge asr metrics --unit word"]
        env = bytecode_env(str(folder))
        best: dict[str, tuple[float, float, float]] = {}
        for _ in range(args.runs):
            for name, argv in commands.items():
                (folder / "records.jsonl").unlink(missing_ok=True)
                wall, rss, cpu, _ = run(argv, folder, env)
                old = best.get(name)
                best[name] = (min(wall, old[0]), max(rss, old[1]), min(cpu, old[2])) if old else (wall, rss, cpu)
        load = os.getloadavg()
        print(
            f"one line of {args.words:,} words ({args.edit_rate:g} edits a word); load average {load[0]:.1f} "
            f"{load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores; best of {args.runs}"
        )
        jiwer = best.get("jiwer CLI (WER)")
        for name, (wall, rss, cpu) in best.items():
            ratio = f"; vs jiwer: wall {wall / jiwer[0]:.2f}x, CPU {cpu / jiwer[2]:.2f}x" if jiwer else ""
            print(f"  {name}: {wall:.1f} s wall, {cpu:.1f} CPU s, peak RSS {rss:.0f} MB{ratio}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
