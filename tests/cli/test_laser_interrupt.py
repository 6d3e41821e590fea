"""Ctrl-C in the middle of a corpus-scale LASER run with worker processes: the command exits 130,
no records file is left (not even its temporary), and no worker outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import alive, children

WORDS = "the cat sat on a mat every one colour ten going to closed people run its".split()


def _corpus(folder: Path, n: int) -> tuple[Path, Path]:
    import random

    rng = random.Random(0)
    ref, hyp = folder / "ref.txt", folder / "hyp.txt"
    with ref.open("w") as r, hyp.open("w") as h:
        for k in range(n):
            words = rng.choices(WORDS, k=rng.randint(5, 20))
            r.write(f"u{k} {' '.join(words)}\n")
            words[rng.randrange(len(words))] = f"w{rng.randrange(50_000)}"  # new pairs: the judge keeps working
            h.write(f"u{k} {' '.join(words)}\n")
    return ref, hyp


def _scoring(tmp_path: Path) -> tuple[subprocess.Popen, list[int], Path]:
    """A run with two workers, caught while the workers run and records are being written into
    the temporary file: (the process, its workers, the records file it was asked for)."""
    ref, hyp = _corpus(tmp_path, 60_000)
    out = tmp_path / "records.jsonl"
    argv = [sys.executable, "-m", "voxjudge.cli.main", "asr", "score", "--ref", str(ref), "--hyp", str(hyp)]
    argv += ["--ids", "--lang", "en", "--jobs", "2", "--out", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None:
        workers = children(proc.pid) or workers
        temps = list(tmp_path.glob(".records.jsonl.*.tmp"))
        if len(workers) >= 2 and temps and temps[0].stat().st_size > 0:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted: make the corpus larger"
    return proc, workers, out


def _nothing_left(tmp_path: Path, out: Path, workers: list[int]) -> None:
    assert not out.exists()
    assert not list(tmp_path.glob(".records.jsonl.*"))
    time.sleep(0.5)
    left = [w for w in workers if alive(w)]
    assert not left, f"workers still running: {left}"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("whom", ["group", "main process"])
@pytest.mark.parametrize(
    "sig, status, said",
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 128 + signal.SIGTERM, "terminated (SIGTERM)")],
    ids=["ctrl-c", "sigterm"],
)
def test_a_stop_signal_with_workers_leaves_nothing_behind(tmp_path, whom, sig, status, said):
    """Ctrl-C, and SIGTERM (what timeout, kill, a scheduler and a container send: the run died at
    once, silent, and left its temporary records file, 335 MB on the 200k corpus, behind)."""
    proc, workers, out = _scoring(tmp_path)
    proc.send_signal(sig)
    # a terminal's Ctrl-C (and `kill -- -PGID`) reaches the whole group, workers included; `kill` the main one
    for w in workers if whom == "group" else []:
        try:
            os.kill(w, sig)
        except ProcessLookupError:
            pass
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err[-2000:]
    assert said in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    _nothing_left(tmp_path, out, workers)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_a_worker_killed_mid_run_is_an_error_not_a_hang(tmp_path):
    """The kernel's out-of-memory killer ends a worker: the run stops at once with one line and a
    non-zero status, and leaves no records file (a pool that waited for the lost chunk hung)."""
    proc, workers, out = _scoring(tmp_path)
    os.kill(workers[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err[-2000:]
    assert "ended without its result (killed by signal 9" in err and "Traceback" not in err
    assert err.count("\n") == 1, err
    _nothing_left(tmp_path, out, workers)


def _head_slow_then_die(real):
    """``_work`` where the first chunk takes 2 s, so that the other worker runs ahead, fills the
    window and waits for its next chunk; the chunk at u600 ends its worker 0.2 s after it is done,
    while it waits."""

    def work(chunk, spool):
        if chunk[0][0] == "u0":
            time.sleep(2)
        result = real(chunk, spool)
        if chunk[0][0] == "u600":
            signal.signal(signal.SIGALRM, signal.SIG_DFL)  # (pytest-timeout's handler came with the fork)
            signal.setitimer(signal.ITIMER_REAL, 0.2)  # SIGALRM's default action ends the process
        return result

    return work


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs setitimer")
def test_a_worker_that_dies_while_it_waits_for_a_chunk_is_an_error(tmp_path, monkeypatch, capfd):
    """The lost worker is found when the next chunk is sent to it: that is an error (status 3),
    not a broken pipe, which the command line reads as a closed stdout and ends with status 0."""
    from voxjudge.asr.laser import parallel
    from voxjudge.cli.main import main

    monkeypatch.setattr(parallel, "CHUNK", 200)
    monkeypatch.setattr(parallel, "_work", _head_slow_then_die(parallel._work))
    ref, hyp = _corpus(tmp_path, 2000)
    out = tmp_path / "records.jsonl"
    argv = ["asr", "score", "--ref", str(ref), "--hyp", str(hyp), "--ids", "--lang", "en", "--jobs", "2"]
    code = main([*argv, "--out", str(out)])
    err = capfd.readouterr().err
    assert code == 3, err
    assert "ended without its result (killed by signal 14)" in err
    assert not out.exists()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_too_few_open_files_for_the_workers_is_one_line(tmp_path):
    """A low open-file limit raised OSError from the workers' pipes: a traceback, exit 1."""
    ref, hyp = _corpus(tmp_path, 80_001)  # (41 chunks: no more workers start than there are chunks)
    out = tmp_path / "records.jsonl"
    argv = [sys.executable, "-m", "voxjudge.cli.main", "asr", "score", "--ref", str(ref), "--hyp", str(hyp)]
    argv += ["--ids", "--lang", "en", "--jobs", "40", "--out", str(out)]
    shell = f"ulimit -n 60 && exec {' '.join(argv)}"
    proc = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "cannot start 40 worker processes" in proc.stderr and "--jobs" in proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


