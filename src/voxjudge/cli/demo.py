"""``voxjudge demo``: the offline evaluators on the shipped example data.

Each section is one command a user can type (shown above its output) and prints exactly what that
command prints: the demo calls the same library functions with the command's defaults and renders
with the same renderers (``cli/views/``). ``tests/cli/test_demo.py`` runs every command and
compares, so the demo cannot drift from the tools.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Iterator
from pathlib import Path

from voxjudge.cli import views
from voxjudge.errors import InputError

# The intermediate file of the pairwise section, as the shown command line names it.
JUDGMENTS = "judgments.jsonl"
# The commands' --samples default; the acoustic judge is deterministic, so it runs once per order.
PAIRWISE_SAMPLES = 10


def register(groups) -> None:
    p = groups.add_parser(
        "demo",
        help="run the offline evaluators on the shipped examples/ (no API key, no download)",
        description="Runs asr metrics, asr compare, asr score, asr judge-card, breaks score, pairwise "
        "judge/analyze and pairwise select on examples/, printing each command line and exactly its output.",
    )
    p.add_argument("--examples", default="examples", help="the examples directory (default: ./examples)")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    for commands, output in sections(Path(args.examples)):
        print("\n$ " + " &&\n  ".join("voxjudge " + " ".join(argv) for argv in commands))
        print(output)
    return 0


def sections(root: Path) -> Iterator[tuple[list[list[str]], str]]:
    """(command lines, their output) per demo section; the output is that of the last command."""
    for folder in (root / "asr", root / "human", root / "breaks", root / "pairwise"):
        if not folder.is_dir():
            raise InputError(f"{folder}: not found; run the demo from the project root or pass --examples DIR")
    for lang, preset in (("en", "basic"), ("hi", "hindi")):
        yield from _asr(root / "asr" / lang, preset)
    yield _laser(root / "asr" / "hi")
    yield _judge_card(root / "human")
    yield _breaks(root / "breaks")
    yield from _pairwise(root / "pairwise")


def _read(ref: Path, *hyps: Path):
    """Kaldi 'id text' files paired by id, as ``--ids`` reads them."""
    from voxjudge.io import pair_texts, read_texts

    reference = read_texts(ref, ids=True)
    return [pair_texts(reference, read_texts(h, ids=True)) for h in hyps]


def _asr(folder: Path, preset: str) -> Iterator[tuple[list[list[str]], str]]:
    from voxjudge.asr.compare import compare_systems
    from voxjudge.asr.measures import compute_metrics
    from voxjudge.asr.normalize import get_normalizer
    from voxjudge.cli.common import speaker_labels

    ref, a, b = (str(folder / f) for f in ("ref.txt", "sys_a.txt", "sys_b.txt"))
    norm = get_normalizer(preset)
    pa, pb = _read(Path(ref), Path(a), Path(b))
    result = compute_metrics(pa.references, pa.hypotheses, pa.ids, normalizer=norm)
    speakers = result.by_group(speaker_labels(pa.ids, pa.speakers, "-"))
    argv = ["asr", "metrics", "--ref", ref, "--hyp", a, "--ids", "--normalize", preset, "--by-speaker"]
    yield [argv], views.render_metrics(result.summary(), result, "word", ref, a, None, speakers)
    comparison = compare_systems(pa.references, pa.hypotheses, pb.hypotheses, pa.ids, normalizer=norm)
    summary = comparison.summary()
    summary["names"] = {"a": "A", "b": "B"}
    argv = ["asr", "compare", "--ref", ref, "--hyp-a", a, "--hyp-b", b, "--ids", "--normalize", preset]
    yield [argv], views.render_compare(summary, ["A", "B"])


def _laser(folder: Path) -> tuple[list[list[str]], str]:
    """LASER rubric scores (the default offline judge) beside WER, and their agreement with human
    scores: the command's one library call with its defaults."""
    from voxjudge.asr.laser import run_laser
    from voxjudge.io.scores import read_scores

    ref, hyp, human = (str(folder / f) for f in ("ref.txt", "sys_b.txt", "human_b.tsv"))
    (paired,) = _read(Path(ref), Path(hyp))
    result = run_laser(paired.references, paired.hypotheses, paired.ids, human=read_scores(human, "score"))
    argv = ["asr", "score", "--ref", ref, "--hyp", hyp, "--ids", "--human", human]
    return [argv], views.render_laser(result.summary)


