"""``voxjudge pairwise judge | analyze | compare | select | distill``."""

from __future__ import annotations

import argparse
import sys

from voxjudge.cli.bootstrap_options import add_bootstrap_options, bootstrap_kwargs
from voxjudge.cli.common import alias, check_outputs, print_json, progress_bar, write_all, write_out
from voxjudge.cli.judge_options import (
    EXIT_INCOMPLETE,
    add_judge_options,
    judge_options,
    make_judge,
    say_notices,
    usage_line,
)
from voxjudge.cli.report_options import (
    add_report_options,
    check_report_options,
    report_outputs,
    say_written,
    wants_report,
)
from voxjudge.cli.views import render_comparison, render_pairwise_analysis, render_selection
from voxjudge.cli.views.pairwise import render_pair_table
from voxjudge.errors import InputError
from voxjudge.plural import counted

JUDGE_HELP = "acoustic (offline, default) or an audio LLM: gemini/<model>, openai/<model>, fake/prosody"


def register(groups) -> None:
    pw = groups.add_parser("pairwise", help="pairwise prosody judging (Live-ProsodyJudge protocol)")
    cmds = pw.add_subparsers(dest="command", metavar="<command>", required=True)

    p = cmds.add_parser(
        "judge",
        help="judge clip pairs in both orders with several samples; one record per judgment",
        description="Each pair is judged with A first in half the samples and B first in the other half; "
        "scores are mapped back to the physical clips. Unusable scores are abstentions, recorded. Every "
        "record and pair carries the weighted verdict V_w = sign(sum_d w_d (s_A - s_B)) with the rubric's "
        "weights (zero is a tie); the table shows per pair the winner of each measured dimension, the "
        "verdict and whether the two orders agree. --engine ray runs the acoustic judge's measurements on "
        "Ray too (same records).",
    )
    p.add_argument("--pairs", required=True, help="pairs JSONL (pair_id, text, audio_a, audio_b, optional human)")
    _judge_args(p)
    p.add_argument("--out", required=True, metavar="FILE", help="judgment records (JSONL)")
    p.add_argument("--json", action="store_true", help="print JSON (the summary with one row per pair)")
    p.add_argument(
        "--dry-run", action="store_true", help="LLM judges: estimate requests, tokens and cost; send nothing (no key)"
    )
    p.set_defaults(func=cmd_judge)

    p = cmds.add_parser("analyze", help="accuracy against human labels, position bias, sampling gain, weights")
    p.add_argument("judgments", help="records from 'pairwise judge'")
    p.add_argument("--pairs", required=True, help="the pairs file with human labels")
    _rubric_arg(p)
    p.add_argument("--select-weights", action="store_true", help="pick V_w weights on a validation split")
    p.add_argument("--val-fraction", type=float, default=0.5, help="validation share for --select-weights")
    p.add_argument("--split-seed", type=int, default=0, help="seed of the validation/test split")
    add_bootstrap_options(p)  # the CI of the accuracy
    _partial_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    add_report_options(p)
    p.set_defaults(func=cmd_analyze)

    p = cmds.add_parser("compare", help="paired bootstrap of the accuracy difference of two judges")
    p.add_argument("a", help="judgments of judge A")
    p.add_argument("b", help="judgments of judge B")
    p.add_argument("--pairs", "--human", dest="pairs", required=True, help="the pairs file with human labels")
    _rubric_arg(p)
    add_bootstrap_options(p)
    _partial_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    add_report_options(p)
    p.set_defaults(func=cmd_compare)

    p = cmds.add_parser("select", help="best of N candidates by round-robin tournament; Hit@k with human top-k")
    p.add_argument("--candidates", required=True, help="candidate sets JSONL (set_id, text, candidates, human_topk)")
    _judge_args(p)
    p.add_argument("--out", metavar="FILE", help="write the selections (JSONL)")
    p.add_argument("--records", metavar="FILE", help="also write every judgment record (JSONL)")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_report_options(p)
    p.set_defaults(func=cmd_select)

    p = cmds.add_parser("distill", help="confidence-filtered teacher labels as chat-format SFT data")
    p.add_argument("judgments", help="teacher records from 'pairwise judge'")
    p.add_argument("--pairs", required=True, help="the pairs file (audio paths, systems for curriculum tags)")
    _rubric_arg(p)
    p.add_argument("--keep", default="4-0", choices=["4-0", "3-1", "3+abstain"], help="vote filter (default: 4-0)")
    p.add_argument("--per-dimension", action="store_true", help="filter per pair-dimension, masking the others")
    p.add_argument("--balance-seed", dest="seed", type=int, default=0, help="seed of the winner balancing (default: 0)")
    alias(p, "--balance-seed", "--seed")
    p.add_argument("--out", required=True, metavar="FILE", help="SFT examples (JSONL)")
    p.set_defaults(func=cmd_distill)


