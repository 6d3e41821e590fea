"""``voxjudge asr score``: LASER for two transcript files -- parse, one library call
(``asr.laser.score_files``), render. The word-pair commands are ``laser_pairs``, training is
``laser_train``."""

from __future__ import annotations

import argparse

from voxjudge.cli.bootstrap_options import add_bootstrap_options, bootstrap_kwargs
from voxjudge.cli.common import (
    add_align_limit,
    add_input_options,
    add_normalize_option,
    align_limit,
    print_json,
    progress_bar,
    read_settings,
    refuse_unused,
    warn_leading_ids,
)
from voxjudge.cli.embedder_options import AS_GIVEN, add_embedder_options, embedder_args
from voxjudge.cli.judge_options import finish, judge_options
from voxjudge.cli.laser_options import add_laser_options, add_llm_labelling_options, refuse_unused_model_options
from voxjudge.cli.report_options import add_report_options, check_report_options, say_written
from voxjudge.cli.views import render_laser
from voxjudge.errors import InputError


def register(cmds) -> None:
    p = cmds.add_parser(
        "score",
        help="LASER rubric scores: graded penalties per word pair, beside WER",
        description="Aligns reference and hypothesis into word pairs, labels every mismatch (no penalty, "
        "minor 0.5, major 1.0) and scores 1 - penalty / reference words (floored at 0), per utterance and "
        "for the corpus (micro: total penalty / total words; macro: mean of utterance scores). Beside the score, "
        "each under its own name: format_errors (pairs that differ only in case or punctuation; not in the "
        "score), laser_calibrated (default judge: a figure fitted to people from the score and, with "
        "--embedder default, SemDist) and, with --embedder, semdist (1 - cosine of the sentence embeddings).",
    )
    p.add_argument("--ref", required=True, help="reference transcripts")
    p.add_argument("--hyp", required=True, help="hypothesis transcripts")
    add_input_options(p)
    add_normalize_option(
        p.add_argument_group("text processing"),
        before=" before alignment",
        why=": the rubric judges case, punctuation and spelling variants itself",
    )
    add_laser_options(
        p,
        exit_note=". Here every item is every utterance with reference words: one whose reference has none has "
        "no LASER score by definition (the score divides by reference words), which the summary's coverage "
        "states, and the exit status stays 0",
    )
    add_llm_labelling_options(p, dry_run="LLM judges and --embedder: ")
    p.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="offline judges: worker processes (default: one per core; no more than one per 2,000 utterances; "
        "results are the same for any N)",
    )
    p.add_argument(
        "--human",
        metavar="FILE",
        help="human scores by id: Pearson/Spearman/Kendall for LASER, laser_calibrated (judges that have "
        "it), 1 - SemDist (with --embedder) and 1 - WER",
    )
    p.add_argument("--human-col", help="score column in --human (default: score)")
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="--human covering only some utterances (a study in progress): agreement over those, coverage "
        "reported first (default: a scored utterance without a human score is an error)",
    )
    add_bootstrap_options(p)  # for the CIs of the agreement with --human
    add_embedder_options(
        p,
        purpose="SemDist per utterance and laser_calibrated with meaning",
        note="; the shipped laser_calibrated was fitted with 'default' only, so any other embedder needs "
        "--calibration FILE fitted with it ('asr train --ratings ... --embedder SPEC --out FILE') or --judge "
        "rules (SemDist without laser_calibrated); with the offline judges only (default, rules, model:PATH): "
        "an LLM judge reads the meaning itself",
        texts=AS_GIVEN + " (as in asr metrics and asr compare)",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="per-utterance results (.jsonl, .json, .csv or .tsv; in .csv and .tsv the pairs are JSON text in "
        "their cell)",
    )
    add_report_options(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_align_limit(p)
    p.set_defaults(func=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import score_files

    files, options = _request(args)
    with align_limit(args):  # a line too long to align is refused when it is reached, before its alignment
        scored = score_files(
            files, args.judge, options, progress=progress_bar, on_read=lambda paired: warn_leading_ids(args, paired)
        )
    return _render(args, scored)


def _request(args: argparse.Namespace):
    """The files to read and write (``LaserFiles``) and the run's ``LaserOptions``, checked."""
    from voxjudge.asr.laser import LaserFiles, LaserOptions, LaserRubric

    boot = bootstrap_kwargs(args)
    _check_human_options(args)
    refuse_unused_model_options(args, embedder=bool(args.embedder))
    if args.jobs is not None and args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    if args.jobs is not None and args.engine == "ray":
        raise InputError("--jobs counts local worker processes; on Ray give --ray-workers N (one CPU each)")
    check_report_options(args)
    files = LaserFiles(
        args.ref,
        args.hyp,
        **read_settings(args),
        normalize=args.normalize,
        human=args.human,
        human_col=args.human_col or "score",
        out=args.out,
        report=args.report,
        figures=args.figures,
    )
    options = LaserOptions(
        lang=args.lang,
        rubric=LaserRubric.load(args.rubric),
        allow_rubric_mismatch=args.allow_rubric_mismatch,
        mode=args.mode,
        batch_size=args.batch_size,
        prefilter=not args.no_prefilter,
        dry_run=args.dry_run,
        llm=judge_options(args),
        jobs=args.jobs,
        allow_partial=args.allow_partial,
        calibration=args.calibration,
        **embedder_args(args),
        **boot,
    )
    return files, options


def _check_human_options(args: argparse.Namespace) -> None:
    """What sets the agreement with --human (its column, partial coverage, the bootstrap of its
    CIs) is refused without --human, not ignored: a run without it computes no agreement."""
    from voxjudge.cli.bootstrap_options import CONFIDENCE, RESAMPLES

    if args.human:
        return
    flags = [
        flag
        for flag, used in (
            ("--human-col", args.human_col is not None),
            ("--allow-partial", args.allow_partial),
            ("--resamples", args.resamples != RESAMPLES),
            ("--confidence", args.confidence != CONFIDENCE),
            ("--bootstrap-seed", args.bootstrap_seed != 0),
        )
        if used
    ]
    rest = "with --human FILE (only the agreement with human scores uses {it}); give --human, or drop {it}"
    refuse_unused(flags, rest, sep=", ")


def _render(args: argparse.Namespace, scored) -> int:
    """The summary (or a dry run's estimate) on stdout; where the report went, notes and the exit
    status for unscored utterances on stderr."""
    result = scored.result
    if result.estimate is not None:
        print_json(result.estimate)
        return 0
    if args.json:
        print_json(result.summary)
    else:
        print(render_laser(result.summary))
    say_written(args, scored.report)
    # (no case/punctuation note: LASER does not count them, and the table shows them as format errors)
    if "llm" not in result.summary:  # an offline judge labels every pair
        return 0
    # Reasons are counted per pair (pairs mode) or utterance (sentence mode) the model left unlabelled.
    unit = "pairs" if args.mode == "pairs" else "utterances"
    reasons = {
        f"{unit} with {k}": n for k, n in ((result.summary.get("llm") or {}).get("unscored_reasons") or {}).items()
    }
    return finish(
        unscored=result.unscored,
        total=len(result.utterances),
        what="utterances",
        reasons=reasons,
        stopped=result.stopped,
        cached=not args.no_cache,
    )
