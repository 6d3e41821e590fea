"""Bytes from worker processes to the process that writes them, through memory files.

A worker's records sent back through the pool's pipe are copied five times: pickled, written to
the pipe, read from it, unpickled and written to the output (a 200k-utterance LASER run moves
554 MB that way, a tenth of the run's CPU). Instead the parent opens a few anonymous memory files
(``memfd_create``) before it forks its workers; a worker writes a chunk's bytes into the one it is
given, and the parent has the kernel copy them to the output (``sendfile``). At most one chunk a
file: memory stays bounded (the files are not mapped, so they count in no process's resident
set; each holds one chunk's records, ~3 MB). Linux only; elsewhere ``available()`` is False and
the bytes go through the pipe as before.
"""

from __future__ import annotations

import errno
import os
from collections import deque

IOV_MAX = 1024  # buffers per pwritev call (POSIX's minimum for IOV_MAX)


def available() -> bool:
    return hasattr(os, "memfd_create") and hasattr(os, "pwritev") and hasattr(os, "sendfile")


class Spools:
    """``n`` memory files, each lent to one chunk at a time (``take``, ``give_back``)."""

    def __init__(self, n: int):
        self.fds: list[int] = []
        try:
            for k in range(n):
                self.fds.append(os.memfd_create(f"voxjudge-spool-{k}", os.MFD_CLOEXEC))
        except OSError:
            self.close()
            raise
        self._free = deque(self.fds)

    @classmethod
    def open(cls, n: int) -> Spools | None:
        """``n`` memory files, or None where there are none (not Linux) or no descriptors left
        for them (a low open-file limit): the bytes then go through the pipe."""
        if not available():
            return None
        try:
            return cls(n)
        except OSError:
            return None

    def take(self) -> int:
        return self._free.popleft()

    def give_back(self, fd: int) -> None:
        self._free.append(fd)

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds, self._free = [], deque()


def fill(fd: int, pieces: list[bytes]) -> int:
    """Write ``pieces`` at the start of the memory file ``fd``; the bytes written (what is after
    them is stale: the file is not truncated, so its pages are not freed and zeroed again for the
    next chunk). The file's offset is shared with the other processes: every write names its own."""
    offset = 0
    for k in range(0, len(pieces), IOV_MAX):
        batch = pieces[k : k + IOV_MAX]
        want = sum(map(len, batch))
        done = os.pwritev(fd, batch, offset)
        if done < want:  # a short write (not seen on memory files): the rest one by one
            data = b"".join(batch)[done:]
            while data:
                n = os.pwrite(fd, data, offset + done)
                data, done = data[n:], done + n
        offset += want
    return offset


def copy_out(fd: int, size: int, out) -> None:
    """The first ``size`` bytes of memory file ``fd`` onto the end of the binary file ``out``,
    copied by the kernel (read and written here where ``sendfile`` cannot write to ``out``)."""
    out.flush()
    dest, done = out.fileno(), 0
    while done < size:
        try:
            n = os.sendfile(dest, fd, done, size - done)
        except OSError as e:
            if e.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                raise
            n = os.write(dest, os.pread(fd, min(size - done, 1 << 20), done))
        if n == 0:
            raise OSError(errno.EIO, f"spool file ended {size - done} bytes early")
        done += n
    out.seek(0, os.SEEK_END)  # the file object's position after the kernel's writes


def read(fd: int, size: int) -> bytes:
    """The first ``size`` bytes of memory file ``fd``."""
    parts, done = [], 0
    while done < size:
        data = os.pread(fd, size - done, done)
        if not data:
            raise OSError(errno.EIO, f"spool file ended {size - done} bytes early")
        parts.append(data)
        done += len(data)
    return b"".join(parts)
