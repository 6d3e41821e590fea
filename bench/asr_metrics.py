"""Classic ASR metrics: voxjudge against jiwer 4.0 in the same run, as a library and as a command.

    python bench/asr_metrics.py                   # library at 10,000 and 100,000 pairs; whole command at 50,000
    python bench/asr_metrics.py --sizes 10000 --repeat 5 --whole-pairs 0
    python bench/asr_metrics.py --sizes "" --whole-pairs 0 --long-words 300000 --repeat 1   # long form

Three ratios, each against a peer measured in the same run:

* **library path**: ``count_errors`` against ``jiwer.process_words`` (WER/MER/WIL/WIP), and
  ``compute_metrics`` (words + code-point CER, what ``asr metrics`` computes) against
  ``jiwer.process_words`` + ``jiwer.process_characters``. Target: >= 10x.
* **whole command**: ``voxjudge asr metrics --ref R --hyp H`` (one process: start-up, reading,
  WER + CER, the table) against jiwer's CLI run twice (``jiwer -r R -h H`` and ``... -c``), on
  --whole-pairs pairs of ~25 words; the table (no CER split needed) and ``--json`` (with
  ``char_counts``) separately. Target: >= 10x.
* **long form** (``--long-words``): one line of that many words, WER only (``asr metrics --unit
  word``) against jiwer's CLI, and ``compute_metrics`` against ``jiwer.process_words``, with the
  peak RSS of both commands. Target: <= 2x jiwer's time.

Times are CPU seconds (user + system; children's for the commands), best of --repeat, with the
peers interleaved: on a shared machine CPU time is far steadier than wall time, and every
contender here is single-threaded. Wall times are printed beside. The script checks that
hits/substitutions/deletions/insertions and WER/MER/WIL/WIP/CER are identical (library) and
that both commands print the same WER and CER. Commands run from compiled bytecode, as an
installed package does (``bytecode_env``), after an untimed warm-up round.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import jiwer

from voxjudge.asr import Tokenizer, compute_metrics, count_errors, total


def make_corpus(n: int, seed: int = 0, words_per_utt: int = 25) -> tuple[list[str], list[str]]:
    """Synthetic pairs with ~15% WER: substitutions, deletions, insertions at realistic rates."""
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(5000)]
    refs, hyps = [], []
    for _ in range(n):
        ref = [rng.choice(vocab) for _ in range(rng.randint(words_per_utt - 5, words_per_utt + 5))]
        hyp = []
        for w in ref:
            x = rng.random()
            if x < 0.08:
                hyp.append(rng.choice(vocab))
            elif x < 0.12:
                continue
            elif x < 0.15:
                hyp += [w, rng.choice(vocab)]
            else:
                hyp.append(w)
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps


def best_times(contenders: dict, repeat: int) -> tuple[dict, dict, dict]:
    """Best CPU and wall seconds per contender over ``repeat`` interleaved rounds, and a summary of
    each output. Contenders are ``name: (run, summarize)``; outputs are summarized and freed
    outside the timing so one contender's garbage never slows the next."""
    cpu = dict.fromkeys(contenders, float("inf"))
    wall = dict.fromkeys(contenders, float("inf"))
    out: dict = {}
    for _ in range(repeat):
        for name, (run, summarize) in contenders.items():
            gc.collect()
            c, w = time.process_time(), time.perf_counter()
            result = run()
            cpu[name] = min(cpu[name], time.process_time() - c)
            wall[name] = min(wall[name], time.perf_counter() - w)
            out[name] = summarize(result)
            del result
    return cpu, wall, out


def peak_memory(fn) -> int:
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def words_voxjudge(refs, hyps):
    return total(count_errors(refs, hyps, Tokenizer("word")))


def words_jiwer(refs, hyps):
    return jiwer.process_words(refs, hyps)


