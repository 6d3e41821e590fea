"""The bootstrap options every command that computes bootstrap intervals shares (``asr score
--human``, ``asr compare``, ``breaks score``, ``pairwise compare``, ``stats agree``): defined here
once, so they are spelt, defaulted and checked the same everywhere."""

from __future__ import annotations

import argparse

from voxjudge.errors import InputError

RESAMPLES = 10_000
CONFIDENCE = 0.95


def add_bootstrap_options(p: argparse.ArgumentParser) -> None:
    """``--resamples``, ``--confidence`` and ``--bootstrap-seed`` (also accepted as ``--seed``,
    its older spelling, on commands where ``--seed`` means nothing else)."""
    g = p.add_argument_group("bootstrap", "percentile bootstrap over items, seeded: the same seed gives the same CIs")
    g.add_argument(
        "--resamples", type=int, default=RESAMPLES, metavar="N", help=f"bootstrap resamples (default: {RESAMPLES})"
    )
    g.add_argument(
        "--confidence",
        type=float,
        default=CONFIDENCE,
        metavar="LEVEL",
        help=f"confidence level of the intervals (default: {CONFIDENCE})",
    )
    g.add_argument(
        "--bootstrap-seed", dest="bootstrap_seed", type=int, default=0, metavar="N", help="bootstrap seed (default: 0)"
    )
    if "--seed" not in p._option_string_actions:  # noqa: SLF001 - argparse's option table
        # The older spelling keeps working in scripts, unlisted in --help.
        p._option_string_actions["--seed"] = p._option_string_actions["--bootstrap-seed"]  # noqa: SLF001


def bootstrap_kwargs(args: argparse.Namespace) -> dict:
    """The checked options as the library's keyword arguments."""
    if args.resamples < 1:
        raise InputError("--resamples must be at least 1")
    if not 0 < args.confidence < 1:
        raise InputError("--confidence must be between 0 and 1, e.g. 0.95")
    return {"n_resamples": args.resamples, "confidence": args.confidence, "seed": args.bootstrap_seed}


def check_bootstrap_options(args: argparse.Namespace) -> None:
    bootstrap_kwargs(args)
