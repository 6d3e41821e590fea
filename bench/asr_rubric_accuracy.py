"""The rules judge against the hand-labelled word pairs in tests/data/laser_pairs.tsv.

    python bench/asr_rubric_accuracy.py [--judge rules|default|model:PATH] [--by-lang] [--errors]

Prints accuracy per class (match, no penalty, minor, major), per language, and the error-type
accuracy. The set is a check written by hand, not training data: rules are not tuned to it.
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter, defaultdict
from pathlib import Path

from voxjudge.asr.laser import LaserRubric, RubricPair
from voxjudge.asr.laser.rules import classify

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "laser_pairs.tsv"


def load(path: Path = DATA) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def pair_of(row: dict[str, str]) -> RubricPair:
    ref, hyp = tuple(row["ref"].split()), tuple(row["hyp"].split())
    op = "equal" if ref == hyp else "delete" if not hyp else "insert" if not ref else "substitute"
    if len(ref) == len(hyp) == 2 and ref == hyp[::-1]:
        op = "swap"
    return RubricPair(ref, hyp, op, 0, 0, (row.get("note") or "").strip())


def predict(rows, judge: str):
    if judge == "rules":
        return [classify(pair_of(r), r["lang"]) for r in rows]
    from voxjudge.asr.laser.judges import offline_labeler

    labeler, _ = offline_labeler(judge, LaserRubric.load())
    return labeler([(str(k), pair_of(r), r["lang"]) for k, r in enumerate(rows)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--judge", default="rules")
    ap.add_argument("--by-lang", action="store_true", help="also per language")
    ap.add_argument("--errors", action="store_true", help="list the misclassified pairs")
    args = ap.parse_args()
    rows = load()
    preds = predict(rows, args.judge)
    per_class: dict[str, list[bool]] = defaultdict(list)
    per_lang: dict[str, list[bool]] = defaultdict(list)
    types_ok = 0
    for row, p in zip(rows, preds):
        ok = p.label == row["label"]
        per_class[row["label"]].append(ok)
        per_lang[row["lang"]].append(ok)
        types_ok += (p.error_type or "none") == row["error_type"]
    total = sum(sum(v) for v in per_class.values())
    print(f"{args.judge} judge on {len(rows)} labelled pairs ({dict(Counter(r['lang'] for r in rows))})")
    print(
        f"  label accuracy {total}/{len(rows)} = {100 * total / len(rows):.2f}%; "
        f"error type {100 * types_ok / len(rows):.2f}%"
    )
    for cls in ("match", "no_penalty", "minor", "major"):
        v = per_class[cls]
        print(f"  {cls:<11} {sum(v):>3}/{len(v):<3} {100 * sum(v) / len(v):6.2f}%")
    if args.by_lang:
        for lang, v in sorted(per_lang.items()):
            print(f"  [{lang}] {sum(v)}/{len(v)} = {100 * sum(v) / len(v):.2f}%")
    if args.errors:
        for row, p in zip(rows, preds):
            if p.label != row["label"]:
                print(
                    f"  {row['lang']} {row['ref']!r} -> {row['hyp']!r}: expected {row['label']}/{row['error_type']}, "
                    f"got {p.label}/{p.error_type} ({p.reason})"
                )


if __name__ == "__main__":
    main()