def library(n: int, repeat: int) -> dict:
    refs, hyps = make_corpus(n)
    word_keys = ("hits", "substitutions", "deletions", "insertions", "wer", "mer", "wil", "wip")
    words = lambda r: tuple(getattr(r, k) for k in word_keys)  # noqa: E731
    both_jiwer = lambda r: (words(r[0]), r[1].substitutions, r[1].cer)  # noqa: E731
    both_ours = lambda r: (words(r.corpus_word), r.corpus_char.substitutions, r.cer)  # noqa: E731
    cpu, wall, out = best_times(
        {
            "words_jiwer": (lambda: words_jiwer(refs, hyps), words),
            "words_voxjudge": (lambda: words_voxjudge(refs, hyps), words),
            "both_jiwer": (lambda: (jiwer.process_words(refs, hyps), jiwer.process_characters(refs, hyps)), both_jiwer),
            "both_voxjudge": (lambda: compute_metrics(refs, hyps), both_ours),
        },
        repeat,
    )
    same = out["words_voxjudge"] == out["words_jiwer"] and out["both_voxjudge"] == out["both_jiwer"]
    ours = total(count_errors(refs, hyps))
    mem_j = peak_memory(lambda: words_jiwer(refs, hyps))
    mem_v = peak_memory(lambda: words_voxjudge(refs, hyps))
    return {
        "pairs": n,
        "ref_words": ours.ref_len,
        "wer": ours.wer,
        "identical_numbers": same,
        "words_jiwer_cpu_s": round(cpu["words_jiwer"], 4),
        "words_voxjudge_cpu_s": round(cpu["words_voxjudge"], 4),
        "words_speedup": round(cpu["words_jiwer"] / cpu["words_voxjudge"], 2),
        "words_and_cer_jiwer_cpu_s": round(cpu["both_jiwer"], 4),
        "words_and_cer_voxjudge_cpu_s": round(cpu["both_voxjudge"], 4),
        "words_and_cer_speedup": round(cpu["both_jiwer"] / cpu["both_voxjudge"], 2),
        "words_and_cer_wall_speedup": round(wall["both_jiwer"] / wall["both_voxjudge"], 2),
        "peak_mem_jiwer_mb": round(mem_j / 2**20, 1),
        "peak_mem_voxjudge_mb": round(mem_v / 2**20, 1),
        "peak_mem_ratio": round(mem_j / mem_v, 2),
    }


def _script(name: str) -> str:
    """The console script installed beside this interpreter (the venv's), else on PATH."""
    here = Path(sys.executable).with_name(name)
    found = str(here) if here.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"bench: the {name!r} command is not installed; pip install -e '.[test]'")
    return found


def bytecode_env(tmp: str) -> dict[str, str]:
    """The environment both contenders run in: Python's bytecode cached under ``tmp``.

    An installed package runs from compiled bytecode (pip compiles it; jiwer's is), but an
    editable checkout under PYTHONDONTWRITEBYTECODE recompiles its sources on every start
    (~0.1 s here). One untimed warm-up round fills this cache for every contender alike."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tmp, "pycache"))
    return env


def _run(commands: list[list[str]], env: dict[str, str] | None = None) -> tuple[float, float, list[str]]:
    """CPU seconds of the child processes, wall seconds, and their stdouts."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    outs = [subprocess.run(c, check=True, capture_output=True, text=True, env=env).stdout for c in commands]
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, outs


def whole_command(n: int, repeat: int) -> dict:
    load_before = os.getloadavg()[0]
    refs, hyps = make_corpus(n)
    vox, jw = _script("voxjudge"), _script("jiwer")
    with tempfile.TemporaryDirectory() as tmp:
        ref, hyp = Path(tmp, "ref.txt"), Path(tmp, "hyp.txt")
        ref.write_text("\n".join(refs) + "\n", encoding="utf-8")
        hyp.write_text("\n".join(hyps) + "\n", encoding="utf-8")
        table = [vox, "asr", "metrics", "--ref", str(ref), "--hyp", str(hyp)]
        jiwer_wer, jiwer_cer = [jw, "-r", str(ref), "-h", str(hyp)], [jw, "-r", str(ref), "-h", str(hyp), "-c"]
        contenders = {
            "theirs": [jiwer_wer, jiwer_cer],
            "ours": [table],
            "ours_json": [table + ["--json"]],
            # One unit each, beside jiwer's run for that unit alone (informative).
            "theirs_wer": [jiwer_wer],
            "ours_wer": [table + ["--unit", "word"]],
            "theirs_cer": [jiwer_cer],
            "ours_cer": [table + ["--unit", "char"]],
        }
        env = bytecode_env(tmp)
        for cmds in contenders.values():
            _run(cmds, env)  # warm-up: bytecode cached for every contender alike
        best = {name: [float("inf")] * 2 for name in contenders}
        outs: dict[str, list[str]] = {}
        for _ in range(repeat):
            for name, cmds in contenders.items():
                cpu, wall, outs[name] = _run(cmds, env)
                best[name] = [min(best[name][0], cpu), min(best[name][1], wall)]
    summary = json.loads(outs["ours_json"][0])
    wer_printed, cer_printed = (float(o.strip()) for o in outs["theirs"])
    return {
        "pairs": n,
        "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "identical_numbers": (summary["wer"], summary["cer"]) == (wer_printed, cer_printed),
        "jiwer_cli_cpu_s": round(best["theirs"][0], 3),
        "voxjudge_cpu_s": round(best["ours"][0], 3),
        "voxjudge_json_cpu_s": round(best["ours_json"][0], 3),
        "speedup": round(best["theirs"][0] / best["ours"][0], 2),
        "json_speedup": round(best["theirs"][0] / best["ours_json"][0], 2),
        "jiwer_cli_wall_s": round(best["theirs"][1], 3),
        "voxjudge_wall_s": round(best["ours"][1], 3),
        "wall_speedup": round(best["theirs"][1] / best["ours"][1], 2),
        "wer_only_speedup": round(best["theirs_wer"][0] / best["ours_wer"][0], 2),
        "cer_only_speedup": round(best["theirs_cer"][0] / best["ours_cer"][0], 2),
    }