def _partial_arg(p) -> None:
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="evaluate judgments that cover only some of the pairs (or more): reports the coverage "
        "(default: missing or unknown pairs are an error)",
    )


def _rubric_arg(p) -> None:
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped C1-C4 + L1-L3 rubric)")
    p.add_argument("--dimensions", metavar="IDS", help="comma-separated dimension ids to use (default: all)")


def _judge_args(p) -> None:
    _rubric_arg(p)
    p.add_argument(
        "--samples",
        type=int,
        default=10,
        help="judgments per pair, split evenly over both orders; keep it even (default: 10)",
    )
    p.add_argument("--mode", default="coupled", choices=["coupled", "per-dimension"], help="LLM prompting mode")
    p.add_argument("--temperature", type=float, default=1.0, help="LLM sampling temperature (default: 1.0)")
    p.add_argument("--sampling-seed", dest="seed", type=int, default=0, help="LLM sampling seed (default: 0)")
    alias(p, "--sampling-seed", "--seed")
    add_judge_options(p, judge=None)
    p.add_argument("--judge", default="acoustic", metavar="SPEC", help=JUDGE_HELP)


def _rubric_and_label_ids(args):
    """The rubric restricted to ``--dimensions``, and every dimension of the whole rubric: human
    labels may name any of them. The file is read once."""
    from voxjudge.pairwise import Rubric

    whole = Rubric.load(args.rubric)
    dims = [d.strip() for d in args.dimensions.split(",")] if args.dimensions else None
    return whole.select(dims), whole.ids


def _pair_judge(args, rubric):
    from voxjudge.pairwise import AcousticPairJudge, LLMPairJudge

    if args.samples < 1:
        raise InputError("--samples must be at least 1")
    if args.judge == "acoustic":
        judge_options(args).unused_server("the offline acoustic judge calls none")
        if args.engine == "ray":
            return _ray_acoustic(args, rubric), None
        return AcousticPairJudge(rubric), None
    import voxjudge.pairwise.judges  # noqa: F401  (registers the fake/prosody script)

    llm = make_judge(args, args.judge)
    return LLMPairJudge(llm, rubric, args.mode, args.temperature, args.seed), llm


def _ray_acoustic(args, rubric):
    """The acoustic judge with its measurements on Ray (``--engine ray``)."""
    from voxjudge.cli.judge_options import ray_workers
    from voxjudge.llm.errors import ConfigError

    workers = ray_workers(args)
    if args.ray_shards:
        raise ConfigError("--ray-shards: the acoustic judge keeps no shards (a rerun measures again); leave it out")
    try:
        import ray  # noqa: F401
    except ImportError:
        raise ConfigError("the Ray engine needs Ray: pip install 'voxjudge[ray]'") from None
    from voxjudge.pairwise.ray_acoustic import RayAcousticPairJudge

    return RayAcousticPairJudge(rubric, address=args.ray_address, workers=workers)


def _read_records(path: str) -> list[dict]:
    from voxjudge.io.readers import jsonl_objects

    records = [obj for _, obj in jsonl_objects(path)]
    for k, r in enumerate(records, 1):
        if not {"pair_id", "first", "sample", "scores", "raw", "abstained"} <= set(r):
            raise InputError(f"{path}:{k}: not a judgment record from 'voxjudge pairwise judge'")
    return records


def cmd_judge(args: argparse.Namespace) -> int:
    from voxjudge.pairwise import read_pairs
    from voxjudge.pairwise.checks import check_pairs
    from voxjudge.pairwise.run import judge_pairs

    check_outputs(records=[args.out], inputs=[args.pairs, args.rubric])
    rubric, label_ids = _rubric_and_label_ids(args)
    pairs = read_pairs(args.pairs, dimensions=label_ids)
    judge, llm = _pair_judge(args, rubric)
    _warn_odd_samples(args.samples)
    # the local acoustic judge shares its measurements with the checks; elsewhere they are quick
    _warn(check_pairs(pairs, getattr(judge, "acoustic", None)))
    try:
        if llm is not None and args.dry_run:
            print_json(llm.estimate(judge.planned_requests(pairs, args.samples)))
            return 0
        with progress_bar(f"judging with {judge.name}") as progress:
            result = judge_pairs(pairs, judge, rubric, args.samples, seed=args.seed, progress=progress)
    finally:
        if llm:
            llm.close()
    write_out(args.out, result.records)
    print_json(result.view()) if args.json else print(render_pair_table(result))
    print(render_judged(result, args.out), file=sys.stderr)
    return _incomplete(result, args, llm=llm)


