"""Which LMRE metric agrees best with people: em, f1 and consensus, multi-reference beside the
single-reference baseline, on the shipped examples (72 hypotheses, 24 texts, a two-annotator
table, human 1-5 scores).

    python bench/breaks_metrics.py [--examples examples/breaks] [--resamples 10000]

Prints, for each boundary comparison (typed, untyped, typed with hierarchy):

* Pearson and Spearman with 95% bootstrap CIs for every metric, multi and single reference (the
  single reference is the table's most frequent one; with this table, annotator A's);
* the consensus threshold sweep: balanced accuracy of "score > theta" against "human >= 3" and
  "human >= 4" (how the default theta was chosen);
* contested-juncture weighting of the consensus mean (junctures where the references disagree
  weighted up or down), to see whether it helps before it is offered.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from voxjudge.breaks import ReferenceTable, Similarity, read_annotations, read_human_scores, score_hypotheses
from voxjudge.stats import correlate

MODES = [("typed", False), ("untyped", False), ("typed", True)]


def _fmt(c) -> str:
    return f"{c.estimate:+.3f} [{c.ci_low:+.3f}, {c.ci_high:+.3f}]"


def _corr(values, human, n_resamples):
    res = {c.method: c for c in correlate(values, human, ("pearson", "spearman"), n_resamples=n_resamples, seed=0)}
    return res["pearson"], res["spearman"]


def contest(table: ReferenceTable, key: str) -> np.ndarray:
    """Per compared juncture: 1 - the share of the text's reference mass on its most common label."""
    entry = table.entries[key]
    levels = entry.levels(table.labelset)
    counts = np.array([r.count for r in entry.ranked()], dtype=float)
    n_levels = len(table.labelset.labels)
    shares = np.stack([((levels == lv) * counts[:, None]).sum(0) for lv in range(n_levels)]) / counts.sum()
    return 1.0 - shares.max(axis=0)


def weighted(records, table, k: int, how: str) -> list[float]:
    out = []
    for r in records:
        a = r.scores[k].agreement
        if len(a) == 0:
            out.append(1.0)
            continue
        c = contest(table, r.text)
        w = 1.0 + c if how == "up" else 1.0 - c
        out.append(float((w * a).sum() / w.sum()) if w.sum() > 0 else float(a.mean()))
    return out


def balanced_accuracy(accepted: np.ndarray, good: np.ndarray) -> float:
    return float((accepted[good].mean() + (~accepted[~good]).mean()) / 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", default=str(Path(__file__).resolve().parents[1] / "examples" / "breaks"))
    ap.add_argument("--resamples", type=int, default=10_000)
    args = ap.parse_args()
    folder = Path(args.examples)
    table = ReferenceTable.load(folder / "table.jsonl")
    hyps = read_annotations(folder / "hypotheses.tsv", labelset=table.labelset)
    human_by_id = read_human_scores(folder / "human.tsv")
    print(f"{len(hyps)} hypotheses, {len(table)} texts, {table.reference_count} references")
    print("Pearson / Spearman with 95% CIs")
    for mode, hierarchy in MODES:
        sims = [Similarity(m, mode if m != "em" else "typed", hierarchy) for m in ("em", "f1", "consensus")]
        records = score_hypotheses(table, hyps, sims)
        human = [human_by_id[r.id] for r in records]
        print(f"\n== {mode}{' + hierarchy' if hierarchy else ''}")
        for k, sim in enumerate(sims):
            for label, values in (
                ("multi", [r.scores[k].score for r in records]),
                ("single", [r.scores[k].single_score for r in records]),
            ):
                p, s = _corr(values, human, args.resamples)
                print(f"  {sim.name:26s} {label:6s}  {_fmt(p)}  {_fmt(s)}")
        for how in ("up", "down"):
            p, s = _corr(weighted(records, table, 2, how), human, args.resamples)
            print(f"  {'consensus, contested ' + how:26s} {'multi':6s}  {_fmt(p)}  {_fmt(s)}")
        if (mode, hierarchy) == ("typed", False):
            scores = np.array([r.scores[2].score for r in records])
            h = np.array(human)
            print("  consensus theta sweep: balanced accuracy against human >= 3 / >= 4")
            for theta in np.arange(0.70, 0.86, 0.01):
                acc = scores > theta
                three, four = balanced_accuracy(acc, h >= 3), balanced_accuracy(acc, h >= 4)
                print(f"    theta {theta:.2f}: {three:.3f} / {four:.3f}")


if __name__ == "__main__":
    main()