# CPU seconds and peak RSS of one command, measured by a fresh wrapper process: its
# RUSAGE_CHILDREN covers exactly that command (the maximum RSS is over all children ever waited for).
_MEASURE = (
    "import json, resource, subprocess, sys, time; t = time.perf_counter(); out = subprocess.run(sys.argv[1:], "
    "check=True, capture_output=True, text=True).stdout; wall = time.perf_counter() - t; "
    "r = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(json.dumps([r.ru_utime + r.ru_stime, r.ru_maxrss / 1024, out, wall]))"
)


def _measure(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str, float]:
    """CPU seconds, peak RSS in MB, stdout and wall seconds of one command."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *command], check=True, capture_output=True, text=True, env=env
    )
    cpu, rss, out, wall = json.loads(done.stdout)
    return cpu, rss, out, wall


def long_form(words: int, repeat: int) -> dict:
    """One reference line of ``words`` words against its hypothesis, WER only: ``asr metrics
    --unit word`` against jiwer's CLI, and ``compute_metrics`` against ``jiwer.process_words``."""
    load_before = os.getloadavg()[0]
    (ref_text,), (hyp_text,) = make_corpus(1, seed=1, words_per_utt=words)
    vox, jw = _script("voxjudge"), _script("jiwer")
    with tempfile.TemporaryDirectory() as tmp:
        ref, hyp = Path(tmp, "ref.txt"), Path(tmp, "hyp.txt")
        ref.write_text(ref_text + "\n", encoding="utf-8")
        hyp.write_text(hyp_text + "\n", encoding="utf-8")
        ours = [vox, "asr", "metrics", "--ref", str(ref), "--hyp", str(hyp), "--unit", "word", "--json"]
        theirs = [jw, "-r", str(ref), "-h", str(hyp)]
        best = {"ours": float("inf"), "theirs": float("inf")}
        walls = {"ours": float("inf"), "theirs": float("inf")}
        rss = {"ours": 0.0, "theirs": 0.0}
        outs: dict[str, str] = {}
        env = bytecode_env(tmp)
        for cmd in (theirs, ours):  # warm-up on a one-word line: bytecode cached alike
            short = [a if a not in (str(ref), str(hyp)) else str(Path(tmp, "w.txt")) for a in cmd]
            Path(tmp, "w.txt").write_text("a\n", encoding="utf-8")
            _measure(short, env)
        for _ in range(repeat):
            for name, cmd in (("theirs", theirs), ("ours", ours)):
                cpu, peak, outs[name], wall = _measure(cmd, env)
                best[name], rss[name] = min(best[name], cpu), max(rss[name], round(peak, 1))
                walls[name] = min(walls[name], wall)
    lib_cpu, _, lib_out = best_times(
        {
            "jiwer": (lambda: jiwer.process_words([ref_text], [hyp_text]), lambda r: (r.hits, r.substitutions)),
            "voxjudge": (
                lambda: compute_metrics([ref_text], [hyp_text], units=("word",), per_utterance=False).corpus_word,
                lambda c: (c.hits, c.substitutions),
            ),
        },
        repeat,
    )
    summary = json.loads(outs["ours"])
    oracle = jiwer.process_words([ref_text], [hyp_text])
    same = [summary[k] for k in ("hits", "substitutions", "deletions", "insertions")] == [
        oracle.hits,
        oracle.substitutions,
        oracle.deletions,
        oracle.insertions,
    ] and summary["wer"] == float(outs["theirs"].strip())
    return {
        "words": words,
        "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "wer": summary["wer"],
        "identical_numbers": same and lib_out["jiwer"] == lib_out["voxjudge"],
        "jiwer_cli_cpu_s": round(best["theirs"], 2),
        "voxjudge_cpu_s": round(best["ours"], 2),
        "time_ratio": round(best["ours"] / best["theirs"], 2),  # CPU seconds
        "jiwer_cli_wall_s": round(walls["theirs"], 2),
        "voxjudge_wall_s": round(walls["ours"], 2),
        "wall_ratio": round(walls["ours"] / walls["theirs"], 2),
        "jiwer_library_cpu_s": round(lib_cpu["jiwer"], 2),
        "voxjudge_library_cpu_s": round(lib_cpu["voxjudge"], 2),
        "library_time_ratio": round(lib_cpu["voxjudge"] / lib_cpu["jiwer"], 2),
        "jiwer_cli_peak_rss_mb": rss["theirs"],
        "voxjudge_peak_rss_mb": rss["ours"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--sizes", default="10000,100000", help="library corpus sizes, comma-separated (default: 10000,100000)"
    )
    ap.add_argument("--whole-pairs", type=int, default=50_000, help="pairs for the whole-command run; 0 skips it")
    ap.add_argument(
        "--long-words", type=int, default=0, help="words of the long-form single-line run (e.g. 300000); 0 skips it"
    )
    ap.add_argument("--repeat", type=int, default=3, help="timing rounds, best kept (default: 3)")
    ap.add_argument("--json", action="store_true", help="print JSON lines instead of text")
    args = ap.parse_args()
    for n in (int(s) for s in args.sizes.split(",") if s.strip()):
        r = library(n, args.repeat)
        if args.json:
            print(json.dumps({"path": "library", **r}))
            continue
        print(
            f"library, {n:,} pairs, {r['ref_words']:,} reference words, WER {100 * r['wer']:.2f}%, "
            f"identical numbers: {r['identical_numbers']}"
        )
        print(
            f"  WER/MER/WIL/WIP   jiwer {r['words_jiwer_cpu_s']:.3f}s  voxjudge {r['words_voxjudge_cpu_s']:.3f}s  "
            f"-> {r['words_speedup']:.2f}x faster"
        )
        print(
            f"  WER + CER         jiwer {r['words_and_cer_jiwer_cpu_s']:.3f}s  "
            f"voxjudge {r['words_and_cer_voxjudge_cpu_s']:.3f}s  "
            f"-> {r['words_and_cer_speedup']:.2f}x faster (wall: {r['words_and_cer_wall_speedup']:.2f}x)"
        )
        print(
            f"  peak memory       jiwer {r['peak_mem_jiwer_mb']} MB  voxjudge {r['peak_mem_voxjudge_mb']} MB  "
            f"-> {r['peak_mem_ratio']:.2f}x less"
        )
    if args.whole_pairs:
        w = whole_command(args.whole_pairs, args.repeat)
        if args.json:
            print(json.dumps({"path": "whole_command", **w}))
        else:
            print(
                f"whole command, {w['pairs']:,} pairs, WER + CER, same numbers printed: {w['identical_numbers']} "
                f"(load average {w['load'][0]} at the start, {w['load'][1]} at the end)\n"
                f"  voxjudge asr metrics {w['voxjudge_cpu_s']:.2f}s (--json {w['voxjudge_json_cpu_s']:.2f}s)  "
                f"jiwer CLI (-r/-h, then -c) {w['jiwer_cli_cpu_s']:.2f}s  -> {w['speedup']:.2f}x faster "
                f"(--json: {w['json_speedup']:.2f}x; wall: {w['voxjudge_wall_s']:.2f}s vs "
                f"{w['jiwer_cli_wall_s']:.2f}s, {w['wall_speedup']:.2f}x)\n"
                f"  one unit each: --unit word vs jiwer {w['wer_only_speedup']:.2f}x, "
                f"--unit char vs jiwer -c {w['cer_only_speedup']:.2f}x"
            )
    if args.long_words:
        lf = long_form(args.long_words, args.repeat)
        if args.json:
            print(json.dumps({"path": "long_form", **lf}))
            return
        print(
            f"long form, one line of {lf['words']:,} words, WER {100 * lf['wer']:.2f}%, "
            f"identical numbers: {lf['identical_numbers']} (load average {lf['load'][0]} at the start, "
            f"{lf['load'][1]} at the end)\n"
            f"  asr metrics --unit word {lf['voxjudge_cpu_s']:.2f} CPU s ({lf['voxjudge_wall_s']:.2f} s wall)  "
            f"jiwer CLI {lf['jiwer_cli_cpu_s']:.2f} CPU s ({lf['jiwer_cli_wall_s']:.2f} s wall)  "
            f"-> {lf['time_ratio']:.2f}x jiwer's CPU, {lf['wall_ratio']:.2f}x its wall (peak RSS "
            f"{lf['voxjudge_peak_rss_mb']} MB vs {lf['jiwer_cli_peak_rss_mb']} MB)\n"
            f"  library: compute_metrics {lf['voxjudge_library_cpu_s']:.2f} CPU s  jiwer.process_words "
            f"{lf['jiwer_library_cpu_s']:.2f} CPU s  -> {lf['library_time_ratio']:.2f}x jiwer's CPU (one thread: "
            "wall the same)"
        )


if __name__ == "__main__":
    main()
