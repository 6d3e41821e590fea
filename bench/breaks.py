"""LMRE scoring speed: 100,000 hypotheses against a table of 10,000 texts x 20 references.

    python bench/breaks.py [--texts 10000] [--refs 20] [--hyps 100000]

Writes the table and hypotheses to a temporary folder, then times what `voxjudge breaks score`
does: load the table, read the hypotheses, score (F1 typed and EM), summarize. Target: <= 5 s.
As a peer in the same run, a plain-Python loop that scores every hypothesis against every
reference of its text with set arithmetic (how such scripts are usually written).
The consensus metric (count-weighted per-juncture agreement) is timed in the same run beside
F1, and checked against a plain-Python loop on the first 2,000 hypotheses.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from voxjudge.breaks import ReferenceTable, Similarity, read_annotations, score_hypotheses, summarize
from voxjudge.breaks.annotation import Annotation

LABELS = ["NB"] * 6 + ["AP"] * 3 + ["IP"]


def make_data(folder: Path, n_texts: int, n_refs: int, n_hyps: int, seed: int = 0) -> tuple[Path, Path]:
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghijklmnoprstuvwy") for _ in range(rng.randint(2, 8))) for _ in range(3000)]
    table = ReferenceTable()
    texts = []
    for _ in range(n_texts):
        words = tuple(rng.choice(vocab) for _ in range(rng.randint(5, 16)))
        texts.append(words)
        for _ in range(n_refs):
            labels = tuple(rng.choice(LABELS) for _ in words[:-1]) + ("SB",)
            table.add(Annotation(words, labels))
    table_path = folder / "table.jsonl"
    table.save(table_path)
    hyp_path = folder / "hyps.txt"
    with hyp_path.open("w") as f:
        for _ in range(n_hyps):
            words = rng.choice(texts)
            labels = tuple(rng.choice(LABELS) for _ in words[:-1]) + ("SB",)
            f.write(Annotation(words, labels).inline() + "\n")
    return table_path, hyp_path


def plain_python(table: ReferenceTable, hyps) -> list[float]:
    """The usual script: per hypothesis, per reference, sets of (position, label)."""
    refs = {
        key: [
            {(j, lab) for j, lab in enumerate(r.annotation.labels[:-1]) if lab != "NB"} for r in e.references.values()
        ]
        for key, e in table.entries.items()
    }
    best = []
    for _, ann in hyps:
        h = {(j, lab) for j, lab in enumerate(ann.labels[:-1]) if lab != "NB"}
        scores = []
        for r in refs[ann.text_key]:
            denom = len(h) + len(r)
            scores.append(1.0 if denom == 0 else 2 * len(h & r) / denom)
        best.append(max(scores))
    return best


def plain_consensus(table: ReferenceTable, hyps) -> list[float]:
    """Per hypothesis, per juncture, the count-weighted share of references with the same label."""
    out = []
    for _, ann in hyps:
        refs = list(table.entries[ann.text_key].references.values())
        total = sum(r.count for r in refs)
        junctures = range(len(ann.labels) - 1)
        if not junctures:
            out.append(1.0)
            continue
        shares = [sum(r.count for r in refs if r.annotation.labels[j] == ann.labels[j]) / total for j in junctures]
        out.append(sum(shares) / len(shares))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--texts", type=int, default=10_000)
    ap.add_argument("--refs", type=int, default=20)
    ap.add_argument("--hyps", type=int, default=100_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        table_path, hyp_path = make_data(Path(tmp), args.texts, args.refs, args.hyps)
        t0 = time.perf_counter()
        table = ReferenceTable.load(table_path)
        t1 = time.perf_counter()
        hyps = read_annotations(hyp_path)
        t2 = time.perf_counter()
        f1 = Similarity("f1")
        records = score_hypotheses(table, hyps, f1, 0.8)
        t3 = time.perf_counter()
        summarize(records, None, 0.8, f1)
        t4 = time.perf_counter()
        em_records = score_hypotheses(table, hyps, Similarity("em"), 0.5)
        t5 = time.perf_counter()
        peer = plain_python(table, hyps)
        t6 = time.perf_counter()
        consensus_records = score_hypotheses(table, hyps, Similarity("consensus"), 0.78)
        t7 = time.perf_counter()
        consensus_peer = plain_consensus(table, hyps[:2000])
    same = all(abs(a - r.best_score) < 1e-12 for a, r in zip(peer, records))
    same_consensus = all(abs(a - r.score) < 1e-12 for a, r in zip(consensus_peer, consensus_records))
    total = t4 - t0
    print(f"{args.hyps:,} hypotheses, {len(table):,} texts x {args.refs} references ({table.reference_count:,} kept)")
    print(
        f"  load table {t1 - t0:.2f}s, read hypotheses {t2 - t1:.2f}s, score F1 {t3 - t2:.2f}s, summary {t4 - t3:.2f}s"
    )
    print(f"  end to end (F1): {total:.2f}s (target <= 5 s); EM scoring alone {t5 - t4:.2f}s")
    print(
        f"  plain-Python set scoring of the same pairs: {t6 - t5:.2f}s -> "
        f"voxjudge scoring {(t6 - t5) / (t3 - t2):.1f}x faster"
    )
    print(
        f"  consensus scoring {t7 - t6:.2f}s beside F1 {t3 - t2:.2f}s -> {(t3 - t2) / (t7 - t6):.2f}x F1's speed; "
        f"same as plain Python on 2,000: {same_consensus}"
    )
    print(
        f"  identical best scores: {same}; accepted {sum(r.accepted for r in records):,}, EM accepted "
        f"{sum(r.accepted for r in em_records):,}, consensus accepted {sum(r.accepted for r in consensus_records):,}"
    )


if __name__ == "__main__":
    main()
