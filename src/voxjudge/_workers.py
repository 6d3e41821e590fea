"""Worker processes forked once and fed one task at a time, results handed back in task order.

Why not ``multiprocessing.Pool``: a Pool whose worker dies (killed by the kernel when memory runs
out, say) waits for that worker's result forever, and its ``terminate`` runs three handler
threads through a shutdown that can block. Here the process that hands out tasks waits on every
busy worker's pipe *and* on its process at once, so a worker that ends without its result is an
error (``WorkerLost``) at once; stopping early kills the workers. There are no threads, so a
worker is never forked while another thread holds a lock.

Each worker has its own pipe and at most one task: the main process sends a task only to a worker
that is waiting for one, so neither side can block the other on a full pipe (tasks and results
are both larger than a pipe's buffer).
"""

from __future__ import annotations

import errno
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from multiprocessing.reduction import ForkingPickler

from voxjudge.errors import InputError, VoxjudgeError


class WorkerLost(VoxjudgeError):
    """A worker process ended before it gave back its task's result: the run is incomplete."""


def _serve(conn, parent_ends: list, work: Callable, initializer: Callable | None, initargs: tuple) -> None:
    # Ctrl-C reaches the whole process group: the main process stops the run and ends the workers;
    # a worker of its own would print its traceback under the one-line message; SIGTERM ends a
    # worker quietly (not by the command's handler, which it inherits). Both are blocked from
    # before the fork (``held_stop_signals``), so none slips in before they are set here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    # a forked worker holds copies of the main process's ends of the pipes, its own among them:
    # while it does, it never reads the end of its pipe, and outlives a main process that is killed
    for end in parent_ends:
        end.close()
    failed = None
    if initializer is not None:
        try:
            initializer(*initargs)
        except BaseException as e:  # raised in the main process with the first task sent here
            failed = e
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):  # the main process is gone (OSError: part-way through a task)
            return
        if task is None:
            return
        if failed is not None:
            reply = (False, failed)
        else:
            try:
                reply = (True, work(*task))
            except BaseException as e:  # handed back and raised in the main process, as Pool did
                reply = (False, e)
        try:
            conn.send_bytes(_pickled(*reply))
        except OSError:  # the main process is gone
            return


def _pickled(ok: bool, value) -> memoryview:
    """The reply as sent; what would not arrive is a RuntimeError that says what it was: a result
    that does not pickle, an exception that does not pickle or cannot be made again from its
    pickle (an ``__init__`` with other arguments than ``args``: checked here, it is small)."""
    try:
        data = ForkingPickler.dumps((ok, value))
        if not ok:
            ForkingPickler.loads(data)
        return data
    except Exception as e:
        if ok:
            what = f"a worker's result could not be sent back: {e!r}"
        else:
            what = f"a worker's exception could not be sent back: {type(value).__name__}: {value}"
        return ForkingPickler.dumps((False, RuntimeError(what)))


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def held_stop_signals():
    """SIGINT and SIGTERM held while this thread forks, and acted on when it is done.

    Blocked in this thread: a child inherits the mask and unblocks them only once it has set its
    own handlers, so neither reaches a child's Python code through the parent's handler. Noted,
    not acted on, in this process (another thread may take a signal the mask holds here, and
    Python runs handlers in the main thread whatever its mask): a handler that raised inside
    fork's own hooks had its exception printed and dropped, and the run went on. When the block
    ends, a signal that came is handed to the handler it was meant for."""
    main = threading.current_thread() is threading.main_thread()  # (only there can handlers be set)
    came: list[int] = []
    handlers = {s: signal.signal(s, lambda signum, frame: came.append(signum)) for s in STOP_SIGNALS} if main else {}
    masked = hasattr(signal, "pthread_sigmask")
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS) if masked else None
    try:
        yield
    finally:
        if masked:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)  # (one pending comes now, and is noted)
        for s, handler in handlers.items():
            signal.signal(s, handler)
        if came:
            _deliver(came[0], handlers[came[0]])


def _deliver(signum: int, handler) -> None:
    """What ``handler`` would have done with ``signum`` (raise, for Python's and the command's)."""
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def _ended(process) -> str:
    return ended_without_result("a worker process", process.pid, process.exitcode)


