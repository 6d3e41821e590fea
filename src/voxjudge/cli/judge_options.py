"""Options every model-judged command shares, building a ``Judge`` from them, and the shared
end of a judged run: notices, and the "incomplete" exit status."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from voxjudge.cli.common import refuse_unused
from voxjudge.cli.wording import worded
from voxjudge.plural import counted

EXIT_INCOMPLETE = 3
EXIT_STATUS_HELP = (
    "exit status: 0 when every item was scored; 2 for bad input or a judge that cannot be used "
    "(spec, key, missing SDK); 3 when the run is incomplete (items unscored, --max-cost reached, or a server "
    "that cannot be reached, which stops the run at once): rerunning the same command resumes what failed "
    "or was not asked; answers already received, usable or not, come from the cache (stderr says which)"
)


def add_judge_options(p: argparse.ArgumentParser, *, judge: str | None = "option", exit_note: str = "") -> None:
    """``judge``: "positional" (JUDGE), "option" (a required --judge) or None (the command adds its own);
    ``exit_note``: what this command adds to the exit status help."""
    g = p.add_argument_group("model judge", EXIT_STATUS_HELP + exit_note)
    spec_help = (
        "provider/model, e.g. openai/gpt-4o-mini, anthropic/<model>, gemini/<model>, local/<file.gguf>, "
        "vllm/<model>, fake/schema"
    )
    if judge == "positional":
        g.add_argument("judge", metavar="JUDGE", help=spec_help)
    elif judge == "option":
        g.add_argument("--judge", required=True, metavar="SPEC", help=spec_help)
    g.add_argument("--base-url", metavar="URL", help="an OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio)")
    g.add_argument(
        "--cache",
        metavar="PATH",
        help="cache of model answers and embeddings (default: $VOXJUDGE_CACHE or the user cache dir)",
    )
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the cache (answers and embeddings)")
    add_call_options(g)
    add_engine_options(
        g,
        "model calls, whose --rpm, --tpm, --concurrency and --max-cost then hold for the whole cluster, and for "
        "asr score with an offline judge the corpus's chunks (the same records, byte for byte)",
        workers="judge actors on Ray; an offline judge's actors take one CPU each",
    )
    g.add_argument(
        "--ray-shards",
        metavar="DIR",
        help="where Ray workers write results as they complete, for a rerun to resume from "
        "(default: ray-shards beside the cache; removed when a run completes; safe to delete)",
    )


def add_call_options(g) -> None:
    """How model calls are made and paid for: concurrency, rate limits, retries, timeout, cost
    limit, prices and the call log. A judge's group has them, and so has a command's embedder
    (``embedder_options.add_embedder_limits``): one definition, one meaning (``judge_options``)."""
    g.add_argument("--concurrency", type=int, default=8, help="requests in flight at once (default: 8)")
    g.add_argument("--rpm", type=float, metavar="N", help="client-side limit: requests per minute")
    g.add_argument("--tpm", type=float, metavar="N", help="client-side limit: tokens per minute")
    g.add_argument("--max-retries", type=int, default=6, help="retries on 429/5xx/timeouts (default: 6)")
    g.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one answer (default: 120)")
    g.add_argument("--max-cost", type=float, metavar="USD", help="stop cleanly before spending more than this")
    g.add_argument("--prices", metavar="FILE", help="price table JSON overriding the shipped one")
    g.add_argument("--log", metavar="FILE", help="append one JSONL record per model call to FILE")


def add_engine_options(g, work: str, *, workers: str) -> None:
    """--engine, --ray-address and --ray-workers; ``work``: what runs on Ray, ``workers``: the help
    of --ray-workers."""
    g.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help=f"where the work runs: this process (default) or a Ray cluster (pip install 'voxjudge[ray]'): {work}",
    )
    g.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="Ray cluster to join, e.g. auto after `ray start --head` (default: RAY_ADDRESS, else a Ray "
        "`ray start` left running on this machine, else one started here and stopped at the end)",
    )
    g.add_argument("--ray-workers", type=int, default=None, metavar="N", help=workers + " (default: 2)")


def ray_workers(args: argparse.Namespace) -> int:
    """--ray-workers, checked: 2 unless given; it, --ray-address and --ray-shards with Ray only
    (refused, not ignored, without it)."""
    from voxjudge.llm.errors import ConfigError

    given = {
        "--ray-address": getattr(args, "ray_address", None),
        "--ray-workers": getattr(args, "ray_workers", None),
        "--ray-shards": getattr(args, "ray_shards", None),
    }
    if getattr(args, "engine", "local") != "ray":
        named = [flag for flag, value in given.items() if value is not None]
        refuse_unused(named, "with --engine ray", error=ConfigError)
        return 2
    workers = 2 if given["--ray-workers"] is None else given["--ray-workers"]
    if workers < 1:
        raise ConfigError("--ray-workers must be at least 1")
    return workers


def add_dry_run(g, who: str = "", what: str = "requests, tokens and cost") -> None:
    """--dry-run: estimate, send nothing, need no key; ``who``: which models it covers."""
    g.add_argument("--dry-run", action="store_true", help=f"{who}estimate {what}; send nothing (no key)")


def judge_options(args: argparse.Namespace, *, default_log: str | Path | None = None):
    """The checked judge flags as one ``JudgeOptions`` (the library builds the judge from it)."""
    from voxjudge.llm.errors import ConfigError
    from voxjudge.llm.options import JudgeOptions

    if args.concurrency < 1:
        raise ConfigError("--concurrency must be at least 1")
    if args.max_retries < 0:
        raise ConfigError("--max-retries must be 0 or more")
    if args.timeout <= 0:
        raise ConfigError("--timeout must be positive")
    engine = getattr(args, "engine", "local")
    workers = ray_workers(args)
    return JudgeOptions(
        base_url=getattr(args, "base_url", None),  # a command with only an embedder has no judge's server
        use_cache=not args.no_cache,
        cache=args.cache,
        records=args.log or default_log,
        concurrency=args.concurrency,
        requests_per_minute=args.rpm,
        tokens_per_minute=args.tpm,
        max_retries=args.max_retries,
        timeout=args.timeout,
        max_cost=args.max_cost,
        prices=args.prices,
        engine=engine,
        ray_address=getattr(args, "ray_address", None),
        ray_workers=workers,
        ray_shards=getattr(args, "ray_shards", None),
    )


def make_judge(args: argparse.Namespace, spec: str | None = None, *, default_log: str | Path | None = None):
    """The judge the options describe. A dry run creates no backend: it needs no key and no SDK."""
    options = judge_options(args, default_log=default_log)
    return options.judge(spec or args.judge, dry_run=bool(getattr(args, "dry_run", False)))


def say_notices() -> None:
    """What the judges learnt about their servers (e.g. a structured-output fallback), once."""
    from voxjudge.llm import negotiate

    for note in negotiate.take_notices():
        print(f"voxjudge: note: {note}", file=sys.stderr)


def finish(
    *,
    unscored: int = 0,
    total: int | None = None,
    what: str = "items",
    reasons: dict[str, int] | None = None,
    stopped: str | None = None,
    cached: bool = True,
    varies: tuple[str, ...] = (),
    sampled: bool = False,
) -> int:
    """Exit status of a judged run, after saying on stderr how many items are unscored, why, and
    whether rerunning can help (``voxjudge.llm.advice``): ``cached`` is false under --no-cache,
    ``varies`` names this command's settings that change the requests."""
    from voxjudge.llm.advice import FAILED, NOT_ASKED, kinds_of, rerun_advice

    say_notices()
    if not unscored and not stopped:
        return 0
    parts = []
    kinds = kinds_of(reasons or {})
    if unscored:
        why = ", ".join(f"{n} {reason}" for reason, n in (reasons or {}).items())
        of = f" of {total}" if total is not None else ""
        parts.append(f"{unscored}{of} {what} unscored" + (f" ({why})" if why else ""))
        if sum(kinds.values()) < unscored:  # reasons not tallied: assume a rerun may help
            kinds[FAILED] = kinds.get(FAILED, 0) + unscored - sum(kinds.values())
    if stopped:
        parts.append(f"stopped early: {stopped}")
        kinds[NOT_ASKED] = kinds.get(NOT_ASKED, 0) or 1
    unreachable = bool(stopped and "cannot reach" in stopped)
    advice = rerun_advice(kinds, cached=cached, varies=varies, sampled=sampled, unreachable=unreachable)
    print(f"voxjudge: incomplete: {'; '.join(parts)}." + (f" {worded(advice)}" if advice else ""), file=sys.stderr)
    return EXIT_INCOMPLETE


def usage_line(usage: dict) -> str:
    """A judge's usage counters as one readable status line."""
    cost = "unknown" if usage.get("cost_usd") is None else f"{usage['cost_usd']:.4f} USD"
    counts = (("requests", "request"), ("cache_hits", "cache hit"), ("retries", "retry"), ("failures", "failure"))
    return (
        ", ".join(counted(usage[key], noun) for key, noun in counts)
        + f", {usage['input_tokens']}+{usage['output_tokens']} tokens, cost {cost}, {usage['wall_seconds']:.1f}s"
    )
