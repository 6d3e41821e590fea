"""Entry point: ``voxjudge <group> <command>``. Input errors become one line and exit status 2."""

from __future__ import annotations

import argparse
import os
import sys

from voxjudge import __version__
from voxjudge.errors import InputError

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    from voxjudge.cli import asr, breaks, demo, llm, pairwise, stats, studio

    parser = argparse.ArgumentParser(
        prog="voxjudge",
        description="Evaluate speech systems the way careful human raters would.",
        epilog="Run 'voxjudge <command> --help' for the options of each command.",
    )
    parser.add_argument("--version", action="version", version=f"voxjudge {__version__}")
    groups = parser.add_subparsers(dest="group", metavar="<command>", required=True)
    asr.register(groups)
    breaks.register(groups)
    pairwise.register(groups)
    stats.register(groups)
    llm.register(groups)
    demo.register(groups)
    studio.register(groups)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InputError as e:
        from voxjudge.cli.wording import worded

        print(f"voxjudge: error: {worded(e)}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("voxjudge: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. piped into head); not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