def ended_without_result(what: str, pid: int, code: int | None) -> str:
    """The message of a child process that ended before its answer (``code``: its exit code, or
    minus the signal that ended it, as ``Process.exitcode`` and ``os.waitstatus_to_exitcode`` give)."""
    if code is not None and code < 0:
        how = f"killed by signal {-code}" + (" (out of memory?)" if -code == 9 else "")
    else:
        how = f"exit status {code}"
    return f"{what} (pid {pid}) ended without its result ({how}); the run is incomplete"


class ForkedWorkers:
    """``jobs`` processes, each running ``initializer(*initargs)`` once and then ``work(*task)``
    for each task it is sent. Use as a context manager: leaving it ends every worker."""

    def __init__(self, ctx, jobs: int, work: Callable, initializer: Callable | None = None, initargs: tuple = ()):
        self._procs: list = []
        self._conns: list = []
        self._busy: dict[int, int] = {}  # worker -> the number of the task it is working on
        try:
            with held_stop_signals():
                for _ in range(jobs):
                    ours, theirs = ctx.Pipe()
                    ends = [*self._conns, ours]
                    proc = ctx.Process(target=_serve, args=(theirs, ends, work, initializer, initargs), daemon=True)
                    proc.start()
                    theirs.close()
                    self._procs.append(proc)
                    self._conns.append(ours)
        except OSError as e:
            self.close()
            if e.errno not in (errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.ENOMEM):
                raise
            raise InputError(
                f"cannot start {jobs} worker processes ({e.strerror}); give fewer {{jobs}}, or raise the "
                "limit (ulimit -n for open files, ulimit -u for processes)",
                options={"jobs": "jobs="},
            ) from None
        except BaseException:  # a Ctrl-C while the workers start included
            self.close()
            raise

    def __enter__(self) -> ForkedWorkers:
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close()

    def ordered(self, tasks: Iterable[tuple], window: int) -> Iterator:
        """The results of ``tasks``, in their order, with at most ``window`` tasks sent or done but
        not yet handed back (the one being handed back included: it is counted until the caller
        moves on). A task is taken from ``tasks`` just before it is sent."""
        from multiprocessing.connection import wait

        if window < 1 or not self._procs:  # no task would ever be sent: no results, silently
            raise ValueError(f"ordered needs a window of 1 or more and a worker (window {window})")
        tasks = iter(tasks)
        idle = deque(range(len(self._procs)))
        busy = self._busy
        done: dict[int, object] = {}  # task number -> result
        sent = handed = 0
        more = True
        while True:
            while more and idle and sent - handed < window:
                task = next(tasks, None)
                if task is None:
                    more = False
                    break
                worker = idle.popleft()
                # busy before the send: a send cut short (Ctrl-C) leaves the worker part of a task,
                # so ``close`` kills it rather than send it more and wait for it
                busy[worker] = sent
                try:
                    self._conns[worker].send(task)
                except OSError:  # it died while it waited for this task (not a BrokenPipeError:
                    raise self._lost(worker) from None  # the command line reads that as stdout gone)
                sent += 1
            if handed in done:
                yield done.pop(handed)
                handed += 1
                continue
            if not busy:
                return
            ready = set(wait([self._conns[w] for w in busy] + [self._procs[w].sentinel for w in busy]))
            for worker in list(busy):
                conn, proc = self._conns[worker], self._procs[worker]
                if conn in ready or (proc.sentinel in ready and conn.poll()):
                    try:
                        ok, value = conn.recv()
                    except (EOFError, OSError):  # ended before its result, or part-way through it
                        raise self._lost(worker) from None
                    if not ok:
                        raise value
                    done[busy.pop(worker)] = value
                    idle.append(worker)
                elif proc.sentinel in ready:
                    raise self._lost(worker)

    def _lost(self, worker: int) -> WorkerLost:
        self._procs[worker].join(1)
        return WorkerLost(_ended(self._procs[worker]))

    def close(self) -> None:
        """End the workers: an idle one is asked to, a busy one is killed at once (a stop part-way,
        an error, Ctrl-C: what it is doing is no longer wanted)."""
        for worker, conn in enumerate(self._conns):
            if worker not in self._busy:
                try:
                    conn.send(None)
                except OSError:
                    pass
            conn.close()
        for worker, proc in enumerate(self._procs):
            if worker not in self._busy:
                proc.join(5)
            if proc.is_alive():
                proc.kill()
            proc.join()
        self._procs, self._conns, self._busy = [], [], {}
