"""Memory files between worker processes and the writer (``voxjudge._spool``)."""

from __future__ import annotations

import errno
import os

import pytest

from voxjudge import _spool

pytestmark = pytest.mark.skipif(not _spool.available(), reason="no memfd here")


def test_fill_then_copy_out_appends_exactly_the_bytes_written(tmp_path):
    spools = _spool.Spools(1)
    fd = spools.take()
    try:
        pieces = [f"line {k} é\n".encode() for k in range(3000)]  # more than one pwritev call
        assert _spool.fill(fd, pieces) == sum(map(len, pieces))
        shorter = [b"second\n"]
        size = _spool.fill(fd, shorter)  # the file is not truncated: what follows is stale
        path = tmp_path / "out.jsonl"
        with path.open("w", encoding="utf-8") as f:
            f.write("before\n")
            f.flush()
            _spool.copy_out(fd, size, f.buffer)
            f.write("after\n")
        assert path.read_bytes() == b"before\nsecond\nafter\n"
        assert _spool.read(fd, size) == b"second\n"
    finally:
        spools.close()


def test_copy_out_reads_and_writes_where_sendfile_cannot(tmp_path, monkeypatch):
    def refuse(*args):
        raise OSError(errno.EINVAL, "not here")

    spools = _spool.Spools(1)
    fd = spools.take()
    try:
        data = os.urandom(3 << 20)  # over the 1 MB read size
        size = _spool.fill(fd, [data])
        monkeypatch.setattr(os, "sendfile", refuse)
        path = tmp_path / "out.bin"
        with path.open("wb") as f:
            _spool.copy_out(fd, size, f)
        assert path.read_bytes() == data
    finally:
        spools.close()


def test_a_short_spool_file_is_an_error_not_a_short_output(tmp_path):
    spools = _spool.Spools(1)
    fd = spools.take()
    try:
        size = _spool.fill(fd, [b"abc"])
        with (tmp_path / "out").open("wb") as f, pytest.raises(OSError, match="early"):
            _spool.copy_out(fd, size + 10, f)
        with pytest.raises(OSError, match="early"):
            _spool.read(fd, size + 1)
    finally:
        spools.close()


def test_every_file_is_lent_once_at_a_time():
    spools = _spool.Spools(2)
    a, b = spools.take(), spools.take()
    assert a != b
    with pytest.raises(IndexError):
        spools.take()
    spools.give_back(a)
    assert spools.take() == a
    spools.close()


def test_no_descriptors_left_for_the_files_means_the_pipe(monkeypatch):
    made = []

    def memfd(name, flags=0):
        if len(made) == 2:
            raise OSError(errno.EMFILE, "Too many open files")
        made.append(os.open(os.devnull, os.O_RDONLY))
        return made[-1]

    monkeypatch.setattr(os, "memfd_create", memfd)
    assert _spool.Spools.open(4) is None
    for fd in made:  # the two opened were closed again
        with pytest.raises(OSError):
            os.fstat(fd)
