"""``voxjudge demo``: the offline evaluators on the shipped example data."""

from __future__ import annotations

import argparse
from pathlib import Path

from voxjudge.errors import InputError


def register(groups) -> None:
    p = groups.add_parser(
        "demo",
        help="run the offline evaluators on the shipped examples/ (no API key, no download)",
    )
    p.add_argument("--examples", default="examples", help="the examples directory (default: ./examples)")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from voxjudge.asr.compare import compare_systems
    from voxjudge.asr.normalize import get_normalizer
    from voxjudge.cli.asr import render_compare, render_metrics
    from voxjudge.io import pair_texts, read_texts

    root = Path(args.examples) / "asr"
    if not root.is_dir():
        raise InputError(f"{root}: not found; run the demo from the project root or pass --examples DIR")
    for lang, preset in (("en", "basic"), ("hi", "hindi")):
        ref = read_texts(root / lang / "ref.txt", ids=True)
        a = pair_texts(ref, read_texts(root / lang / "sys_a.txt", ids=True))
        b = pair_texts(ref, read_texts(root / lang / "sys_b.txt", ids=True))
        norm = get_normalizer(preset)
        comparison = compare_systems(a.references, a.hypotheses, b.hypotheses, a.ids, normalizer=norm)
        print(f"\n=== {lang}: system A, normalize={preset} ===")
        speakers = comparison.a.by_group([uid.split("-", 1)[0] for uid in a.ids])
        print(
            render_metrics(
                comparison.a.summary(), comparison.a, "word", ref.path, f"{root / lang}/sys_a.txt", None, speakers
            )
        )
        print(f"\n=== {lang}: system A vs system B ===")
        print(render_compare(comparison.summary(), ["A", "B"]))
    _breaks_demo(Path(args.examples) / "breaks")
    return 0


def _breaks_demo(folder: Path) -> None:
    """Phrase-break hypotheses scored against a table built from two annotators (multi-reference)
    and against annotator A alone (single reference), beside human 1-5 scores."""
    from voxjudge.breaks import (
        ReferenceTable,
        Similarity,
        read_annotations,
        read_human_scores,
        score_hypotheses,
        summarize,
    )
    from voxjudge.cli.breaks import render_summary

    if not folder.is_dir():
        raise InputError(f"{folder}: not found; run the demo from the project root or pass --examples DIR")
    table = ReferenceTable.load(folder / "table.jsonl")
    hyps = read_annotations(folder / "hypotheses.tsv", labelset=table.labelset)
    single = {a.text_key: a for _, a in read_annotations(folder / "annotator_a.txt", labelset=table.labelset)}
    human = read_human_scores(folder / "human.tsv")
    similarity = Similarity("f1")
    records = score_hypotheses(table, hyps, similarity, 0.8, single)
    print("\n=== phrase breaks (LMRE): 72 hypotheses, table from two annotators vs annotator A alone ===")
    print(render_summary(summarize(records, human, 0.8, similarity, n_resamples=2000)))
