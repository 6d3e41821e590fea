"""``voxjudge stats agree``: how well a metric agrees with human scores."""

from __future__ import annotations

import argparse

from voxjudge.cli.common import (
    add_bootstrap_options,
    check_bootstrap_options,
    console,
    print_json,
)
from voxjudge.errors import InputError


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
    add_bootstrap_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_agree)


def cmd_agree(args: argparse.Namespace) -> int:
    from voxjudge.io.scores import paired_scores, read_score_file
    from voxjudge.stats.correlation import METHODS, correlate

    methods = [m.strip().lower() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise InputError(f"--methods: unknown {', '.join(unknown) or '(none given)'}; choose from {', '.join(METHODS)}")
    check_bootstrap_options(args)
    metric = read_score_file(args.metric, column=args.metric_col, id_field=args.id_col)
    human = read_score_file(args.human, column=args.human_col, id_field=args.id_col)
    ids, xs, ys = paired_scores(metric, human)
    if len(ids) < 3:
        raise InputError(f"only {len(ids)} matched items; correlation needs at least 3")
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        which = args.metric if len(set(xs)) < 2 else args.human
        raise InputError(f"{which}: all scores are equal, so no correlation can be computed")
    results = correlate(
        xs, ys, methods, n_resamples=args.resamples, confidence=args.confidence, seed=args.bootstrap_seed
    )
    if args.json:
        print_json({"n": len(ids), "correlations": [r.as_dict() for r in results]})
        return 0
    from rich.table import Table

    level = f"{100 * args.confidence:g}%"
    t = Table(title=f"Agreement of {args.metric} with {args.human} on {len(ids)} items")
    for col in ("method", "estimate", f"{level} CI", "p-value"):
        t.add_column(col, justify="left" if col == "method" else "right")
    for r in results:
        t.add_row(r.method, f"{r.estimate:+.4f}", f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]", f"{r.p_value:.3g}")
    con = console()
    with con.capture() as cap:
        con.print(t)
        con.print(f"percentile bootstrap, {args.resamples} resamples, seed {args.bootstrap_seed}")
    print(cap.get().rstrip("\n"))
    return 0
