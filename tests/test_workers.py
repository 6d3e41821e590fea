"""``voxjudge._workers``: forked workers hand results back in task order, a worker's exception is
raised in the main process, and a worker that ends without its result is an error, never a wait."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

from voxjudge._workers import ForkedWorkers, WorkerLost

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
CTX = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def _slow_square(n: int, delay: float) -> tuple[int, int]:
    time.sleep(delay)
    return n * n, os.getpid()


def _fail_on(n: int, bad: int) -> int:
    if n == bad:
        raise ValueError(f"task {n} is bad")
    return n


def _die_on(n: int, bad: int) -> int:
    if n == bad:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def _unpicklable(n: int):
    return lambda: n


def test_results_come_back_in_task_order_from_every_worker():
    # later tasks finish first: the order is the tasks', not the finishing order
    tasks = [(n, 0.05 * (n % 3 == 0)) for n in range(30)]
    with ForkedWorkers(CTX, 3, _slow_square) as workers:
        got = list(workers.ordered(iter(tasks), window=4))
        procs = list(workers._procs)
    assert [square for square, _ in got] == [n * n for n in range(30)]
    assert len({pid for _, pid in got}) == 3
    assert all(not p.is_alive() for p in procs)


def test_never_more_tasks_out_than_the_window():
    taken = []

    def tasks():
        for n in range(20):
            taken.append(n)
            yield (n, 0.0)

    with ForkedWorkers(CTX, 2, _slow_square) as workers:
        for k, _ in enumerate(workers.ordered(tasks(), window=3)):
            assert len(taken) - k <= 3  # the one being handed back is still counted


def test_a_workers_exception_is_raised_here_and_the_workers_end():
    with pytest.raises(ValueError, match="task 5 is bad"):
        with ForkedWorkers(CTX, 2, _fail_on) as workers:
            procs = list(workers._procs)
            list(workers.ordered(((n, 5) for n in range(10)), window=4))
    assert all(not p.is_alive() for p in procs)


def test_a_result_that_does_not_pickle_is_an_error_not_a_hang():
    with pytest.raises(RuntimeError, match="could not be sent back"):
        with ForkedWorkers(CTX, 2, _unpicklable) as workers:
            list(workers.ordered(((n,) for n in range(4)), window=2))


@pytest.mark.timeout(60)
def test_a_worker_that_dies_is_an_error_at_once():
    start = time.monotonic()
    with pytest.raises(WorkerLost, match=r"ended without its result \(killed by signal 9"):
        with ForkedWorkers(CTX, 2, _die_on) as workers:
            procs = list(workers._procs)
            list(workers.ordered(((n, 3) for n in range(10)), window=4))
    assert time.monotonic() - start < 10
    assert all(not p.is_alive() for p in procs)


def test_stopping_early_kills_busy_workers_at_once():
    with ForkedWorkers(CTX, 2, _slow_square) as workers:
        procs = list(workers._procs)
        results = workers.ordered(((n, 0.0 if n == 0 else 30.0) for n in range(6)), window=4)
        assert next(results)[0] == 0
        start = time.monotonic()
    results.close()
    assert time.monotonic() - start < 5
    assert all(not p.is_alive() for p in procs)


def _idle_then(n: int, delay: float) -> int:
    time.sleep(delay)
    return n


def test_a_worker_that_dies_between_tasks_is_an_error_not_a_broken_pipe():
    # killed while it waited for its next task: sending that task must not be a BrokenPipeError,
    # which the command line takes for a closed stdout and ends with status 0
    with ForkedWorkers(CTX, 1, _idle_then) as workers:
        results = workers.ordered(((n, 0.0) for n in range(4)), window=1)
        assert next(results) == 0
        proc = workers._procs[0]
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(5)
        with pytest.raises(WorkerLost, match=r"killed by signal 9"):
            next(results)


def _dies_part_way_through_its_result(n: int):
    import struct
    import sys

    conn = sys._getframe(1).f_locals["conn"]  # _serve's end of the pipe
    os.write(conn.fileno(), struct.pack("!i", 1000) + b"only the start")
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_that_dies_part_way_through_its_result_is_a_lost_worker():
    with pytest.raises(WorkerLost, match=r"killed by signal 9"):
        with ForkedWorkers(CTX, 1, _dies_part_way_through_its_result) as workers:
            list(workers.ordered([(1,)], window=1))


def _no_judge() -> None:
    raise ValueError("no such judge")


def test_an_initializers_exception_is_raised_here():
    with pytest.raises(ValueError, match="no such judge"):
        with ForkedWorkers(CTX, 2, _idle_then, _no_judge) as workers:
            list(workers.ordered(((n, 0.0) for n in range(4)), window=2))


class _Unpicklable(Exception):
    def __init__(self, n: int):
        super().__init__(f"task {n} is bad")
        self.later = lambda: n


class _NotRemade(Exception):
    def __init__(self, n: int, why: str):
        super().__init__(f"task {n} is bad: {why}")


def _raise_unpicklable(n: int):
    raise _Unpicklable(n)


def _raise_not_remade(n: int):
    raise _NotRemade(n, "too long")


@pytest.mark.parametrize("work", [_raise_unpicklable, _raise_not_remade])
def test_an_exception_that_does_not_pickle_keeps_its_message(work):
    with pytest.raises(RuntimeError, match=r"(_Unpicklable|_NotRemade): task 1 is bad"):
        with ForkedWorkers(CTX, 1, work) as workers:
            list(workers.ordered([(1,)], window=1))


def test_no_window_or_no_workers_is_refused_not_an_empty_result():
    for jobs, window in [(1, 0), (0, 2)]:
        with ForkedWorkers(CTX, jobs, _idle_then) as workers:
            with pytest.raises(ValueError):
                list(workers.ordered([(1, 0.0)], window=window))


def _slow_start() -> None:
    time.sleep(5)


@pytest.mark.timeout(60)
def test_ctrl_c_inside_a_large_send_kills_the_worker_at_once(capfd):
    # the worker is still starting, so the send of a task larger than the pipe blocks; Ctrl-C
    # there leaves the worker part of a task: it is killed, not asked to end and waited for
    interrupted = []

    def interrupt(signum, frame):
        interrupted.append(time.monotonic())
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with pytest.raises(KeyboardInterrupt):
            with ForkedWorkers(CTX, 1, len, _slow_start) as workers:
                procs = list(workers._procs)
                list(workers.ordered([(b"x" * (8 << 20),)], window=1))
        ended = time.monotonic()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert ended - interrupted[0] < 1
    assert all(not p.is_alive() for p in procs)
    assert "Traceback" not in capfd.readouterr().err


_ORPHANS = """
import multiprocessing, os, signal, sys, time
from voxjudge._workers import ForkedWorkers

