"""Judge wrapper throughput against a local fake OpenAI-compatible server (a separate process).

    python bench/llm_throughput.py                 # 2,000 requests, 200 ms latency, concurrency 64

Prints wall time against the ideal (requests x latency / concurrency), the client's CPU time per
request (this process only; the server runs in its own process), and the time to rerun the same
job from the cache. Targets: wall <= 1.15x ideal, CPU < 1 ms per request, rerun < 2% of the first.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from voxjudge.llm import Judge, Request, RetryPolicy

SCHEMA = {
    "type": "object",
    "properties": {"label": {"type": "string", "enum": ["match", "minor", "major"]}},
    "required": ["label"],
    "additionalProperties": False,
}


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "voxjudge.llm.fakeserver", "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline().strip()
    if not line.startswith("port "):
        proc.kill()
        raise SystemExit(f"fake server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{line.split()[1]}/v1"


def run_once(url: str, cache: Path, n: int, concurrency: int) -> dict:
    judge = Judge(
        "openai/bench-model",
        base_url=url,
        cache=cache,
        concurrency=concurrency,
        retry=RetryPolicy(max_retries=3, base_delay=0.1),
        timeout=30,
    )
    items = [(f"i{k}", Request.simple(f"Classify pair {k}: सफ़र / सफर", schema=SCHEMA, max_tokens=16)) for k in range(n)]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    out = judge.run(judge.complete_many(items))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    ok = sum(1 for r in out if r and r[0].ok)
    meter = judge.meter.as_dict()
    judge.close()
    return {"wall_s": wall, "cpu_s": cpu, "ok": ok, "requests": meter["requests"], "cache_hits": meter["cache_hits"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    proc, url = start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "cache.sqlite"
            os.environ.pop("OPENAI_API_KEY", None)
            # Warm-up: imports and connection pool, not counted.
            run_once(url, Path(tmp) / "warm.sqlite", args.concurrency, args.concurrency)
            first = run_once(url, cache, args.requests, args.concurrency)
            again = run_once(url, cache, args.requests, args.concurrency)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    ideal = args.requests * args.latency / args.concurrency
    result = {
        "requests": args.requests,
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "ideal_wall_s": round(ideal, 3),
        "wall_s": round(first["wall_s"], 3),
        "wall_over_ideal": round(first["wall_s"] / ideal, 3),
        "client_cpu_ms_per_request": round(1000 * first["cpu_s"] / args.requests, 3),
        "answers_ok": first["ok"],
        "rerun_wall_s": round(again["wall_s"], 3),
        "rerun_requests": again["requests"],
        "rerun_share_of_first": round(again["wall_s"] / first["wall_s"], 4),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.requests} requests, {args.latency * 1000:.0f} ms server latency, concurrency {args.concurrency}")
    print(f"  wall {result['wall_s']:.2f}s vs ideal {ideal:.2f}s -> {result['wall_over_ideal']:.3f}x (target <= 1.15)")
    print(f"  client CPU {result['client_cpu_ms_per_request']:.3f} ms per request (target < 1)")
    print(
        f"  rerun from cache {result['rerun_wall_s']:.3f}s with {again['requests']} requests -> "
        f"{100 * result['rerun_share_of_first']:.2f}% of the first run (target < 2%)"
    )
    print(f"  answers ok: {first['ok']}/{args.requests}")


if __name__ == "__main__":
    main()
