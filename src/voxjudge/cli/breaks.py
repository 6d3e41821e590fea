"""``voxjudge breaks convert | merge | from-annotators | build-refs | score``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from voxjudge.cli.bootstrap_options import add_bootstrap_options, bootstrap_kwargs
from voxjudge.cli.common import alias, check_outputs, print_json, progress_bar, write_all, write_text
from voxjudge.cli.judge_options import EXIT_INCOMPLETE, add_judge_options, finish, make_judge, usage_line
from voxjudge.cli.report_options import (
    add_report_options,
    check_report_options,
    report_outputs,
    say_written,
    wants_report,
)
from voxjudge.cli.views import render_breaks_summary
from voxjudge.errors import InputError
from voxjudge.plural import counted

FORMAT_HELP = "annotation convention: inline (default), tobi, k-tobi, mandarin, pause, sequence"


def _label_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--labels", metavar="L1,L2,...", help="label set, weakest first (default: NB,AP,IP,SB)")
    p.add_argument("--label-map", metavar="FILE", help="JSON map from the input convention's labels to the label set")


def register(groups) -> None:
    breaks = groups.add_parser("breaks", help="multi-reference phrase-break evaluation (LMRE)")
    cmds = breaks.add_subparsers(dest="command", metavar="<command>", required=True)

    p = cmds.add_parser("convert", help="convert annotations between conventions")
    p.add_argument("input", help="annotations, one per line (or CSV/TSV/JSONL with an annotation column)")
    p.add_argument("--convention", dest="src", default="inline", help=FORMAT_HELP)
    alias(p, "--convention", "--from")
    p.add_argument("--to", dest="dst", default="inline", choices=["inline", "sequence"], help="output format")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    _label_options(p)
    p.set_defaults(func=cmd_convert)

    p = cmds.add_parser("merge", help="union of reference tables, counts summed (the paper's Combined setting)")
    p.add_argument("tables", nargs="+", help="reference tables (JSONL)")
    p.add_argument("--out", required=True, metavar="TABLE", help="merged table")
    p.set_defaults(func=cmd_merge)

    p = cmds.add_parser("from-annotators", help="build a reference table from human annotations")
    p.add_argument(
        "files",
        nargs="+",
        help="annotation files, one per annotator; a text may appear in any number of them (a phrasing is "
        "counted once per file)",
    )
    p.add_argument("--convention", dest="format", default="inline", help=FORMAT_HELP)
    alias(p, "--convention", "--format")
    p.add_argument("--out", required=True, metavar="TABLE", help="reference table to write")
    _label_options(p)
    p.set_defaults(func=cmd_from_annotators)

    p = cmds.add_parser(
        "build-refs",
        help="build a reference table with an LLM from a few-shot pool (LMRE)",
        description="Per iteration, N_FS demonstrations are drawn from the pool (seeded, different each "
        "iteration), texts are annotated in batches, answers whose words differ from the text are retried "
        "once and then dropped, and phrasings seen in more than min-count iterations are kept.",
    )
    p.add_argument(
        "--texts", required=True, help="plain texts to annotate, one per line (or CSV/TSV/JSONL with 'text')"
    )
    p.add_argument("--pool", required=True, help="expert annotations to draw demonstrations from (inline)")
    p.add_argument("--n-fs", type=int, help="demonstrations per prompt (default: half the pool)")
    p.add_argument("--n-iter", type=int, default=20, help="iterations (default: 20)")
    p.add_argument("--batch-size", type=int, default=32, help="texts per request (default: 32)")
    p.add_argument(
        "--min-count", default="auto", help="keep phrasings seen in more than this many iterations (default: n_iter/10)"
    )
    p.add_argument("--draw-seed", dest="seed", type=int, default=0, help="seed for drawing demonstrations (default: 0)")
    alias(p, "--draw-seed", "--seed")
    p.add_argument("--dry-run", action="store_true", help="estimate requests, tokens and cost; send nothing")
    p.add_argument("--out", required=True, metavar="TABLE", help="reference table to write")
    p.add_argument("--json", action="store_true", help="print the build report and usage as JSON on stdout")
    add_judge_options(p)
    p.set_defaults(func=cmd_build)

    p = cmds.add_parser(
        "score",
        help="score hypotheses against a reference table; agreement with human scores",
        description="Per hypothesis and metric: em/f1 give the best similarity to any reference of its text "
        "(and that reference), consensus the count-weighted per-juncture agreement with all of them; "
        "accepted = score > theta. Beside each, a single-reference baseline (the most frequent reference, or "
        "--single; it covers the hypotheses that have one). With --human: acceptance by human-score group and "
        "Pearson/Spearman with bootstrap CIs. Exit status: 0 when every hypothesis was scored; 2 for bad input; "
        "3 when some could not be scored (text not in the table, words differ; each record says why).",
    )
    p.add_argument("--ref", dest="refs", required=True, metavar="TABLE", help="reference table (JSONL)")
    p.add_argument(
        "--hyp", dest="hyps", required=True, help="hypothesis annotations (line number ids, or CSV/TSV/JSONL with id)"
    )
    p.add_argument("--convention", dest="format", default="inline", help=FORMAT_HELP + " (of --hyp and --single)")
    alias(p, "--ref", "--refs")
    alias(p, "--hyp", "--hyps")
    alias(p, "--convention", "--format")
    p.add_argument(
        "--metric",
        default="f1",
        metavar="M1,M2,...",
        help="em, f1, consensus, or a list such as em,f1,consensus; the first decides 'score' and 'accepted' "
        "(default: f1)",
    )
    p.add_argument(
        "--f1",
        dest="f1_mode",
        default="typed",
        choices=["typed", "untyped", "per-label"],
        help="boundary comparison for f1 and consensus (per-label: f1 only)",
    )
    p.add_argument("--hierarchy", action="store_true", help="a stronger boundary also counts at weaker levels")
    p.add_argument(
        "--theta",
        metavar="T",
        help="acceptance thresholds: one per metric (0.5,0.8,0.78) or name=value (consensus=0.75); "
        "defaults em 0.5, f1 0.8, consensus 0.78",
    )
    p.add_argument("--human", metavar="FILE", help="human scores with id and score columns")
    p.add_argument("--human-col", default="score", help="score column in --human (default: score)")
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="--human covering only some hypotheses (a study in progress): agreement over those, coverage "
        "reported first (default: a hypothesis without a human score is an error)",
    )
    p.add_argument("--single", metavar="FILE", help="single-reference annotations for the baseline")
    add_bootstrap_options(p)
    p.add_argument("--out", metavar="FILE", help="per-hypothesis records (.jsonl, .csv, .tsv, .json)")
    add_report_options(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    _label_options(p)
    p.set_defaults(func=cmd_score)


def _labels(args):
    from voxjudge.breaks import LabelMap, LabelSet

    return LabelSet.parse(args.labels), (LabelMap.load(args.label_map) if args.label_map else None)


def cmd_convert(args: argparse.Namespace) -> int:
    from voxjudge.breaks import format_as, read_annotations

    check_outputs(files=[args.out])
    labelset, label_map = _labels(args)
    anns = read_annotations(args.input, fmt=args.src, labelset=labelset, label_map=label_map)
    lines = [format_as(a, args.dst, labelset) for _, a in anns]
    if args.out:
        write_text(args.out, lines)
    else:
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from voxjudge.breaks import ReferenceTable, merge
    from voxjudge.breaks.files import distinct_files

    check_outputs(files=[args.out])
    distinct_files(args.tables, "table")
    merged = merge([ReferenceTable.load(t) for t in args.tables])
    merged.save(args.out)
    print(
        f"{args.out}: {counted(len(merged), 'text')}, {counted(merged.reference_count, 'reference')} "
        f"from {counted(len(args.tables), 'table')}"
    )
    return 0


def cmd_from_annotators(args: argparse.Namespace) -> int:
    from voxjudge.breaks.files import table_from_annotators

    check_outputs(files=[args.out])
    labelset, label_map = _labels(args)
    table = table_from_annotators(args.files, fmt=args.format, labelset=labelset, label_map=label_map)
    table.save(args.out)
    print(
        f"{args.out}: {counted(len(table), 'text')}, {counted(table.reference_count, 'reference')} "
        f"from {counted(len(args.files), 'file')}"
    )
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from voxjudge.breaks import BuildConfig, LabelSet, read_annotations
    from voxjudge.breaks.files import read_plain_texts
    from voxjudge.breaks.run import build_estimate, build_table

    if args.min_count == "auto":
        min_count = None
    else:
        try:
            min_count = float(args.min_count)
        except ValueError:
            raise InputError(f"--min-count must be a number or 'auto', not {args.min_count!r}") from None
    check_outputs(files=[args.out])
    config = BuildConfig(args.n_iter, args.n_fs, args.batch_size, min_count, args.seed)
    texts = read_plain_texts(args.texts, LabelSet())
    pool = [a for _, a in read_annotations(args.pool, labelset=LabelSet())]
    judge = make_judge(args, default_log=Path(args.out).with_suffix(".calls.jsonl"))
    try:
        if args.dry_run:
            print_json(build_estimate(judge, texts, pool, config))
            return 0
        with progress_bar(f"building references with {judge.spec.name}") as progress:
            result = build_table(judge, texts, pool, config, progress=progress)
    finally:
        judge.close()
    result.table.save(args.out)
    if args.json:
        print_json(build_view(result, args.out))
    else:
        print(render_build(result.summary, args.out), file=sys.stderr)
    s = result.summary
    return finish(
        unscored=s["unscored"],
        total=s["annotations_wanted"],
        what="(text, iteration) annotations",
        reasons=s["unscored_reasons"],
        stopped=s["stopped"],
        cached=not args.no_cache,
        varies=("draw_seed",),  # another draw of demonstrations: other prompts
    )


def render_build(r: dict, out: str) -> str:
    """The build's status line for people (``--json`` gives the same numbers to scripts)."""
    dropped = sum(r["dropped"].values())
    return (
        f"{out}: {counted(r['references_kept'], 'reference')} for {counted(r['texts'], 'text')} from "
        f"{counted(r['answers'], 'answer')} in {counted(r['iterations'], 'iteration')} (kept when seen in more "
        f"than {r['min_count']:g}; {r['references_before_filter']} before that); "
        f"{counted(r['word_mismatch_retried'], 'answer')} asked again, {dropped} dropped, "
        f"{counted(r['texts_without_references'], 'text')} without a reference; " + usage_line(r["usage"])
    )


