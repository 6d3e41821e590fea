"""Long lines: what an alignment costs, refusing one that would take too long, and running a long
one so that Ctrl-C still stops it within a second.

rapidfuzz aligns one pair in a single C call that holds the interpreter: a 300,000-word line is
~20 s in which Python checks for no signal, so Ctrl-C would wait for the end. A pair above
``FORK_PAIRS`` token pairs (~0.1 s here) is aligned in a forked child process instead; this
process waits on a pipe, where Ctrl-C is acted on at once (the child is ended with it, and dies
with its parent in any case). The result is the same call's, so it is identical.

Tokens go to rapidfuzz as integer ids ranked by frequency in the pair. rapidfuzz looks tokens
below 256 up in a table and the others in a hash map, so the frequent words being the small ids
makes a long alignment ~1.5x faster; its edit script depends only on which tokens are equal, so
it is the same script.

The cost of an alignment grows with the product of the two lengths (the Levenshtein matrix,
64 cells per machine word) and its memory with their sum (rapidfuzz's Hirschberg splitting
keeps only rows). ``estimate`` turns lengths into seconds and megabytes at the speeds measured
on a 2-core machine (``bench/asr_longform.py``); a line over the limit (``limit``, 10 minutes by
default, ``--max-align-minutes`` on the command line) is refused before it is aligned (``check``:
when the run reaches it, so a corpus stops there, with no records written).
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from voxjudge.errors import InputError

# Token pairs (reference length x hypothesis length) aligned per CPU second on a 2-core machine
# (bench/asr_longform.py): word ids ranked by frequency (editops; 3.5-5.5e9 by vocabulary, the
# lower figure that of English long-form text), and characters (a small alphabet is faster per
# pair, but a line has ~6x more of them).
PAIRS_PER_SECOND = {"word": 3.5e9, "char": 1.2e10}
# Bytes of memory per token of the two sides while a long pair is aligned: the token lists and
# their ids here, rapidfuzz's pattern tables and rows in the child (measured, rounded up).
BYTES_PER_TOKEN = {"word": 260, "char": 60}
FORK_PAIRS = 5e8  # above this many token pairs (~0.1 s) an alignment runs in a child process
CHECKED_PAIRS = 1e6  # below this many (~0.2 ms) no alignment can be over a limit worth setting
DEFAULT_MINUTES = 10.0

# The limit where the code runs (``limit``): one thread's or asyncio task's limit is not another's.
# A new thread starts at the default; a forked worker keeps its parent's; workers started
# otherwise (spawned, Ray) are given it in their settings (``laser.stream.StreamSettings``).
_limit_minutes: ContextVar[float | None] = ContextVar("align_limit_minutes", default=DEFAULT_MINUTES)
# told when a long alignment starts (what, how long) and ends (None); the command line's progress bar
_announce: Callable[[str | None], None] | None = None


class LineTooLong(InputError):
    """A line whose alignment would take longer than the limit (``limit``)."""

    def __reduce__(self):  # from a worker process, still worded by the caller's names
        return _line_too_long, (self.template, self.options)


def _line_too_long(template: str, options: dict) -> LineTooLong:
    return LineTooLong(template, options=options)


def estimate(n_ref: int, n_hyp: int, unit: str = "word") -> tuple[float, float]:
    """(seconds, megabytes) that aligning ``n_ref`` against ``n_hyp`` tokens takes here."""
    kind = "word" if unit == "word" else "char"
    return n_ref * n_hyp / PAIRS_PER_SECOND[kind], (n_ref + n_hyp) * BYTES_PER_TOKEN[kind] / 2**20


def limit_minutes() -> float | None:
    return _limit_minutes.get()


@contextmanager
def limit(minutes: float | None) -> Iterator[None]:
    """Alignments estimated above ``minutes`` are refused (``LineTooLong``) while inside, in this
    thread (or asyncio task) only; None or 0: no limit."""
    token = _limit_minutes.set(minutes or None)
    try:
        yield
    finally:
        _limit_minutes.reset(token)


@contextmanager
def announcing(say: Callable[[str | None], None] | None) -> Iterator[None]:
    """While inside, ``say(text)`` is told when a long alignment starts (what and how long it should
    take) and ``say(None)`` when it ends."""
    global _announce
    old, _announce = _announce, say
    try:
        yield
    finally:
        _announce = old


def duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds:.2g} s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def check(ref: Sequence, hyp: Sequence, unit: str, where: str) -> None:
    """Raise ``LineTooLong`` if aligning these tokens would take longer than the limit. The
    estimate is of what rapidfuzz aligns: the part between the common prefix and suffix, which it
    strips first (a long line with one substitution is two short stretches, not a square)."""
    minutes = _limit_minutes.get()
    if minutes is None:
        return
    n_ref, n_hyp = len(ref), len(hyp)
    if estimate(n_ref, n_hyp, unit)[0] <= 60 * minutes:
        return  # (the common case, without looking at the tokens)
    seconds, mb = estimate(*_middle(ref, hyp), unit)
    if seconds <= 60 * minutes:
        return
    kind = "word" if unit == "word" else "character"
    raise LineTooLong(
        f"{where} is too long to align: {n_ref:,} reference x {n_hyp:,} hypothesis {kind}s would take "
        f"about {duration(seconds)} and {mb:,.0f} MB here (the limit is {minutes:g} min); "
        "split it into shorter lines (by sentence or segment) and score the pieces, or raise {max_align_minutes}",
        options={"max_align_minutes": "the limit (voxjudge.asr.longform.limit(minutes))"},
    )


def _middle(a: Sequence, b: Sequence) -> tuple[int, int]:
    """The lengths of ``a`` and ``b`` without their common prefix and suffix."""
    n = min(len(a), len(b))
    start = 0
    while start < n and a[start] == b[start]:
        start += 1
    end = 0
    while end < n - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return len(a) - start - end, len(b) - start - end


def ranked(a: Sequence, b: Sequence) -> tuple[list[int], list[int]]:
    """Both token sequences as integer ids, the most frequent tokens first (see the docstring)."""
    counts = Counter(a)
    counts.update(b)
    rank = {t: k for k, (t, _) in enumerate(counts.most_common())}
    get = rank.__getitem__
    return list(map(get, a)), list(map(get, b))


def is_long(a: Sequence, b: Sequence) -> bool:
    return len(a) * len(b) > FORK_PAIRS


def editops(a: Sequence, b: Sequence):
    """rapidfuzz's ``Levenshtein.editops(a, b)``, interruptible when long."""
    from rapidfuzz.distance import Editops, Levenshtein

    if not is_long(a, b):
        return Levenshtein.editops(a, b)
    return Editops(interruptible(_editops_list, *_prepared(a, b)), len(a), len(b))


