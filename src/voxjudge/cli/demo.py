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
    _laser_demo(root)
    _breaks_demo(Path(args.examples) / "breaks")
    _pairwise_demo(Path(args.examples) / "pairwise")
    return 0


def _pairwise_demo(folder: Path) -> None:
    """The offline acoustic judge on espeak-ng clip pairs (both orders), then best-of-4 selection."""
    import asyncio

    from voxjudge.pairwise import (
        AcousticPairJudge,
        Rubric,
        accuracy_report,
        hit_rates,
        read_candidate_sets,
        read_pairs,
        run_judgments,
        select_best,
    )

    rubric = Rubric.default()
    judge = AcousticPairJudge(rubric)
    pairs = read_pairs(folder / "pairs.jsonl")
    records = asyncio.run(run_judgments(pairs, judge, rubric, samples=2))
    rep = accuracy_report(records, pairs, rubric)
    by_dim = ", ".join(f"{d} {100 * v:.0f}%" for d, v in rep["accuracy_by_dimension"].items() if v is not None)
    print(f"\n=== pairwise prosody: acoustic judge on {rep['n_pairs']} espeak-ng pairs, both orders ===")
    print(
        f"accuracy against the human labels {100 * rep['accuracy']:.1f}% (by dimension: {by_dim}); "
        f"position bias Δpos {rep['delta_pos']:+.3f}; {rep['n_abstained']} abstained (judgment, dimension) "
        "cells on what a waveform cannot tell (C3, L1, L3)"
    )
    sets = read_candidate_sets(folder / "candidates.jsonl")
    selections, _ = asyncio.run(select_best(sets, judge, rubric, samples=2))
    rates = hit_rates(selections, sets)
    print(
        f"best of 4 by round robin over {len(sets)} texts: Hit@1 {100 * rates['hit@1']:.0f}% "
        f"(random {100 * rates['random@1']:.0f}%)"
    )


def _laser_demo(root: Path) -> None:
    """LASER rubric scores beside WER on the Hindi and English examples (offline default judge)."""
    from voxjudge.asr.laser import LaserRubric, score, summarize
    from voxjudge.io import pair_texts, read_texts

    rubric = LaserRubric.load()
    print("\n=== ASR rubric scores (LASER, offline default judge) beside WER ===")
    for lang in ("en", "hi"):
        ref = read_texts(root / lang / "ref.txt", ids=True)
        for system in ("sys_a", "sys_b"):
            p = pair_texts(ref, read_texts(root / lang / f"{system}.txt", ids=True))
            s = summarize(score(p.references, p.hypotheses, p.ids, lang=lang), rubric)
            print(
                f"{lang} {system}: LASER micro {s['laser_micro']:.3f} (no penalty {s['labels']['no_penalty']}, "
                f"minor {s['labels']['minor']}, major {s['labels']['major']}) vs 1 - mean WER {1 - s['wer_macro']:.3f}"
            )


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
