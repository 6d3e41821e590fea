"""Audio a study may serve: regular files under the study's audio root, of an audio type read from
their first bytes (never from the name), served with that type's fixed content type.

Items files are untrusted: a path may name ``/etc/passwd``, climb out with ``..``, be a symlink
to anything, or be an ``.html`` file that a browser would run; and someone with a shell on the
machine may swap a file for a symlink or a FIFO while the study runs. Every check is made when the
study is created and again on every request, on the very descriptor that is then served: the file
is opened once, component by component without following any symlink and without blocking, checked
as a regular audio file, and streamed from that descriptor (never reopened by name).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from voxjudge.errors import InputError

CONTENT_TYPES = {
    "wav": "audio/wav",
    "flac": "audio/flac",
    "ogg": "audio/ogg",
    "mp3": "audio/mpeg",
    "mp4": "audio/mp4",
    "webm": "audio/webm",
}


def sniff(head: bytes) -> str | None:
    """The audio kind of a file from its first 16 bytes, or None when it is not one we serve."""
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav"
    if head[:4] == b"fLaC":
        return "flac"
    if head[:4] == b"OggS":
        return "ogg"
    if head[:3] == b"ID3" or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "mp3"
    if head[4:8] == b"ftyp":
        return "mp4"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "webm"
    return None


def locate(root: Path, rel: str) -> tuple[Path, str] | str:
    """(resolved path, kind) of ``rel`` under ``root``, or why it cannot be served. For checking
    (``studio init``, the admin page); serving opens the file once with ``open_audio``."""
    try:
        path = (root / rel).resolve(strict=True)
    except (OSError, RuntimeError):
        return "missing"
    if not path.is_relative_to(root):
        return "outside the audio root"
    found = open_audio(root, path.relative_to(root).as_posix())
    if isinstance(found, str):
        return found
    found.close()
    return path, found.kind


@dataclass
class Opened:
    """An audio file opened and checked: serve it from ``fd`` (the very file that was checked)."""

    fd: int
    kind: str
    size: int

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _why_refused(root: Path, rel: str, err: OSError) -> str:
    if err.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):  # a symlink met on the way
        try:
            inside = (root / rel).resolve(strict=True).is_relative_to(root)
        except (OSError, RuntimeError):
            return "missing"
        return "a symlink (files are served as the study checked them)" if inside else "outside the audio root"
    return "missing"


def open_audio(root: Path, rel: str) -> Opened | str:
    """Open ``rel`` under ``root`` one component at a time (each with O_NOFOLLOW | O_NONBLOCK, from
    the descriptor of the folder before it), so no symlink anywhere and no FIFO or device can be
    opened or block; then check it is a regular audio file. The caller serves and closes ``fd``."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return "outside the audio root"
    try:
        cur = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return "missing"
    try:
        for part in parts[:-1]:
            try:
                nxt = os.open(part, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_DIRECTORY", 0), dir_fd=cur)
            except OSError as e:
                return _why_refused(root, rel, e)
            os.close(cur)
            cur = nxt
        try:
            fd = os.open(parts[-1], os.O_RDONLY | _NOFOLLOW, dir_fd=cur)
        except OSError as e:
            return _why_refused(root, rel, e)
    finally:
        os.close(cur)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return "not a regular file"
    kind = sniff(os.pread(fd, 16, 0))
    if kind is None:
        os.close(fd)
        return "not an audio file"
    return Opened(fd, kind, st.st_size)


def _reader(fd: int):
    """A file object over a duplicate of ``fd`` (its own close; reads from the start)."""
    f = os.fdopen(os.dup(fd), "rb")
    f.seek(0)
    return f


def duration(opened: Opened) -> float | None:
    """Seconds of audio (WAV by the standard library, other kinds by soundfile when installed)."""
    if opened.kind == "wav":
        import wave

        try:
            with _reader(opened.fd) as f, wave.open(f, "rb") as w:
                return w.getnframes() / float(w.getframerate())
        except (wave.Error, EOFError, ZeroDivisionError):
            pass
    try:
        import soundfile
    except ImportError:
        return None
    try:
        with _reader(opened.fd) as f:
            info = soundfile.info(f)
    except (RuntimeError, TypeError, ValueError):
        return None
    return float(info.frames) / info.samplerate if info.samplerate else None


SILENT_DBFS = -40.0  # the loudest 20 ms of speech sits far above this (typically -25 to -10 dBFS)


def loudest_dbfs(opened: Opened) -> float | None:
    """The RMS level of the loudest 20 ms of the clip in dBFS (None when its samples cannot be read)."""
    import numpy as np

    samples, rate = None, None
    if opened.kind == "wav":
        import wave

        try:
            with _reader(opened.fd) as f, wave.open(f, "rb") as w:
                width, rate, channels = w.getsampwidth(), w.getframerate(), w.getnchannels()
                raw = w.readframes(w.getnframes())
            if width in (2, 4):
                samples = np.frombuffer(raw, dtype=f"<i{width}").astype(np.float64) / float(2 ** (8 * width - 1))
            elif width == 1:
                samples = (np.frombuffer(raw, dtype=np.uint8).astype(np.float64) - 128) / 128
            if samples is not None and channels > 1:
                samples = samples[: len(samples) // channels * channels].reshape(-1, channels).mean(axis=1)
        except (wave.Error, EOFError):
            samples = None
    if samples is None:
        try:
            import soundfile

            with _reader(opened.fd) as f:
                data, rate = soundfile.read(f, dtype="float64", always_2d=True)
            samples = data.mean(axis=1)
        except (ImportError, RuntimeError, TypeError, ValueError):
            return None
    if not rate or samples.size == 0:
        return float("-inf")
    frame = max(1, int(rate * 0.02))
    n = max(1, samples.size // frame)
    frames = samples[: n * frame].reshape(n, -1) if samples.size >= frame else samples.reshape(1, -1)
    rms = float(np.sqrt((frames**2).mean(axis=1)).max())
    return 20 * np.log10(rms) if rms > 0 else float("-inf")


def admit(root: Path, path: str, where: str, loudness: bool = False) -> tuple[str, str, float | None, float | None]:
    """(path relative to ``root``, kind, seconds, loudest 20 ms in dBFS) for an item's audio, or
    InputError naming the problem. The level is read only with ``loudness`` (it reads every sample)."""
    p = Path(path)
    p = p if p.is_absolute() else root / p
    try:
        rel = os.path.relpath(os.path.abspath(p), root)
    except ValueError:  # another drive
        rel = str(p)
    found = locate(root, rel)
    if not isinstance(found, str):
        rel = found[0].relative_to(root).as_posix()
        found = open_audio(root, rel)
    if isinstance(found, str):
        raise InputError(
            f"{where}: audio {path} is {found}; a study serves only audio files under its audio root {root} "
            "(choose another root with {{audio_root}})",
            options={"audio_root": "audio_root="},
        )
    try:
        return rel, found.kind, duration(found), loudest_dbfs(found) if loudness else None
    finally:
        found.close()