def opcodes(a: Sequence, b: Sequence) -> list[tuple[str, int, int, int, int]]:
    """rapidfuzz's ``Levenshtein.opcodes(a, b).as_list()``, interruptible when long."""
    from rapidfuzz.distance import Levenshtein

    if not is_long(a, b):
        return Levenshtein.opcodes(a, b).as_list()
    return interruptible(_opcodes_list, *_prepared(a, b))


def distance(a: Sequence, b: Sequence) -> int:
    """rapidfuzz's ``Levenshtein.distance(a, b)``, interruptible when long."""
    from rapidfuzz.distance import Levenshtein

    if not is_long(a, b):
        return Levenshtein.distance(a, b)
    return interruptible(_distance, *_prepared(a, b))


def _prepared(a: Sequence, b: Sequence) -> tuple[Any, Any]:
    if isinstance(a, str) and isinstance(b, str):
        return a, b  # code points: already the table's keys where they can be
    return ranked(a, b)


def _editops_list(a, b) -> list:
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.editops(a, b).as_list()


def _opcodes_list(a, b) -> list:
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.opcodes(a, b).as_list()


def _distance(a, b) -> int:
    """A long pair's distance, in a band around the diagonal (``score_hint``): rapidfuzz starts
    narrow and doubles the band until the distance fits, so the cost grows with the distance, not
    with the lengths' product (a 300,000-word line's CER, 14% WER: 24 against 128 CPU s; two
    unrelated lines, where there is nothing to gain: ~1.8x the whole matrix). The distance is the
    same number either way. Edit scripts are not banded: on ties (tiny alphabets, 3,000 tokens)
    the band picks another of the equally short scripts, and the counts must stay jiwer's."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b, score_hint=1)


def _interruptible_here() -> bool:
    """Whether Ctrl-C would raise KeyboardInterrupt here: the main thread, with Python's handler
    (a worker process that ignores SIGINT is ended by its parent instead), on a system with fork."""
    return (
        hasattr(os, "fork")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )


def interruptible(fn: Callable, *args: Any) -> Any:
    """``fn(*args)`` in a forked child whose answer comes back through a pipe, so that Ctrl-C
    here is acted on at once (the child is killed); run here where that is not needed."""
    if not _interruptible_here():
        return fn(*args)
    if _announce is not None:
        n, m = len(args[0]), len(args[1])
        unit = "character" if isinstance(args[0], str) else "word"
        _announce(f"aligning {n:,} x {m:,} {unit}s (about {duration(estimate(n, m, unit[:4])[0])})")
    from voxjudge._workers import STOP_SIGNALS, held_stop_signals

    read_end, write_end = os.pipe()
    pid = 0
    try:
        with held_stop_signals():  # (a signal that comes during the fork is acted on below, the child ended)
            pid = os.fork()
            if pid == 0:  # the child: answer, and never return into the parent's code
                status = 1
                try:
                    os.close(read_end)
                    _die_with_parent()
                    signal.signal(signal.SIGINT, signal.SIG_DFL)
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    if hasattr(signal, "pthread_sigmask"):
                        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
                    try:
                        answer = (True, fn(*args))
                    except BaseException as e:  # noqa: BLE001 - handed to the parent, which raises it
                        answer = (False, e)
                    with os.fdopen(write_end, "wb") as out:
                        pickle.dump(answer, out, protocol=pickle.HIGHEST_PROTOCOL)
                    status = 0
                finally:
                    os._exit(status)
        os.close(write_end)
        write_end = -1
        with os.fdopen(read_end, "rb") as pipe:
            read_end = -1  # (the file closes it)
            data = pipe.read()  # a blocking read: Ctrl-C interrupts it (PEP 475 retries only EINTR)
    except BaseException:
        if pid:
            _end(pid)
        for end in (read_end, write_end):
            if end >= 0:
                os.close(end)
        raise
    finally:
        if _announce is not None:
            _announce(None)
    _, status = os.waitpid(pid, 0)
    if not data:  # killed (the out-of-memory killer's choice is the process that aligns): exit 3
        from voxjudge._workers import WorkerLost, ended_without_result

        code = os.waitstatus_to_exitcode(status)
        raise WorkerLost(ended_without_result("the process aligning a long line", pid, code))
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value


def _end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _die_with_parent() -> None:
    """Linux: the child is killed when its parent goes (even by SIGKILL)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
