"""LASER at corpus scale, whole process, beside jiwer's CLI in the same run.

    python bench/asr_laser_scale.py                       # 200,000 utterances, with --out, vs jiwer
    python bench/asr_laser_scale.py --utterances 1000000 --no-jiwer   # memory at 1M (and the time)

The corpus is generated (``laser_corpus.py``: English, 5-30 words, 0-3 edits each). Timed as
whole processes, alternating, best of ``--runs``: ``voxjudge asr score --ids --lang en --out
records.jsonl`` (the offline default judge, ``--jobs`` as given, default one per core) and
``jiwer -r REF -h HYP`` on the same texts without ids (WER only). Peak memory is the process's
maximum resident set (its workers' too). Targets (issue 24): wall time <= 1.0x jiwer's, peak
RSS <= 1 GB at 200k and at 1M. The load average is printed beside: this machine is shared, so
read the ratio, not the seconds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from laser_corpus import write  # noqa: E402


def run(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB of the process and its children, exit status)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode not in (0,):
        raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {err[-2000:]}")
    # ru_maxrss of wait4 is the largest of the process and the children it waited for (KB on Linux)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--utterances", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--jobs", type=int, help="voxjudge --jobs (default: its own, one per core)")
    ap.add_argument("--no-jiwer", action="store_true", help="only voxjudge (e.g. for the 1M memory run)")
    ap.add_argument("--keep", metavar="DIR", help="write the corpus and records here and keep them")
    args = ap.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="laser-scale-"))
    try:
        ref, hyp = write(folder, args.utterances)
        for src, dst in ((ref, "ref.plain"), (hyp, "hyp.plain")):  # jiwer reads plain lines
            with src.open(encoding="utf-8") as f, (folder / dst).open("w", encoding="utf-8") as g:
                g.writelines(line.split(" ", 1)[1] if " " in line.rstrip("\n") else "\n" for line in f)
        vox = [shutil.which("voxjudge") or "voxjudge", "asr", "score", "--ref", str(ref), "--hyp", str(hyp)]
        vox += ["--ids", "--lang", "en", "--out", str(folder / "records.jsonl")]
        vox += ["--jobs", str(args.jobs)] if args.jobs else []
        jiw = [shutil.which("jiwer") or "jiwer", "-r", str(folder / "ref.plain"), "-h", str(folder / "hyp.plain")]
        best: dict[str, tuple[float, float]] = {}
        for _ in range(args.runs):
            for name, argv in (("voxjudge", vox), ("jiwer", jiw)):
                if name == "jiwer" and args.no_jiwer:
                    continue
                wall, rss, _ = run(argv, folder)
                old = best.get(name)
                best[name] = (min(wall, old[0]) if old else wall, max(rss, old[1]) if old else rss)
        size = (folder / "records.jsonl").stat().st_size / 2**20
        load = os.getloadavg()
        print(
            f"{args.utterances:,} utterances; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
            f"on {os.cpu_count()} cores; best of {args.runs}"
        )
        v = best["voxjudge"]
        print(
            f"  voxjudge asr score --out (offline default judge): {v[0]:.1f} s, peak RSS {v[1]:.0f} MB, "
            f"records {size:.0f} MB"
        )
        if "jiwer" in best:
            j = best["jiwer"]
            print(f"  jiwer CLI (WER only):                            {j[0]:.1f} s, peak RSS {j[1]:.0f} MB")
            print(f"  ratio voxjudge / jiwer: wall {v[0] / j[0]:.2f}x (target <= 1.0), memory {v[1] / j[1]:.2f}x")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
