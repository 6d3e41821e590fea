"""``voxjudge llm ping`` and ``voxjudge cache stats | clear``."""

from __future__ import annotations

import argparse
import json
import math
import time

from voxjudge.cli.common import alias, print_json
from voxjudge.cli.judge_options import (
    EXIT_INCOMPLETE,
    EXIT_STATUS_HELP,
    add_judge_options,
    finish,
    make_judge,
    say_notices,
)
from voxjudge.plural import counted

PING_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean", "enum": [True]}},  # {"ok": false} is not a valid answer
    "required": ["ok"],
    "additionalProperties": False,
}


def register(groups) -> None:
    llm = groups.add_parser("llm", help="model judges: check that one answers")
    cmds = llm.add_subparsers(dest="command", metavar="<command>", required=True)
    p = cmds.add_parser(
        "ping",
        help='one cheap call: latency and whether structured output works (exit 0 when it answers {"ok": true})',
        description='Sends one tiny request that asks for {"ok": true} as structured output, bypassing '
        'the cache. Exit status: 0 when the judge answered {"ok": true}; 2 for a bad spec, a missing '
        "API key or SDK; 3 when it did not answer validly (no answer, another answer, or a server "
        "that cannot be reached: the reason is printed, at once for a refused connection).",
    )
    add_judge_options(p, judge=None)
    p.add_argument("--judge", metavar="SPEC", help="provider/model, e.g. openai/gpt-4o-mini or fake/schema (required)")
    # The judge used to be positional ('llm ping SPEC'); that spelling still works, unlisted.
    p.add_argument("judge_positional", nargs="?", metavar="JUDGE", help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_ping, no_cache=True)

    p = cmds.add_parser(
        "run",
        help="send a JSONL file of prompts through a judge (cache, limits, retries, accounting)",
        description="Each input line is an object with 'id' and 'prompt', optionally 'system' and 'audio' "
        "(a path or a list of paths to wav/mp3 files). Answers are validated against --schema when given. "
        "Rerunning the same command is served from the cache; --dry-run shows the cost first (no key needed). "
        + EXIT_STATUS_HELP
        + ".",
    )
    p.add_argument("prompts", metavar="PROMPTS.jsonl", help="one prompt object per line")
    add_judge_options(p)
    p.add_argument("--schema", metavar="FILE", help="JSON Schema every answer must satisfy")
    p.add_argument("--n", type=int, default=1, help="samples per prompt (default: 1)")
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default: 0)")
    p.add_argument("--sampling-seed", dest="seed", type=int, default=0, help="sampling seed (default: 0)")
    alias(p, "--sampling-seed", "--seed")
    p.add_argument("--max-tokens", type=int, default=1024, help="answer length limit (default: 1024)")
    p.add_argument("--dry-run", action="store_true", help="estimate requests, tokens and cost; send nothing")
    p.add_argument("--out", metavar="FILE", help="write answers to FILE (.jsonl, .json); default: stdout JSONL")
    p.set_defaults(func=cmd_run)

    cache = groups.add_parser("cache", help="the model response cache")
    ccmds = cache.add_subparsers(dest="command", metavar="<command>", required=True)
    for name, helptext in (
        ("stats", "entries and size per judge and embedder"),
        ("clear", "delete cached responses and vectors"),
    ):
        c = ccmds.add_parser(name, help=helptext)
        c.add_argument("--cache", metavar="PATH", help="cache file (default: $VOXJUDGE_CACHE or the user cache dir)")
        if name == "clear":
            c.add_argument("--judge", metavar="SPEC", help="only this provider/model (a judge or an embedder)")
        c.add_argument("--json", action="store_true", help="print JSON")
        c.set_defaults(func=cmd_cache)