def render_judged(result, out: str) -> str:
    """The status line of a judging run, then one warning per pair decided without rating."""
    s, settings = result.summary, result.settings
    # failures: judgments without a usable answer, whatever the cause (transport, schema, no speech)
    usage = f"; {usage_line({**s['usage'], 'failures': s['n_failed']})}" if "usage" in s else ""
    collapsed = ""
    if settings.get("deterministic") and settings.get("samples", 1) > 1:
        collapsed = (
            f" (the {settings['judge']} judge is deterministic: --samples {settings['samples']} "
            "collapse to one judgment per order)"
        )
    unmeasured = settings.get("not_measured") or []
    never = f"; not measured by this judge: {', '.join(unmeasured)}" if unmeasured else ""
    lines = [
        f"{counted(s['n_judgments'], 'judgment')} of {counted(s['n_pairs'], 'pair')}{collapsed} -> {out}; "
        f"{s['n_failed']} failed, {counted(s['n_abstained'], 'abstained cell')}{never}{usage}"
    ]
    lines += [f"voxjudge: warning: pair {f['pair_id']!r} decided without rating: {f['flag']}" for f in s["flagged"]]
    return "\n".join(lines)


def _warn(messages: list[str]) -> None:
    for m in messages:
        print(f"voxjudge: warning: {m}", file=sys.stderr)


def _warn_odd_samples(samples: int) -> None:
    if samples % 2:
        _warn(
            [
                f"--samples {samples} is odd: clip A is presented first once more than clip B, "
                "so slot bias leaks into the verdicts; use an even count"
            ]
        )


def _incomplete(result, args: argparse.Namespace, judgments=None, llm=None) -> int:
    """Exit status 3 when some judgments have no usable answer (they are recorded, with the reason)
    or a cost limit stopped the run; what the judge learnt about its server is said first, and
    whether a rerun can help (``judgments``: the judgment records, when they are not the result's)."""
    from collections import Counter

    from voxjudge.cli.wording import worded
    from voxjudge.llm.advice import NOT_ASKED, kinds_of, rerun_advice

    say_notices()
    s = result.summary
    if not s["n_failed"] and not s["stopped"]:
        return 0
    parts = []
    if s["n_failed"]:
        first = s.get("first_failure")
        named = f" (first: pair {first['pair_id']!r}: {first['error']})" if first else ""
        parts.append(
            f"{s['n_failed']} of {counted(s['n_judgments'], 'judgment')} have no usable answer{named}; "
            "they are recorded as abstentions"
        )
    if s["stopped"]:
        parts.append(f"stopped early: {s['stopped']}")
    advice = None
    if llm is not None:  # the acoustic judge measures: running it again gives the same
        errors = [r["error"] for r in (result.records if judgments is None else judgments) if r.get("error")]
        kinds = kinds_of(Counter(errors))
        if s["stopped"]:
            kinds[NOT_ASKED] = kinds.get(NOT_ASKED, 0) or 1
        advice = rerun_advice(
            kinds,
            cached=not args.no_cache,
            varies=("temperature", "sampling_seed"),
            sampled=args.temperature > 0,
            unreachable=bool(s["stopped"] and "cannot reach" in s["stopped"]),
        )
    print(f"voxjudge: incomplete: {'; '.join(parts)}." + (f" {worded(advice)}" if advice else ""), file=sys.stderr)
    return EXIT_INCOMPLETE


def _judged_inputs(args: argparse.Namespace):
    """What ``analyze`` and ``compare`` read first, every option checked before anything is read:
    the bootstrap settings, the rubric and the pairs file."""
    from voxjudge.pairwise import read_pairs

    boot = bootstrap_kwargs(args)
    check_outputs(files=[args.report], inputs=_inputs(args))
    check_report_options(args)
    rubric, label_ids = _rubric_and_label_ids(args)
    return boot, rubric, read_pairs(args.pairs, check_audio=False, dimensions=label_ids)


def _inputs(args: argparse.Namespace) -> list:
    """The files ``analyze`` or ``compare`` read (no output may overwrite one)."""
    return [getattr(args, k, None) for k in ("judgments", "a", "b", "pairs", "rubric")]


