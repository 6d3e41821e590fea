"""``voxjudge llm ping`` and ``voxjudge cache stats | clear``."""

from __future__ import annotations

import argparse
import time

from voxjudge.cli.common import print_json
from voxjudge.cli.judge_options import add_judge_options, make_judge

PING_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}


def register(groups) -> None:
    llm = groups.add_parser("llm", help="model judges: check that one answers")
    cmds = llm.add_subparsers(dest="command", metavar="<command>", required=True)
    p = cmds.add_parser(
        "ping",
        help="one cheap call: latency and whether structured output works (exit 0 on success)",
        description='Sends one tiny request that asks for {"ok": true} as structured output, bypassing '
        "the cache. Exit status 0 when the judge answered, 1 when the call failed, 2 for a bad "
        "spec or a missing API key.",
    )
    add_judge_options(p, require_judge=True)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_ping, no_cache=True)

    cache = groups.add_parser("cache", help="the model response cache")
    ccmds = cache.add_subparsers(dest="command", metavar="<command>", required=True)
    for name, helptext in (("stats", "entries and size per judge"), ("clear", "delete cached responses")):
        c = ccmds.add_parser(name, help=helptext)
        c.add_argument("--cache", metavar="PATH", help="cache file (default: $VOXJUDGE_CACHE or the user cache dir)")
        if name == "clear":
            c.add_argument("--judge", metavar="SPEC", help="only this provider/model")
        c.add_argument("--json", action="store_true", help="print JSON")
        c.set_defaults(func=cmd_cache)


def cmd_ping(args: argparse.Namespace) -> int:
    from voxjudge.llm import Request

    args.no_cache = True
    judge = make_judge(args)
    request = Request.simple(
        'Reply with the JSON object {"ok": true} and nothing else.',
        schema=PING_SCHEMA,
        schema_name="ping",
        max_tokens=32,
        template="voxjudge-ping-v1",
    )
    start = time.perf_counter()
    try:
        response = judge.complete_sync(request, item_id="ping")[0]
    finally:
        judge.close()
    result = {
        "judge": judge.spec.name,
        "base_url": judge.spec.base_url,
        "ok": response.ok,
        "latency_seconds": round(time.perf_counter() - start, 3),
        "structured_output": response.parsed is not None,
        "server_enforced_schema": response.structured,
        "answer": response.text[:200],
        "error": response.error,
        "usage": judge.meter.as_dict(),
    }
    if args.json:
        print_json(result)
    elif response.ok:
        how = "enforced by the server" if response.structured else "parsed from text"
        print(f"{judge.spec.name}: answered in {result['latency_seconds']:.3f}s; structured output works ({how})")
    else:
        print(f"{judge.spec.name}: failed after {result['latency_seconds']:.3f}s: {response.error}")
    return 0 if response.ok else 1


def cmd_cache(args: argparse.Namespace) -> int:
    from voxjudge.llm.cache import Cache, default_cache_path

    path = args.cache or default_cache_path()
    cache = Cache(path)
    try:
        if args.command == "clear":
            removed = cache.clear(args.judge)
            out = {"path": str(path), "removed": removed, "judge": args.judge}
            print_json(out) if args.json else print(f"removed {removed} cached responses from {path}")
            return 0
        stats = cache.stats()
    finally:
        cache.close()
    if args.json:
        print_json(stats)
        return 0
    print(f"{stats['path']}: {stats['entries']} responses, {stats['bytes'] / 1e6:.2f} MB")
    for j in stats["judges"]:
        oldest = time.strftime("%Y-%m-%d", time.localtime(j["oldest"]))
        newest = time.strftime("%Y-%m-%d", time.localtime(j["newest"]))
        print(f"  {j['judge']}: {j['entries']} ({oldest} .. {newest})")
    return 0
