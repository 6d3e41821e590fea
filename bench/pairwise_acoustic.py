"""The offline acoustic judge on espeak-ng speech it never saw: accuracy per flaw and dimension.

    python bench/pairwise_acoustic.py [--voices en-us,en-gb,en-029] [--out-dir DIR]

Renders the test corpus (tests/pairwise/espeak_corpus.py: 12 sentences with commas, each read
naturally by espeak-ng and with four flaws: monotone, rushed +30%, commas ignored, a misplaced
600 ms pause), judges natural against each flawed rendition in both orders with the natural clip
in a random slot, and prints the accuracy of the overall verdict (a tie is an error) and, per
measured dimension, how often the natural clip won, tied and lost; then the analysis speed as a
multiple of real time. Needs espeak-ng.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "pairwise"))

import espeak_corpus  # noqa: E402

from voxjudge.pairwise import AcousticPairJudge, Pair, Rubric, aggregate, run_judgments  # noqa: E402

DIMS = ("C1", "C2", "C4", "L2")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--voices", default=",".join(espeak_corpus.VOICES), help="espeak-ng voices")
    ap.add_argument("--out-dir", help="keep the clips here (default: a temporary folder)")
    args = ap.parse_args()
    if espeak_corpus.ESPEAK is None:
        sys.exit("espeak-ng is not installed (Debian package espeak-ng)")
    espeak_corpus.VOICES = tuple(args.voices.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.out_dir or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        clips = espeak_corpus.make_corpus(folder)
        render_s = time.perf_counter() - t0
        rubric = Rubric.default()
        rng = random.Random(0)
        pairs, truth = [], {}
        for (voice, k, style), bad in clips.items():
            if style == "natural":
                continue
            good = clips[(voice, k, "natural")]
            natural_first = rng.random() < 0.5
            pid = f"{voice}/{k}/{style}"
            pairs.append(Pair(pid, espeak_corpus.SENTENCES[k], *((good, bad) if natural_first else (bad, good))))
            truth[pid] = "A" if natural_first else "B"
        judge = AcousticPairJudge(rubric)
        t0, c0 = time.perf_counter(), time.process_time()
        results = aggregate(asyncio.run(run_judgments(pairs, judge, rubric, samples=2)), rubric)
        judge_s, judge_cpu = time.perf_counter() - t0, time.process_time() - c0
        audio_s = sum(judge.acoustic.features(p).duration for p in clips.values())
    print(
        f"{len(clips)} clips ({len(espeak_corpus.VOICES)} voices x {len(espeak_corpus.SENTENCES)} sentences x "
        f"{len(espeak_corpus.FLAWS) + 1} renditions), {audio_s:.0f} s of audio: rendered in {render_s:.1f} s, "
        f"measured and judged in {judge_s:.1f} s wall, {judge_cpu:.1f} CPU s ({audio_s / judge_s:.0f}x real time, "
        f"{audio_s / judge_cpu:.0f}x per CPU second)"
    )
    print(f"{'natural vs':<17}{'pairs':>6}{'overall':>9}   " + "".join(f"{d + ' won/tied/lost':>18}" for d in DIMS))
    for flaw in espeak_corpus.FLAWS:
        ids = [p.pair_id for p in pairs if p.pair_id.endswith("/" + flaw)]
        overall = sum(results[i].overall == truth[i] for i in ids) / len(ids)
        cells = []
        for d in DIMS:
            won = sum(results[i].verdicts[d] == truth[i] for i in ids)
            tied = sum(results[i].verdicts[d] == "tie" for i in ids)
            cells.append(f"{won}/{tied}/{len(ids) - won - tied}")
        print(f"{flaw:<17}{len(ids):>6}{overall:>9.2f}   " + "".join(f"{c:>18}" for c in cells))


if __name__ == "__main__":
    main()