def cmd_analyze(args: argparse.Namespace) -> int:
    from voxjudge.pairwise.result import analysed

    boot, rubric, pairs = _judged_inputs(args)
    records = _read_records(args.judgments)
    if args.select_weights and not 0 < args.val_fraction < 1:
        raise InputError("--val-fraction must be between 0 and 1")
    weights = {"val_fraction": args.val_fraction, "seed": args.split_seed} if args.select_weights else None
    result = analysed(
        records, pairs, rubric, allow_partial=args.allow_partial, source=args.judgments, weights=weights, **boot
    )
    report = None
    if wants_report(args):
        from voxjudge.report.pairwise import analysis_report

        report = analysis_report(result, {"judgments": args.judgments, "pairs": args.pairs, "rubric": args.rubric})
    write_all(report_outputs(args, report))
    print_json(result.view()) if args.json else print(render_pairwise_analysis(result.summary, args.judgments))
    say_written(args, report)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from voxjudge.pairwise.result import compared

    boot, rubric, pairs = _judged_inputs(args)
    result = compared(
        _read_records(args.a),
        _read_records(args.b),
        pairs,
        rubric,
        **boot,
        allow_partial=args.allow_partial,
        sources=(args.a, args.b),
    )
    report = None
    if wants_report(args):
        from voxjudge.report.pairwise import comparison_report

        report = comparison_report(result, {"judgments_a": args.a, "judgments_b": args.b, "pairs": args.pairs})
    write_all(report_outputs(args, report))
    print_json(result.view()) if args.json else print(render_comparison(result))
    say_written(args, report)
    return 0


def cmd_select(args: argparse.Namespace) -> int:
    from voxjudge.pairwise import read_candidate_sets
    from voxjudge.pairwise.checks import check_candidate_sets
    from voxjudge.pairwise.run import select_among

    check_outputs(records=[args.out, args.records], files=[args.report], inputs=[args.candidates, args.rubric])
    check_report_options(args)
    rubric, _ = _rubric_and_label_ids(args)
    sets = read_candidate_sets(args.candidates)
    judge, llm = _pair_judge(args, rubric)
    _warn_odd_samples(args.samples)
    _warn(check_candidate_sets(sets, getattr(judge, "acoustic", None)))
    try:
        with progress_bar("round robin") as progress:
            result, records = select_among(sets, judge, rubric, args.samples, seed=args.seed, progress=progress)
    finally:
        if llm:
            llm.close()
    report = None
    if wants_report(args):
        from voxjudge.report.pairwise import selection_report

        report = selection_report(result, {"candidates": args.candidates, "rubric": args.rubric})
    write_all({args.out: result.records, args.records: records, **report_outputs(args, report)})
    print_json(result.view()) if args.json else print(render_selection(result))
    say_written(args, report)
    return _incomplete(result, args, records, llm)


def cmd_distill(args: argparse.Namespace) -> int:
    from voxjudge.pairwise import build_sft, read_pairs

    check_outputs(records=[args.out], inputs=[args.judgments, args.pairs, args.rubric])
    rubric, label_ids = _rubric_and_label_ids(args)
    pairs = read_pairs(args.pairs, check_audio=False, dimensions=label_ids)
    from pathlib import Path

    examples, report = build_sft(
        _read_records(args.judgments),
        pairs,
        rubric,
        args.keep,
        per_dimension=args.per_dimension,
        seed=args.seed,
        audio_base=Path(args.out).parent,  # audio paths relative to the SFT file
    )
    write_out(args.out, examples)
    if report.get("deterministic"):  # said before the counts it qualifies
        print(
            f"voxjudge: note: the teacher is deterministic (each record stands for identical samples): its votes "
            f"repeat one judgment per order, so the {args.keep} filter only drops pairs whose two orders "
            "disagree, tie or abstain",
            file=sys.stderr,
        )
    curricula = ", ".join(f"{k} {v}" for k, v in sorted(report.get("by_curriculum", {}).items())) or "none"
    print(
        f"{report.get('examples', 0)} SFT examples -> {args.out} ({report.get('winner_first', 0)} with the winner "
        f"first); {counted(report.get('pairs_dropped', 0), 'pair')} dropped by the {args.keep} filter; "
        f"{report.get('pair_dimensions_kept', 0)} pair-dimensions kept, {report.get('pair_dimensions_masked', 0)} "
        f"masked; curriculum: {curricula}",
        file=sys.stderr,
    )
    return 0