def cmd_ping(args: argparse.Namespace) -> int:
    from voxjudge.errors import InputError
    from voxjudge.llm import Request

    if args.judge and args.judge_positional and args.judge != args.judge_positional:
        raise InputError(
            f"llm ping checks one judge: got --judge {args.judge} and {args.judge_positional}; give one of them"
        )
    if args.cache:
        raise InputError("llm ping never reads or writes the cache (its one request bypasses it); drop --cache")
    args.no_cache = True
    args.judge = args.judge or args.judge_positional
    if not args.judge:
        raise InputError("llm ping needs --judge SPEC, e.g. --judge fake/schema")
    if args.engine == "ray":
        raise InputError("llm ping sends its one request from this process; --engine ray is for runs (drop it)")
    judge = make_judge(args)
    request = Request.simple(
        'Reply with the JSON object {"ok": true} and nothing else.',
        schema=PING_SCHEMA,
        schema_name="ping",
        max_tokens=32,
        template="voxjudge-ping-v1",
    )
    from voxjudge.llm import BudgetExceeded, Response

    start = time.perf_counter()
    try:
        response = judge.complete_sync(request, item_id="ping")[0]
    except BudgetExceeded:
        # Not sent: the one request's worst case is over the limit (a rerun would stop alike).
        error = f"not sent: its worst-case cost is over --max-cost {args.max_cost:g} USD"
        response = Response("", error=error)
    finally:
        judge.close()
    say_notices()
    ok = response.ok and response.parsed == {"ok": True}
    error = response.error
    if response.ok and not ok:
        error = f'answered {response.text.strip()[:80]!r}, not the {{"ok": true}} asked for'
    result = {
        "judge": judge.spec.full_name,
        "base_url": judge.spec.base_url,
        "ok": ok,  # the judge answered validly: exactly what was asked
        "latency_seconds": round(time.perf_counter() - start, 3),
        "structured_output": response.parsed is not None,
        "server_enforced_schema": response.structured,
        "answer": response.text[:200],
        "error": error,
        "usage": judge.meter.as_dict(),
    }
    if args.json:
        print_json(result)
    elif ok:
        how = "enforced by the server" if response.structured else "parsed from text"
        print(f"{judge.spec.name}: answered in {result['latency_seconds']:.3f}s; structured output works ({how})")
    else:
        print(f"{judge.spec.name}: failed after {result['latency_seconds']:.3f}s: {error}")
    return 0 if ok else EXIT_INCOMPLETE


def _read_schema(path: str):
    """The answer schema of --schema, checked before anything is sent: a file that is not a JSON
    Schema object answers can be validated against is one line, not a traceback mid-run."""
    from voxjudge.errors import InputError
    from voxjudge.io.readers import read_json
    from voxjudge.llm.parse import InvalidSchema, check_schema

    schema = read_json(path, "schema file")
    try:
        check_schema(schema)
    except InvalidSchema as e:
        raise InputError(f"{path}: not a usable JSON Schema ({e})") from None
    return schema


def _check_call_settings(args: argparse.Namespace) -> None:
    from voxjudge.errors import InputError

    if args.n < 1:
        raise InputError("--n must be at least 1")
    if args.max_tokens < 1:
        raise InputError(f"--max-tokens must be at least 1 (got {args.max_tokens})")
    if not math.isfinite(args.temperature) or args.temperature < 0:
        raise InputError(f"--temperature must be a number of 0 or more (got {args.temperature:g})")


def _blank(path) -> bool:
    """Whether a file holds nothing but white space (read until its first other byte)."""
    with open(path, "rb") as f:
        while chunk := f.read(1 << 16):
            if chunk.strip():
                return False
    return True


