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
        t0 = _now()
        table = ReferenceTable.load(table_path)
        t1 = _now()
        hyps = read_annotations(hyp_path)
        t2 = _now()
        f1 = Similarity("f1")
        records = score_hypotheses(table, hyps, f1, 0.8)
        t3 = _now()
        summarize(records, None, 0.8, f1)
        t4 = _now()
        em_records = score_hypotheses(table, hyps, Similarity("em"), 0.5)
        t5 = _now()
        peer = plain_python(table, hyps)
        t6 = _now()
        consensus_records = score_hypotheses(table, hyps, Similarity("consensus"), 0.78)
        t7 = _now()
        consensus_peer = plain_consensus(table, hyps[:2000])
    same = all(abs(a - r.best_score) < 1e-12 for a, r in zip(peer, records))
    same_consensus = all(abs(a - r.score) < 1e-12 for a, r in zip(consensus_peer, consensus_records))
    print(f"{args.hyps:,} hypotheses, {len(table):,} texts x {args.refs} references ({table.reference_count:,} kept)")
    print("  seconds as wall/CPU (one process: CPU says more on a loaded machine)")
    print(f"  load table {_s(t0, t1)}, read hypotheses {_s(t1, t2)}, score F1 {_s(t2, t3)}, summary {_s(t3, t4)}")
    print(f"  end to end (F1): {_s(t0, t4)} (target <= 5 s wall); EM scoring alone {_s(t4, t5)}")
    print(
        f"  plain-Python set scoring of the same pairs: {_s(t5, t6)} -> voxjudge scoring "
        f"{_took(t5, t6)[0] / _took(t2, t3)[0]:.1f}x faster (CPU {_took(t5, t6)[1] / _took(t2, t3)[1]:.1f}x)"
    )
    print(
        f"  consensus scoring {_s(t6, t7)} beside F1 {_s(t2, t3)} -> {_took(t2, t3)[0] / _took(t6, t7)[0]:.2f}x "
        f"F1's speed (CPU {_took(t2, t3)[1] / _took(t6, t7)[1]:.2f}x); same as plain Python on 2,000: {same_consensus}"
    )
    print(
        f"  identical best scores: {same}; accepted {sum(r.accepted for r in records):,}, EM accepted "
        f"{sum(r.accepted for r in em_records):,}, consensus accepted {sum(r.accepted for r in consensus_records):,}"
    )


def _now() -> tuple[float, float]:
    """(wall, CPU) clocks now."""
    return time.perf_counter(), time.process_time()


def _took(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return b[0] - a[0], b[1] - a[1]


def _s(a: tuple[float, float], b: tuple[float, float]) -> str:
    wall, cpu = _took(a, b)
    return f"{wall:.2f}/{cpu:.2f}s"


if __name__ == "__main__":
    main()
