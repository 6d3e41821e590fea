"""``voxjudge stats agree``: how well a metric agrees with human scores."""

from __future__ import annotations

import argparse

from voxjudge.cli.common import add_bootstrap_options, check_bootstrap_options, print_json


def register(groups) -> None:
    stats = groups.add_parser("stats", help="agreement statistics")
    cmds = stats.add_subparsers(dest="command", metavar="<command>", required=True)
    p = cmds.add_parser(
        "agree",
        help="Pearson, Spearman and Kendall correlation of a metric with human scores, with bootstrap CIs",
        description="Scores are matched by id. Files may be 'id score' text, TSV/CSV with a header, or JSONL; "
        "plain text with one number per line is matched by line. Point estimates and p-values are "
        "scipy's; intervals are percentile bootstrap over items.",
    )
    p.add_argument("--metric", required=True, help="metric scores per item")
    p.add_argument("--human", required=True, help="human scores per item")
    p.add_argument("--metric-col", default="score", help="score column/field in the metric file (default: score)")
    p.add_argument("--human-col", default="score", help="score column/field in the human file (default: score)")
    p.add_argument("--id-col", default="id", help="id column/field (default: id)")
    p.add_argument("--methods", default="pearson,spearman,kendall", help="comma-separated correlation methods")
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="files with ids: use the ids both files have and report the coverage (default: an id in one "
        "file only is an error; files with no id in common are refused either way)",
    )
    add_bootstrap_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_agree)


def cmd_agree(args: argparse.Namespace) -> int:
    from voxjudge.cli.views import render_stats_agree
    from voxjudge.stats.agree_files import agree_files

    check_bootstrap_options(args)
    result = agree_files(
        args.metric,
        args.human,
        methods=args.methods.split(","),
        metric_col=args.metric_col,
        human_col=args.human_col,
        id_col=args.id_col,
        allow_partial=args.allow_partial,
        n_resamples=args.resamples,
        confidence=args.confidence,
        seed=args.bootstrap_seed,
    )
    print_json(result.view()) if args.json else print(render_stats_agree(result))
    return 0
