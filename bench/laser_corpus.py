"""A generated English ASR corpus for the LASER scale benches and the differential tests.

    python bench/laser_corpus.py --utterances 200000 --out /tmp/corpus   # writes ref.txt, hyp.txt

Each utterance has 5-30 words drawn by frequency from wordfreq's English list (shipped in the
wheel), and 0-3 edits: a substitution by another word or by a variant the rubric forgives or
halves (case, spelling, digits, a split compound, an inflection), a deletion or an insertion.
Lines are Kaldi style (``id text``), so commands read them with ``--ids``.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

VARIANTS = {
    "colour": "color",
    "ten": "10",
    "two": "2",
    "everyone": "every one",
    "going": "gonna",
    "closed": "close",
    "realise": "realize",
    "centre": "center",
    "the": "The",
    "people": "peoples",
    "its": "it's",
    "run": "ran",
}


def vocabulary(size: int = 5000) -> tuple[list[str], list[float]]:
    """Words and their cumulative Zipf weights."""
    from itertools import accumulate

    from wordfreq import top_n_list

    words = [w for w in top_n_list("en", size * 2) if w.isalpha()][:size] + list(VARIANTS)
    return words, list(accumulate(1.0 / (k + 1) for k in range(len(words))))


def corpus(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` reference and hypothesis texts (no ids)."""
    rng = random.Random(seed)
    words, cum = vocabulary()
    refs, hyps = [], []
    for _ in range(n):
        ref = rng.choices(words, cum_weights=cum, k=rng.randint(5, 30))
        hyp = list(ref)
        for _ in range(rng.randint(0, 3)):
            k = rng.randrange(len(hyp) + 1)
            x = rng.random()
            if x < 0.45 and k < len(hyp):
                hyp[k] = VARIANTS.get(hyp[k]) if hyp[k] in VARIANTS and rng.random() < 0.5 else rng.choice(words)
            elif x < 0.7 and k < len(hyp) and len(hyp) > 1:
                del hyp[k]
            else:
                hyp.insert(k, rng.choices(words, cum_weights=cum)[0])
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps


def write(folder: Path, n: int, seed: int = 0) -> tuple[Path, Path]:
    refs, hyps = corpus(n, seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "ref.txt", folder / "hyp.txt"
    for path, texts in zip(paths, (refs, hyps)):
        with path.open("w", encoding="utf-8") as f:
            f.writelines(f"u{k:07d} {t}\n" for k, t in enumerate(texts))
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--utterances", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True, help="folder for ref.txt and hyp.txt")
    args = ap.parse_args()
    ref, hyp = write(Path(args.out), args.utterances, args.seed)
    print(f"{args.utterances:,} utterances -> {ref}, {hyp}")


if __name__ == "__main__":
    main()