def _judge_card(folder: Path) -> tuple[list[list[str]], str]:
    """WER, CER and the default LASER judge against real human preferences (French) and ratings
    (English, Malayalam, Arabic): the command's own parse and library call, its defaults included."""
    from voxjudge.cli.judge_card import card_from_args
    from voxjudge.cli.main import build_parser

    prefs, ratings = str(folder / "hats_sample.tsv"), str(folder / "ratings_sample.csv")
    argv = ["asr", "judge-card", "--preferences", prefs, "--ratings", ratings]
    card = card_from_args(build_parser(argv).parse_args(argv))
    return [argv], views.render_judge_card(card.summary)


def _breaks(folder: Path) -> tuple[list[list[str]], str]:
    """Hypotheses against a table built from two annotators (multi-reference) and against
    annotator A alone (single reference), beside human 1-5 scores."""
    from voxjudge.breaks import ReferenceTable, read_annotations, read_human_scores, score_hypotheses, summarize
    from voxjudge.breaks.scorer import parse_metrics

    refs, hyps, single_path, human_path = (
        str(folder / f) for f in ("table.jsonl", "hypotheses.tsv", "annotator_a.txt", "human.tsv")
    )
    table = ReferenceTable.load(refs, None)
    metrics = parse_metrics("f1", None, "typed", False, len(table.labelset.labels))
    annotations = read_annotations(hyps, fmt="inline", labelset=table.labelset, label_map=None)
    single = {
        a.text_key: a for _, a in read_annotations(single_path, fmt="inline", labelset=table.labelset, label_map=None)
    }
    records = score_hypotheses(table, annotations, [m.similarity for m in metrics], [m.theta for m in metrics], single)
    summary = summarize(records, read_human_scores(human_path, "score"))
    argv = ["breaks", "score", "--ref", refs, "--hyp", hyps, "--single", single_path, "--human", human_path]
    return [argv], views.render_breaks_summary(summary)


def _pairwise(folder: Path) -> Iterator[tuple[list[list[str]], str]]:
    """The acoustic judge on espeak-ng clip pairs (both orders), then best-of-4 selection."""
    from voxjudge.cli.views.pairwise import render_pair_table
    from voxjudge.pairwise import (
        AcousticPairJudge,
        Rubric,
        read_candidate_sets,
        read_pairs,
        run_judgments,
        select_best,
    )
    from voxjudge.pairwise.judges import judge_settings
    from voxjudge.pairwise.result import analysed, judged, selected

    rubric = Rubric.load(None).select(None)
    judge = AcousticPairJudge(rubric)
    samples = PAIRWISE_SAMPLES
    pairs_path, candidates_path = str(folder / "pairs.jsonl"), str(folder / "candidates.jsonl")
    pairs = read_pairs(pairs_path)
    records = asyncio.run(run_judgments(pairs, judge, rubric, samples))
    result = judged(records, pairs, rubric, judge_settings(judge, rubric, samples, 0))
    yield [["pairwise", "judge", "--pairs", pairs_path, "--out", JUDGMENTS]], render_pair_table(result)
    report = analysed(records, read_pairs(pairs_path, check_audio=False), rubric, source=JUDGMENTS).summary
    yield [["pairwise", "analyze", JUDGMENTS, "--pairs", pairs_path]], views.render_pairwise_analysis(report)
    sets = read_candidate_sets(candidates_path)
    selections, judgments = asyncio.run(select_best(sets, judge, rubric, samples))
    chosen = selected(selections, sets, rubric, {}, judgments)  # what `pairwise select` renders
    yield [["pairwise", "select", "--candidates", candidates_path]], views.render_selection(chosen)
