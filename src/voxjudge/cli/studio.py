"""``voxjudge studio``: collect human judgments in the browser (init, invite, serve, export)."""

from __future__ import annotations

import argparse

from voxjudge.errors import InputError
from voxjudge.plural import counted

TASK_HELP = (
    "asr-sentence (count major/minor/no-penalty errors per sentence pair, LASER rubric), asr-pairs (label "
    "aligned word pairs), breaks (rate a phrase-break annotation 1-5), pairwise (A/B per C1-C4 and overall), "
    "rank (top three of N candidates)"
)


def register(groups) -> None:
    g = groups.add_parser("studio", help="collect human judgments in the browser (needs voxjudge[studio])")
    cmds = g.add_subparsers(dest="command", metavar="<command>", required=True)

    p = cmds.add_parser("init", help="create a study in DIR from items in the evaluators' formats")
    p.add_argument("dir", help="study folder (holds studio.db unless --db is given)")
    p.add_argument(
        "--task", required=True, choices=["asr-sentence", "asr-pairs", "breaks", "pairwise", "rank"], help=TASK_HELP
    )
    p.add_argument(
        "--items",
        required=True,
        help="items: pairs/candidates JSONL, hypotheses TSV, word pairs, or a reference file with --hyp",
    )
    p.add_argument("--hyp", help="asr-sentence: hypothesis file matched to --items (the references)")
    p.add_argument("--ids", action="store_true", help="asr-sentence text files are Kaldi 'id text'")
    p.add_argument("--per-item", type=int, default=3, help="annotators per item (default: 3)")
    p.add_argument("--gold", help="JSONL of {id, answer}: items with a known answer, shown to everyone")
    p.add_argument("--repeats", type=int, default=0, help="items each annotator sees twice (self-consistency)")
    p.add_argument(
        "--order-seed", dest="seed", type=int, default=0, help="seed for item order and A/B order (default: 0)"
    )
    p.add_argument("--db", help="database URL instead of DIR/studio.db, e.g. postgresql+psycopg://user@host/db")
    p.set_defaults(func=cmd_init)

    p = cmds.add_parser("invite", help="add an annotator (or an admin) and print their personal link")
    p.add_argument("dir")
    p.add_argument("--annotator", required=True, metavar="NAME", help="the person's name (shown to the admin)")
    p.add_argument("--admin", action="store_true", help="an admin link (progress, agreement) instead")
    p.add_argument("--base-url", default="http://127.0.0.1:8750", help="where the app is served")
    p.add_argument("--db", help="database URL (default: DIR/studio.db)")
    p.set_defaults(func=cmd_invite)

    p = cmds.add_parser("serve", help="run the web app")
    p.add_argument("dir")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8750)
    p.add_argument("--db", help="database URL (default: DIR/studio.db)")
    p.add_argument("--results", help="a voxjudge results file: the admin page shows its agreement with the humans")
    p.add_argument("--metric-col", help="score field in --results (default: laser, best_score or score)")
    p.set_defaults(func=cmd_serve)

    p = cmds.add_parser("export", help="write the answers as the evaluators' --human input")
    p.add_argument("dir")
    p.add_argument("--out", required=True, help="output file (.tsv/.csv/.jsonl; pairwise and rank: .jsonl)")
    p.add_argument("--format", choices=["tsv", "csv", "jsonl"], help="default: by the --out suffix")
    p.add_argument("--db", help="database URL (default: DIR/studio.db)")
    p.set_defaults(func=cmd_export)


def _need_extra() -> None:
    try:
        import jinja2  # noqa: F401
        import sqlalchemy  # noqa: F401
        import starlette  # noqa: F401
    except ImportError as e:
        missing = e.name
        raise InputError(f"voxjudge studio needs: pip install 'voxjudge[studio]' ({missing} is missing)") from None


def cmd_init(args: argparse.Namespace) -> int:
    _need_extra()
    from voxjudge.studio.study import init_study

    info = init_study(
        args.dir,
        args.task,
        args.items,
        per_item=args.per_item,
        hyp=args.hyp,
        ids=args.ids,
        gold=args.gold,
        repeats=args.repeats,
        seed=args.seed,
        db=args.db,
    )
    print(
        f"created {args.dir}/: a {info['task']} study of {counted(info['items'], 'item')}, "
        f"{counted(info['per_item'], 'annotator')} per item, {info['gold']} gold, "
        f"{counted(info['repeats'], 'repeat')} per annotator"
    )
    print(f"next: voxjudge studio invite {args.dir} --annotator NAME")
    return 0


def cmd_invite(args: argparse.Namespace) -> int:
    _need_extra()
    from voxjudge.studio.study import invite

    token = invite(args.dir, args.annotator, admin=args.admin, db=args.db)
    print(f"{args.base_url.rstrip('/')}/{'admin' if args.admin else 'a'}/{token}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    _need_extra()
    import uvicorn

    from voxjudge.studio.app import create_app
    from voxjudge.studio.study import open_store

    store = open_store(args.dir, args.db)
    app = create_app(store, results=args.results, metric_col=args.metric_col)
    print(f"voxjudge studio on http://{args.host}:{args.port} (Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    _need_extra()
    from voxjudge.studio.study import export_study

    s = export_study(args.dir, args.out, fmt=args.format, db=args.db)
    print(
        f"wrote {s['written']} of {s['items']} items to {args.out}"
        + (f"; {len(s['unresolved'])} without agreement: {', '.join(s['unresolved'][:5])}" if s["unresolved"] else "")
    )
    return 0