def _read_prompts(path: str, args: argparse.Namespace):
    from pathlib import Path

    from voxjudge.errors import InputError
    from voxjudge.io.readers import jsonl_objects
    from voxjudge.llm import AudioPart, Message, Request, TextPart

    schema = _read_schema(args.schema) if args.schema else None
    _check_call_settings(args)
    expected = "expected one JSON object per line with 'id' and 'prompt'"
    source = Path(path)
    if source.is_file() and _blank(source):  # (the reader would say "one utterance per line")
        raise InputError(f"{path}: no prompts, the file is empty; {expected}")
    objects = jsonl_objects(path)
    if not objects:
        raise InputError(f"{path}: no prompts, only blank lines; {expected}")
    items, seen = [], {}
    base = source.parent
    for n, obj in objects:
        uid, prompt, system = obj.get("id"), obj.get("prompt"), obj.get("system")
        if not isinstance(prompt, str) or "id" not in obj:
            raise InputError(f"{path}:{n}: each line needs an 'id' and a string 'prompt'")
        if isinstance(uid, float) and uid.is_integer():  # 1.0 is the whole number 1
            uid = int(uid)
        if isinstance(uid, bool) or not isinstance(uid, (str, int)) or uid == "":
            raise InputError(f"{path}:{n}: 'id' must be a non-empty string or a whole number, not {json.dumps(uid)}")
        uid = str(uid)
        if uid in seen:
            raise InputError(f"{path}:{n}: duplicate id {uid!r} (first on line {seen[uid]})")
        seen[uid] = n
        if system is not None and not isinstance(system, str):
            raise InputError(f"{path}:{n}: 'system' must be a string, not {type(system).__name__}")
        audio = obj.get("audio")
        paths = [] if audio is None else [audio] if isinstance(audio, str) else audio
        if not isinstance(paths, list) or not all(isinstance(a, str) and a for a in paths):
            raise InputError(f"{path}:{n}: 'audio' must be a file path or a list of file paths")
        try:
            clips = tuple(AudioPart.from_path(base / a) for a in paths)
        except InputError as e:
            raise InputError(f"{path}:{n}: {e}") from None
        messages = ((Message.text("system", system),) if system else ()) + (
            Message("user", (TextPart(prompt), *clips)),
        )
        request = Request(
            messages,
            schema=schema,
            temperature=args.temperature,
            seed=args.seed,
            max_tokens=args.max_tokens,
            n=args.n,
            template="voxjudge-llm-run",
        )
        items.append((uid, request))
    return items


def cmd_run(args: argparse.Namespace) -> int:
    import sys

    from voxjudge.cli.common import check_outputs, progress_bar, write_out

    check_outputs(records=[args.out])
    items = _read_prompts(args.prompts, args)
    judge = make_judge(args)
    try:
        if args.dry_run:
            estimate = judge.estimate([r for _, r in items])
            print_json(estimate)
            return 0
        with progress_bar(f"asking {judge.spec.name}") as progress:
            results = judge.run(judge.complete_many(items, progress=progress))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: say what the stopped run kept, then stop as usual
        _say_kept(judge, len(items), sys.stderr)
        raise
    finally:
        judge.close()
    records = []
    for (uid, _), responses in zip(items, results):
        if responses is None:
            continue
        records.append(
            {
                "id": uid,
                "samples": [
                    {"text": r.text, "parsed": r.parsed, "error": r.error, "cache_hit": r.cache_hit} for r in responses
                ],
            }
        )
    if args.out:
        write_out(args.out, records)
    else:
        for rec in records:
            sys.stdout.write(json.dumps(rec, ensure_ascii=False) + "\n")
    usage = judge.meter.as_dict()
    unscored = sum(1 for rec in records for smp in rec["samples"] if smp["error"])
    cost = "unknown" if usage["cost_usd"] is None else f"{usage['cost_usd']:.4f} USD"
    print(
        f"{judge.spec.full_name}: {len(records)}/{counted(len(items), 'item')}, "
        f"{counted(usage['requests'], 'request')}, {counted(usage['cache_hits'], 'cache hit')}, "
        f"{counted(usage['retries'], 'retry')}, {counted(unscored, 'unscored sample')}, "
        f"{usage['input_tokens']}+{usage['output_tokens']} tokens, cost {cost}",
        file=sys.stderr,
    )
    from voxjudge.llm.advice import NOT_ASKED, reason_key

    reasons: dict[str, int] = {}
    for rec in records:
        for smp in rec["samples"]:
            if smp["error"]:
                key = reason_key(smp["error"])
                reasons[key] = reasons.get(key, 0) + 1
    not_asked = sum(r.n for (_, r), res in zip(items, results) if res is None)
    if not_asked:
        reasons[NOT_ASKED] = not_asked
    return finish(
        unscored=unscored + not_asked,
        total=sum(r.n for _, r in items),
        what="samples",
        reasons=reasons,
        stopped=judge.stop_reason,
        cached=not args.no_cache,
        varies=("temperature", "sampling_seed"),
        sampled=args.temperature > 0,
    )


