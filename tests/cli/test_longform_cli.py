"""One long line on the command line: refused up front (exit 2, one line, nothing written) when its
alignment would take longer than --max-align-minutes, and Ctrl-C in the middle of its alignment
acted on within a second (exit 130, no alignment process left)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import alive, children
from voxjudge.cli.main import main


def _line(folder: Path, n: int) -> tuple[str, str, str]:
    rng = random.Random(n)
    ref = [f"w{rng.randrange(3000)}" for _ in range(n)]
    hyp = list(ref)
    for _ in range(n // 10):
        hyp[rng.randrange(len(hyp))] = f"w{rng.randrange(3000)}"
    paths = folder / "ref.txt", folder / "hyp.txt", folder / "hyp_b.txt"
    paths[0].write_text(" ".join(ref) + "\n")
    paths[1].write_text(" ".join(hyp) + "\n")
    paths[2].write_text(" ".join(reversed(hyp)) + "\n")
    return str(paths[0]), str(paths[1]), str(paths[2])


def _argv(command: str, ref: str, hyp: str, hyp_b: str, out: Path) -> list[str]:
    if command == "compare":
        return ["asr", "compare", "--ref", ref, "--hyp-a", hyp, "--hyp-b", hyp_b, "--no-ids", "--out", str(out)]
    argv = ["asr", command, "--ref", ref, "--hyp", hyp, "--no-ids", "--out", str(out)]
    return argv + (["--lang", "en"] if command == "score" else ["--unit", "word"] if command == "metrics" else [])


@pytest.mark.parametrize("command", ["metrics", "align", "compare", "score"])
def test_too_long_line_is_refused_before_work(tmp_path, capsys, command):
    ref, hyp, hyp_b = _line(tmp_path, 3000)
    out = tmp_path / "out.jsonl"
    code = main([*_argv(command, ref, hyp, hyp_b, out), "--max-align-minutes", "0.000001"])
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voxjudge: error: ")
    assert "is too long to align: 3,000 reference x 3,000 hypothesis words would take about" in lines[0]
    assert "split it into shorter lines" in lines[0] and lines[0].endswith("raise --max-align-minutes")
    assert not out.exists() and not list(tmp_path.glob(".out*"))


def test_no_limit_and_bad_limit(tmp_path, capsys):
    ref, hyp, hyp_b = _line(tmp_path, 3000)
    out = tmp_path / "out.jsonl"
    assert main([*_argv("metrics", ref, hyp, hyp_b, out), "--max-align-minutes", "0", "--json"]) == 0
    assert out.exists()
    capsys.readouterr()
    assert main([*_argv("metrics", ref, hyp, hyp_b, out), "--max-align-minutes", "-1"]) == 2
    assert "--max-align-minutes must be 0 or more minutes" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("command", ["metrics", "align", "compare", "score"])
def test_ctrl_c_during_a_long_alignment(tmp_path, command):
    ref, hyp, hyp_b = _line(tmp_path, 200_000)
    out = tmp_path / "out.jsonl"
    argv = [sys.executable, "-m", "voxjudge.cli.main", *_argv(command, ref, hyp, hyp_b, out)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    aligner: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None and not aligner:
        aligner = children(proc.pid)  # the forked alignment process
        time.sleep(0.05)
    assert proc.poll() is None and aligner, "the alignment ended before it could be interrupted"
    time.sleep(0.3)
    assert proc.poll() is None, "the alignment ended before it could be interrupted"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - t0 < 1.0, "Ctrl-C took more than a second"
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in err and "Traceback" not in err
    assert not out.exists()
    time.sleep(0.2)
    assert not [p for p in aligner if alive(p)], "the alignment process outlived the command"