def build_view(result, out: str) -> dict:
    """The build for scripts: the summary and settings as one JSON object."""
    summary = {k: v for k, v in result.summary.items() if k not in ("unscored_reasons", "annotations_wanted")}
    return {"table": out, **summary, "settings": result.settings}


def cmd_score(args: argparse.Namespace) -> int:
    from voxjudge.breaks.run import score_breaks

    boot = bootstrap_kwargs(args)
    check_outputs(records=[args.out], files=[args.report])
    check_report_options(args)
    result = score_breaks(
        args.refs,
        args.hyps,
        metric=args.metric,
        theta=args.theta,
        f1_mode=args.f1_mode,
        hierarchy=args.hierarchy,
        labels=args.labels,
        label_map=args.label_map,
        fmt=args.format,
        single=args.single,
        human=args.human,
        human_col=args.human_col,
        allow_partial=args.allow_partial,
        **boot,
    )
    report = None
    if wants_report(args):
        from voxjudge.breaks.report import lmre_report

        report = lmre_report(result)
    write_all({args.out: result.records, **report_outputs(args, report)})
    print_json(result.view()) if args.json else print(render_breaks_summary(result.summary))
    say_written(args, report)
    # numbers over only some hypotheses are an incomplete run, as in the other commands
    return EXIT_INCOMPLETE if result.unscored else 0
