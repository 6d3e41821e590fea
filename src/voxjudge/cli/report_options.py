"""``--report FILE`` and ``--figures DIR``, the same on every evaluator with a summary: checked
before any work, written with the command's other outputs (whole or none), and where they went
said on stderr."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from voxjudge.errors import InputError


def add_report_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--report", metavar="FILE", help="self-contained HTML report: summary, charts, inputs with sha256, settings"
    )
    p.add_argument(
        "--figures", metavar="DIR", help="write every chart of the report as PDF and PNG into DIR (for papers)"
    )


def wants_report(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "report", None) or getattr(args, "figures", None))


def check_report_options(args: argparse.Namespace) -> None:
    """Before any work: matplotlib is there and the figures directory can be written (or made)."""
    if not wants_report(args):
        return
    from voxjudge.report.charts import require_matplotlib

    require_matplotlib()
    if args.figures:
        target = Path(args.figures)
        if target.exists() and not target.is_dir():
            raise InputError(f"{target}: exists and is not a directory; --figures needs a directory")
        parent = target if target.exists() else target.parent
        if not parent.is_dir():
            raise InputError(f"{target}: directory {parent} does not exist; create it first")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise InputError(f"{target}: cannot write in {parent} (permission denied)")


def report_outputs(args: argparse.Namespace, report) -> dict[str, str | bytes]:
    """``{path: content}`` of the report and its figures, for ``write_all`` (the figures
    directory is made here, just before writing)."""
    return {} if report is None else report.outputs(args.report, args.figures)


def say_written(args: argparse.Namespace, report) -> None:
    from voxjudge.cli.views import render_written

    line = render_written(args.report, args.figures, report)
    if line:
        print(line, file=sys.stderr)
