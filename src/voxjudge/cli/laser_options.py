"""The options every LASER command shares (language, rubric, judge), and how an LLM judge labels
pairs (asr score and asr judge-card)."""

from __future__ import annotations

import argparse

from voxjudge.cli.judge_options import add_dry_run, add_judge_options
from voxjudge.errors import InputError

JUDGE_HELP = (
    "default (offline: rules + the learned model shipped for Hindi), rules (pure rules), model:PATH "
    "(rules + a model from 'asr train'), or an LLM spec (openai/<model>, gemini/<model>, ...)"
)


def add_laser_options(p, *, exit_note: str = "") -> None:
    """--lang, --rubric, the judge and its options (asr score and asr classify); ``exit_note`` as
    ``add_judge_options`` takes it."""
    p.add_argument(
        "--lang",
        type=lang_code,
        help="language: any BCP-47/ISO code (fr, ar, de, ta, zh-Hans ...); one without its own conventions gets "
        "the generic profile (default: decided once for the whole input from its first 1,000 utterances -- "
        "the script, and function words where several languages write it (Latin; Devanagari: hi, mr, ne; "
        "Arabic: ar, fa, ur), Latin text where no language leads (three function words, an eighth of "
        "its words, more than any other) by its word lists; undetermined (und) when nothing tells; "
        "in asr classify a lang column of the pairs file decides per row)",
    )
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    add_judge_options(p, judge=None, exit_note=exit_note)
    p.add_argument("--judge", default="default", metavar="SPEC", help=JUDGE_HELP)
    p.add_argument(
        "--allow-rubric-mismatch",
        action="store_true",
        help="use a learned model even though it was trained under another rubric",
    )
    add_calibration_option(p, named="asr score's summary names the file and its sha256")


def add_calibration_option(p, *, named: str) -> None:
    """--calibration FILE (asr score, asr classify, asr judge-card): a user's calibration file, read
    once and checked whole by ``calibration_file.read_file``; ``named``: where the command names it."""
    p.add_argument(
        "--calibration",
        metavar="FILE",
        type=_file_name,
        help="default and model: judges: a calibration written by 'asr train --ratings/--preferences --out FILE' "
        "(the evidence tiers, and laser_calibrated for each embedder it was fitted with) instead of the shipped "
        "one; the learned model's own language (Hindi for the default judge) keeps the tiers it was trained "
        f"under. {named}",
    )


def add_llm_labelling_options(p, *, dry_run: str = "LLM judges: ") -> None:
    """How an LLM judge labels LASER pairs; shared by asr score and asr judge-card. ``dry_run``:
    which models --dry-run estimates."""
    _add_labelling_options(p)
    add_dry_run(p, dry_run)


def _add_labelling_options(p) -> None:
    p.add_argument(
        "--mode", default="pairs", choices=["pairs", "sentence"], help="LLM judges: pairs (default) or sentence"
    )
    p.add_argument("--batch-size", type=int, default=32, help="pairs per LLM request (default: 32)")
    p.add_argument("--no-prefilter", action="store_true", help="send even rule-certain pairs to the LLM")


def refuse_unused_model_options(args, *, embedder: bool = False) -> None:
    """Options of model calls where the run makes none are refused, not ignored: LLM labelling
    options (--mode, --batch-size, --no-prefilter) with an offline judge, the call options (--rpm,
    --max-cost, ...) when neither the judge nor an embedder calls a model; and --jobs (the offline
    judges' worker processes) with an LLM judge."""
    from voxjudge.asr.laser.judges import is_offline
    from voxjudge.cli.common import given_options, refuse_unused
    from voxjudge.cli.judge_options import add_call_options

    if not is_offline(args.judge):
        if getattr(args, "jobs", None) is not None:
            raise InputError(
                "--jobs counts the offline judges' worker processes; an LLM judge's calls run --concurrency at "
                "a time (drop --jobs)"
            )
        return
    refuse_unused(
        given_options(args, _add_labelling_options),
        f"with an LLM judge (--judge openai/<model>, ...): the offline judge {args.judge!r} asks no model; drop {{it}}",
    )
    refuse_unused(
        [] if embedder else given_options(args, add_call_options),
        f"model calls, and this run makes none (the offline judge {args.judge!r}, no --embedder): give an LLM "
        "judge or --embedder SPEC, or drop {it}",
        verb=("sets", "set"),
    )


def _file_name(name: str) -> str:
    if not name.strip():  # an unset shell variable: never the shipped file in silence
        raise argparse.ArgumentTypeError("needs a file name (empty given)")
    return name


def lang_code(code: str) -> str:
    """--lang as its canonical code; an unknown one is a usage error."""
    from voxjudge.asr.laser.profiles import canonical

    try:
        return canonical(code)
    except InputError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
