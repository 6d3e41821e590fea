"""``voxjudge studio``: collect human judgments in the browser (init, invite, serve, export)."""

from __future__ import annotations

import argparse
import sys

from voxjudge.errors import InputError
from voxjudge.plural import counted
from voxjudge.studio.limits import Limits

TASK_HELP = (
    "asr-sentence (count major/minor/no-penalty errors per sentence pair, LASER rubric), asr-pairs (label "
    "aligned word pairs), breaks (rate a phrase-break annotation 1-5), pairwise (A/B per C1-C4 and overall), "
    "rank (top three of N candidates), mos (ITU-T P.800 ACR 1-5 listening test with training, must-listen, gold "
    "screening)"
)
TASK_NAMES = ["asr-sentence", "asr-pairs", "breaks", "pairwise", "rank", "mos"]


def register(groups) -> None:
    g = groups.add_parser("studio", help="collect human judgments in the browser (needs voxjudge[studio])")
    cmds = g.add_subparsers(dest="command", metavar="<command>", required=True)

    p = cmds.add_parser("init", help="create a study in DIR from items in the evaluators' formats")
    p.add_argument("dir", help="study folder (holds studio.db unless --db is given)")
    p.add_argument("--task", required=True, choices=TASK_NAMES, help=TASK_HELP)
    p.add_argument(
        "--items",
        required=True,
        help="items: pairs/candidates JSONL, hypotheses TSV, word pairs, or a reference file with --hyp",
    )
    p.add_argument("--hyp", help="asr-sentence: hypothesis file matched to --items (the references)")
    p.add_argument("--ids", action="store_true", help="asr-sentence text files are Kaldi 'id text'")
    p.add_argument("--per-item", type=int, default=3, help="annotators per item (default: 3)")
    p.add_argument(
        "--gold",
        help='JSONL of {id, answer}: items with a known answer, shown to everyone (mos: {"id": ..., "answer": '
        '{"score": [1, 2]}} lists the acceptable scores)',
    )
    p.add_argument(
        "--training",
        help="mos: clips rated first by everyone and never counted (same format as --items; optional 'expected' "
        "score and 'explain' text are shown as feedback)",
    )
    p.add_argument(
        "--min-gold",
        type=float,
        help="share of gold items a rater must get right to be kept in the results (default: 1.0 for mos, "
        "0 = no screening otherwise)",
    )
    p.add_argument(
        "--overlap",
        type=float,
        default=0.1,
        help="share of items rated twice before any other item is rated once, so agreement shows early (default: 0.1)",
    )
    p.add_argument("--audio-root", help="folder all audio must lie under (default: the --items file's folder)")
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

    p = cmds.add_parser(
        "serve",
        help="run the web app",
        description="Serves 127.0.0.1 only unless --host and --public say otherwise. For people on other machines "
        "put a TLS proxy in front and pass --behind-proxy --allowed-host NAME, e.g.\n"
        "  voxjudge studio serve study --behind-proxy --allowed-host studio.example.org",
    )
    p.add_argument("dir")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    p.add_argument(
        "--public", action="store_true", help="allow --host beyond loopback (plain HTTP: prefer a TLS proxy)"
    )
    p.add_argument(
        "--behind-proxy",
        action="store_true",
        help="one TLS proxy in front sets X-Forwarded-Proto, -Host and -For: trust the last value of each (the "
        "one the proxy adds; earlier ones come from the client) for the Secure cookie, the host and same-origin "
        "checks and the sign-in throttle (see docs/studio.md)",
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="host name people use to reach the app (repeatable; loopback names are always allowed)",
    )
    p.add_argument("--session-hours", type=float, default=12.0, help="sign-in lifetime (default: 12)")
    d = Limits()
    lim = p.add_argument_group("limits (what one client may cost; refusals are 408/413/415/429 pages)")
    lim.add_argument(
        "--max-body", type=int, default=d.max_body, metavar="BYTES", help=f"request body (default: {d.max_body})"
    )
    lim.add_argument(
        "--header-timeout",
        type=float,
        default=d.header_timeout,
        metavar="S",
        help=f"seconds a connection has to send its request headers (default: {d.header_timeout:g})",
    )
    lim.add_argument(
        "--idle-timeout",
        type=float,
        default=d.idle_timeout,
        metavar="S",
        help=f"seconds a kept-alive connection may idle, or a request body stall (default: {d.idle_timeout:g})",
    )
    lim.add_argument(
        "--max-connections",
        type=int,
        default=d.max_connections,
        metavar="N",
        help=f"open connections (default: {d.max_connections})",
    )
    lim.add_argument(
        "--connections-per-address",
        type=int,
        default=d.connections_per_address,
        metavar="N",
        help=f"open connections from one address, 0 = no own cap; not applied with --behind-proxy (default: "
        f"{d.connections_per_address})",
    )
    lim.add_argument(
        "--sessions-per-person",
        type=int,
        default=d.sessions_per_person,
        metavar="N",
        help=f"live sign-ins per person; a new one ends the oldest (default: {d.sessions_per_person})",
    )
    lim.add_argument(
        "--signins-per-minute",
        type=int,
        default=d.signins_per_minute,
        metavar="N",
        help=f"failed sign-ins (unknown links) one address may make per minute (default: {d.signins_per_minute})",
    )
    p.add_argument("--port", type=int, default=8750)
    p.add_argument("--db", help="database URL (default: DIR/studio.db)")
    p.add_argument("--results", help="a voxjudge results file: the admin page shows its agreement with the humans")
    p.add_argument("--metric-col", help="score field in --results (default: laser for asr-sentence, score for breaks)")
    p.set_defaults(func=cmd_serve)

    p = cmds.add_parser("export", help="write the answers as the evaluators' --human input")
    p.add_argument("dir")
    p.add_argument("--out", required=True, help="output file (.tsv/.csv/.jsonl; pairwise and rank: .jsonl)")
    p.add_argument("--format", choices=["tsv", "csv", "jsonl"], help="default: by the --out suffix")
    p.add_argument("--systems", help="mos: also write MOS per system with 95%% CIs (id = system) to this file")
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
        training=args.training,
        repeats=args.repeats,
        seed=args.seed,
        overlap=args.overlap,
        min_gold=args.min_gold,
        audio_root=args.audio_root,
        db=args.db,
    )
    print(
        f"created {args.dir}/: a {info['task']} study of {counted(info['items'], 'item')}, "
        f"{counted(info['per_item'], 'annotator')} per item, {info['gold']} gold, {info['training']} training, "
        f"{counted(info['repeats'], 'repeat')} per annotator"
    )
    for w in info["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    print(f"next: voxjudge studio invite {args.dir} --annotator NAME")
    return 0


def cmd_invite(args: argparse.Namespace) -> int:
    _need_extra()
    from voxjudge.studio.study import invite

    token, warning = invite(args.dir, args.annotator, admin=args.admin, db=args.db)
    print(f"{args.base_url.rstrip('/')}/{'admin' if args.admin else 'a'}/{token}")
    if warning:
        print(f"note: {warning}", file=sys.stderr)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    _need_extra()
    from voxjudge.studio.app import create_app
    from voxjudge.studio.server import serve
    from voxjudge.studio.study import open_store

    loopback = args.host in ("127.0.0.1", "localhost", "::1") or args.host.startswith("127.")
    if not loopback and not args.public:
        raise InputError(
            f"--host {args.host} makes the studio reachable from other machines; add --public to confirm "
            "(better: keep 127.0.0.1 and put a TLS proxy in front, with --behind-proxy)"
        )
    wildcard = args.host in ("0.0.0.0", "::", "")
    allowed = list(args.allowed_host) + ([] if loopback or wildcard else [args.host])
    if not loopback and not allowed:
        raise InputError(f"--host {args.host}: name the host people will use with --allowed-host NAME")
    limits = Limits(
        max_body=args.max_body,
        header_timeout=args.header_timeout,
        idle_timeout=args.idle_timeout,
        max_connections=args.max_connections,
        connections_per_address=args.connections_per_address,
        sessions_per_person=args.sessions_per_person,
        signins_per_minute=args.signins_per_minute,
    )
    store = open_store(args.dir, args.db)
    app = create_app(
        store,
        results=args.results,
        metric_col=args.metric_col,
        behind_proxy=args.behind_proxy,
        allowed_hosts=allowed,
        session_hours=args.session_hours,
        limits=limits,
    )
    if not loopback:
        print(
            f"warning: serving on {args.host}, reachable from other machines over plain HTTP: answers and sign-in "
            "links cross the network unencrypted unless a TLS proxy is in front (--behind-proxy)",
            file=sys.stderr,
        )
    print(f"voxjudge studio on http://{args.host}:{args.port} (Ctrl-C stops)")
    serve(app, args.host, args.port, limits, behind_proxy=args.behind_proxy)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    _need_extra()
    from voxjudge.studio.study import export_study

    s = export_study(args.dir, args.out, fmt=args.format, db=args.db, systems=args.systems)
    from voxjudge.cli.views import render_studio_export

    print(render_studio_export(s, args.out, args.systems))
    return 0