@pytest.mark.parametrize("closed", ["1", "2"])
def test_a_closed_stdout_or_stderr_is_not_a_traceback(tmp_path, closed):
    """`>&-` left sys.stdout None: AttributeError, exit 1; the records file must not take its number."""
    ref, hyp = _corpus(tmp_path, 50)
    out = tmp_path / "records.jsonl"
    argv = [sys.executable, "-m", "voxjudge.cli.main", "asr", "score", "--ref", str(ref), "--hyp", str(hyp)]
    argv += ["--ids", "--lang", "en", "--json", "--out", str(out)]
    proc = subprocess.run(["bash", "-c", f"exec {' '.join(argv)} {closed}>&-"], capture_output=True, text=True)
    assert proc.returncode == 0  # (with stderr closed, a traceback could not be seen: the status says it)
    assert "Traceback" not in proc.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 50 and all(line.startswith('{"id": "u') for line in lines)


@pytest.mark.parametrize("stop, status, said", [("int", 130, "interrupted"), ("term", 143, "terminated (SIGTERM)")])
def test_a_stop_after_the_outputs_were_saved_says_they_were(tmp_path, monkeypatch, capsys, stop, status, said):
    """A signal between saving --out and printing the table gave 130/143 and "interrupted": the
    caller took the old file to be there, but it had been replaced in full."""
    from voxjudge.cli import asr as asr_cli
    from voxjudge.cli.main import Terminated, main

    ref, hyp = _corpus(tmp_path, 20)
    out = tmp_path / "out.jsonl"
    out.write_text("old\n", encoding="utf-8")

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt if stop == "int" else Terminated

    monkeypatch.setattr(asr_cli, "render_metrics", stopped)
    assert main(["asr", "metrics", "--ref", str(ref), "--hyp", str(hyp), "--ids", "--out", str(out)]) == status
    assert capsys.readouterr().err == f"voxjudge: {said}; {out} had already been written in full\n"
    assert out.read_text(encoding="utf-8").count("\n") == 20
    # and a run stopped before it saved anything says nothing of the kind (the list is per run)
    monkeypatch.setattr(asr_cli, "write_out", stopped)
    assert main(["asr", "metrics", "--ref", str(ref), "--hyp", str(hyp), "--ids", "--out", str(out)]) == status
    assert capsys.readouterr().err == f"voxjudge: {said}\n"


def test_results_that_cannot_be_printed_after_the_outputs_were_saved_say_so(tmp_path):
    """`--json > /dev/full` said "the run stopped; free space and run again" after --out was replaced."""
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    ref, hyp = _corpus(tmp_path, 20)
    out = tmp_path / "out.jsonl"
    argv = [sys.executable, "-m", "voxjudge.cli.main", "asr", "metrics", "--ref", str(ref), "--hyp", str(hyp)]
    argv += ["--ids", "--json", "--out", str(out)]
    with open("/dev/full", "w") as full:
        proc = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr == (
        f"voxjudge: error: No space left on device writing the results to the terminal; {out} had already been "
        "written in full\n"
    )
    assert out.read_text(encoding="utf-8").count("\n") == 20


def test_ctrl_c_while_the_command_loads_is_one_line(tmp_path, monkeypatch, capsys):
    """A Ctrl-C in the first tenth of a second (the command's modules loading) printed a traceback."""
    from voxjudge.cli import main as cli_main

    def loading(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "build_parser", loading)
    assert cli_main.main(["asr", "metrics"]) == 130
    assert capsys.readouterr().err == "voxjudge: interrupted\n"
