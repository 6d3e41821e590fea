"""Chunks of ``(id, ref, hyp)`` rows scored by ``stream.ChunkScorer``, in one process or in
``jobs`` worker processes, each building its own judge; results come back in input order and are
identical to one process. A bounded number of chunks is in flight, so memory does not grow with
the corpus. A worker's records stay in a memory file it was lent (``voxjudge._spool``) and are
copied onto the output by the kernel: the process that adds the chunks up and writes the records
competes with the workers for the cores.
"""

from __future__ import annotations

import gc
import os
from collections import deque
from collections.abc import Iterator

from voxjudge import _spool
from voxjudge._workers import ForkedWorkers
from voxjudge.asr.laser.chunk_records import ChunkResult
from voxjudge.asr.laser.stream import ChunkScorer, StreamSettings

CHUNK = 2000  # utterances per chunk


def _chunks(rows, size: int) -> Iterator[list]:
    chunk: list = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


_worker: ChunkScorer | None = None


def _init_worker(settings: StreamSettings) -> None:
    global _worker
    from voxjudge._heap import keep_freed_heap

    keep_freed_heap()  # a worker frees and makes again a chunk's worth of memory per chunk
    _worker = ChunkScorer(settings)  # each process builds its own judge and caches


def _preload(settings: StreamSettings) -> None:
    """What every worker's judge reads and never changes -- the language's word frequencies, the
    phonemizer's voice, the modules they import -- loaded here once before the workers fork, so
    that they share it instead of each loading its own (0.2-0.4 CPU s a worker)."""
    from voxjudge.asr.laser.lexicon import _frequencies
    from voxjudge.asr.laser.phonetics import _backend, voice_for

    _frequencies(settings.lang)
    voice = voice_for(settings.lang)
    if voice is not None:
        _backend(voice)
    gc.freeze()  # the collector of a worker then never walks (and copies) what it inherits


def _work(chunk, spool: int | None) -> ChunkResult:
    assert _worker is not None
    result = _scored(_worker, chunk)
    if spool is not None and result.records:  # the records stay here, in the memory file lent
        result.spooled = (spool, _spool.fill(spool, result.records))
        result.records = []
    _settle()
    return result


def _scored(scorer: ChunkScorer, chunk) -> ChunkResult:
    """One chunk scored with the automatic collector paused: ``_settle`` collects after every chunk
    anyway, and the passes it made inside one (the judge allocates a lot) found nothing to free."""
    if not gc.isenabled():
        return scorer(chunk)
    gc.disable()
    try:
        return scorer(chunk)
    finally:
        gc.enable()


def _settle(full: bool = False) -> None:
    """After a chunk: collect what is not frozen yet (what this chunk made), then freeze what
    survived -- mostly the caches -- so that the cyclic collector never walks them again: its
    passes over them took a tenth of a 200k-utterance run. In a worker the chunk's objects are all
    in the young generations (the collector was paused while it was scored, and nothing else runs
    there), so collecting those finds its cycles before anything is frozen; a full collection also
    empties the interpreter's free lists, three times the cost. ``full`` where other code ran
    between chunks with the collector on: what it left in the old generation is collected too,
    not frozen. (``score_chunks`` unfreezes when it ends.)"""
    gc.collect() if full else gc.collect(1)
    gc.freeze()


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def score_chunks(rows, settings: StreamSettings, *, jobs: int = 1, total: int | None = None) -> Iterator[ChunkResult]:
    """Results of successive chunks of ``(id, ref, hyp)`` rows, in input order; with ``jobs`` > 1
    (and more than one chunk) from that many worker processes, a few chunks in flight at once."""
    chunks = _chunks(rows, CHUNK)
    if jobs <= 1 or (total is not None and total <= CHUNK):
        scorer = ChunkScorer(settings)
        try:
            for n, chunk in enumerate(chunks, 1):
                result = _scored(scorer, chunk)
                # the caller runs here between chunks, the collector on; after the last chunk no
                # chunk is left to gain from it (a full pass costs a small run ~25 ms)
                if total is None or n * CHUNK < total:
                    _settle(full=True)
                yield result
        finally:
            gc.unfreeze()
        return
    if total is not None:
        jobs = min(jobs, -(-total // CHUNK))  # a worker per chunk at most: more would only start
    import multiprocessing

    fork = "fork" in multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if fork else None)
    in_flight = 2 * jobs  # bounded: memory does not grow with the corpus
    # records come back through memory files the workers inherit, not through the pipes
    spools = _spool.Spools.open(in_flight) if settings.records and fork else None
    lent: deque = deque()  # the memory file of each chunk sent, in order

    def tasks():
        for chunk in chunks:
            lent.append(spools.take() if spools else None)
            yield chunk, lent[-1]

    if fork:
        _preload(settings)
    try:
        with ForkedWorkers(ctx, jobs, _work, _init_worker, (settings,)) as workers:
            for result in workers.ordered(tasks(), in_flight):
                spool = lent.popleft()
                try:
                    yield result
                finally:
                    # the memory file is lent again once the caller moves on (or stops): records
                    # it did not write by then are read back first, so a result kept for later
                    # still holds them
                    if spool is not None:
                        result.keep_records()
                        spools.give_back(spool)
    finally:
        if spools:
            spools.close()
        gc.unfreeze()  # frozen for the workers' sake (``_preload``)
    # the workers froze their own heaps; this process's is the reader's and writer's, and small