def work(n):
    return n

with ForkedWorkers(multiprocessing.get_context("fork"), 2, work) as workers:
    assert list(workers.ordered([(1,), (2,)], window=2)) == [1, 2]
    print(*[p.pid for p in workers._procs], flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # the main process killed: nothing is closed
"""


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
@pytest.mark.timeout(60)
def test_workers_end_when_the_main_process_is_killed():
    import subprocess
    import sys

    from tests.processes import alive

    # (not run(): the workers hold the output pipe, reading it to its end would wait for them)
    proc = subprocess.Popen([sys.executable, "-c", _ORPHANS], stdout=subprocess.PIPE, text=True)
    proc.wait(timeout=30)
    pids = [int(p) for p in proc.stdout.readline().split()]
    proc.stdout.close()
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    left = [p for p in pids if alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, "workers outlived the main process"


@pytest.mark.timeout(120)
def test_spawned_workers_where_there_is_no_fork():
    # what a worker is given is pickled then: the work, the pipes (the main process's ends too)
    with ForkedWorkers(multiprocessing.get_context("spawn"), 2, _slow_square) as workers:
        got = list(workers.ordered(((n, 0.0) for n in range(6)), window=3))
    assert [square for square, _ in got] == [n * n for n in range(6)]


def _start_in(delay: float) -> None:
    time.sleep(delay)


def _double(n: int) -> int:
    return 2 * n


def test_ctrl_c_reaching_a_starting_worker_is_the_main_process_s_alone():
    """A terminal's Ctrl-C reaches every worker too, even one still starting (in its initializer):
    a worker never acts on it (the main process ends the run and the workers)."""
    with ForkedWorkers(CTX, 2, _double, _start_in, (1.0,)) as workers:
        for proc in workers._procs:
            os.kill(proc.pid, signal.SIGINT)
        assert list(workers.ordered(((n,) for n in range(6)), window=4)) == [0, 2, 4, 6, 8, 10]


def test_ctrl_c_while_workers_start_stops_here_and_ends_them():
    """A Ctrl-C while the workers are being forked stops the start here (KeyboardInterrupt, at once
    or once the forks are done) and leaves no worker running."""
    import threading

    started = []
    real_start = CTX.Process.start

    def start(self):
        real_start(self)
        started.append(self)
        if len(started) == 1:  # between the two forks
            threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGINT)).start()
            time.sleep(0.3)

    CTX.Process.start = start
    try:
        with pytest.raises(KeyboardInterrupt):
            ForkedWorkers(CTX, 2, _double)
    finally:
        CTX.Process.start = real_start
    for proc in started:
        proc.join(5)
        assert not proc.is_alive()