def _say_kept(judge, items: int, stream) -> None:
    """On an interrupted run: how many answers came back before the stop, and where they are kept."""
    usage = judge.meter
    kept = (
        f"the server's answers are in the cache ({judge.cache.path}): rerunning the same command asks only for the rest"
        if judge.cache is not None
        else "with --no-cache the server's answers were not kept"
    )
    print(
        f"voxjudge: llm run stopped before the end of its {counted(items, 'prompt')}: by then "
        f"{counted(usage.requests, 'call')} had been answered by the server and "
        f"{counted(usage.cache_hits, 'answer')} taken from the cache; {kept}",
        file=stream,
    )


def cmd_cache(args: argparse.Namespace) -> int:
    from pathlib import Path

    from voxjudge.llm.cache import Cache, default_cache_path

    path = Path(args.cache) if args.cache else default_cache_path()
    if not path.exists():
        # Opening it would create an empty cache (and its folders): a mistyped path would then
        # read as "0 responses, 0.06 MB" instead of saying that no cache is there.
        if args.command == "clear":
            out = {"path": str(path), "removed": 0, "judge": args.judge, "exists": False}
        else:
            out = {"path": str(path), "entries": 0, "vectors": 0, "bytes": 0, "judges": [], "embedders": []}
            out["exists"] = False
        if args.json:
            print_json(out)
        else:
            nothing = "; nothing to clear" if "removed" in out else ""
            print(f"no cache at {path}: nothing has been cached there{nothing}")
        return 0
    cache = Cache(path)
    try:
        if args.command == "clear":
            removed = cache.clear(args.judge)
            out = {"path": str(path), "removed": removed, "judge": args.judge}
            if args.json:
                print_json(out)
                return 0
            print(f"removed {removed} cached responses and vectors from {path}")
            if args.judge and "?" in args.judge and removed:
                print("(the cache keeps a model's entries together: every option's of this model were removed)")
            if args.judge and not removed:
                stats = cache.stats()
                held = [j["judge"] for j in stats["judges"]] + [e["embedder"] for e in stats["embedders"]]
                print(f"nothing was cached for {args.judge}; the cache holds: {', '.join(held) or 'nothing'}")
            return 0
        stats = cache.stats()
    finally:
        cache.close()
    if args.json:
        print_json(stats)
        return 0
    print(f"{stats['path']}: {stats['entries']} responses, {stats['vectors']} vectors, {stats['bytes'] / 1e6:.2f} MB")
    for j in stats["judges"]:
        oldest = time.strftime("%Y-%m-%d", time.localtime(j["oldest"]))
        newest = time.strftime("%Y-%m-%d", time.localtime(j["newest"]))
        print(f"  {j['judge']}: {j['entries']} ({oldest} .. {newest})")
    for e in stats["embedders"]:
        oldest = time.strftime("%Y-%m-%d", time.localtime(e["oldest"]))
        newest = time.strftime("%Y-%m-%d", time.localtime(e["newest"]))
        print(f"  {e['embedder']}: {e['vectors']} vectors ({oldest} .. {newest})")
    return 0
