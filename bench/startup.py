"""Command start-up time: ``voxjudge --help`` and each command's ``--help`` against ``python -c pass``
and jiwer's CLI (``jiwer --help``), measured in the same run.

    python bench/startup.py               # median of 7 runs each
    python bench/startup.py --repeat 15

Goal: every start-up at most 0.3 s. Each process runs with bytecode caching on (as an installed
package does) after one warm-up run, so the times are start-up, not compilation. Machines are
noisy: read the ratios, not the times.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = [
    [],
    ["asr", "metrics"],
    ["asr", "score"],
    ["asr", "compare"],
    ["breaks", "score"],
    ["pairwise", "judge"],
    ["stats", "agree"],
    ["llm", "run"],
]


def voxjudge_cmd() -> list[str]:
    script = Path(sys.executable).parent / "voxjudge"
    return [str(script)] if script.exists() else [sys.executable, "-m", "voxjudge.cli.main"]


CPU: dict[str, float] = {}  # median CPU seconds (user + system) per command: steadier than wall time on a busy box


def timed(cmd: list[str], repeat: int, env: dict[str, str]) -> float:
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm-up, writes .pyc
    times, cpu = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    CPU[" ".join(cmd)] = statistics.median(cpu)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    baseline = timed([sys.executable, "-c", "pass"], args.repeat, env)
    jiwer_script = Path(sys.executable).parent / "jiwer"
    jiwer_path = str(jiwer_script) if jiwer_script.exists() else shutil.which("jiwer")
    jiwer = timed([jiwer_path, "--help"], args.repeat, env) if jiwer_path else None
    base_cpu = CPU[f"{sys.executable} -c pass"]
    jiwer_cpu = CPU[f"{jiwer_path} --help"] if jiwer_path else None
    print(f"python -c pass      {baseline:.3f} s wall, {base_cpu:.3f} s CPU")
    if jiwer is not None:
        print(f"jiwer --help        {jiwer:.3f} s wall, {jiwer_cpu:.3f} s CPU")
    print(f"{'command':<32} {'seconds':>8} {'- python':>9} {'vs jiwer':>9} {'CPU s':>6} {'CPU vs jiwer':>12}  goal")
    worst = 0.0
    for words in COMMANDS:
        cmd = [*voxjudge_cmd(), *words, "--help"]
        t = timed(cmd, args.repeat, env)
        worst = max(worst, t)
        ratio = f"{t / jiwer:.2f}x" if jiwer else "-"
        cpu = CPU[" ".join(cmd)]
        cpu_ratio = f"{cpu / jiwer_cpu:.2f}x" if jiwer_cpu else "-"
        name = " ".join(["voxjudge", *words, "--help"])
        verdict = "ok" if t <= 0.3 else "SLOW"
        print(f"{name:<32} {t:8.3f} {t - baseline:9.3f} {ratio:>9} {cpu:6.3f} {cpu_ratio:>12}  {verdict}")
    print(
        f"slowest start-up {worst:.3f} s = {worst / baseline:.1f}x python -c pass"
        + (f" = {worst / jiwer:.2f}x jiwer --help" if jiwer else "")
    )


if __name__ == "__main__":
    main()
