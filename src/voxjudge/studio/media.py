"""Audio a study may serve: regular files under the study's audio root, of an audio type read from
their first bytes (never from the name), served with that type's fixed content type.

Items files are untrusted: a path may name ``/etc/passwd``, climb out with ``..``, be a symlink
to anything, or be an ``.html`` file that a browser would run. Every check is made when the study
is created and again on every request, so a file swapped for a symlink afterwards is refused too.
"""

from __future__ import annotations

import os
import stat
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
    """(resolved path, kind) of ``rel`` under ``root``, or why it cannot be served."""
    try:
        path = (root / rel).resolve(strict=True)
    except (OSError, RuntimeError):
        return "missing"
    if not path.is_relative_to(root):
        return "outside the audio root"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return "missing"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a regular file"
        kind = sniff(os.read(fd, 16))
    finally:
        os.close(fd)
    return (path, kind) if kind else "not an audio file"


def duration(path: Path, kind: str) -> float | None:
    """Seconds of audio (WAV by the standard library, other kinds by soundfile when installed)."""
    if kind == "wav":
        import wave

        try:
            with wave.open(str(path), "rb") as w:
                return w.getnframes() / float(w.getframerate())
        except (wave.Error, EOFError, ZeroDivisionError):
            pass
    try:
        import soundfile
    except ImportError:
        return None
    try:
        info = soundfile.info(str(path))
    except RuntimeError:
        return None
    return float(info.frames) / info.samplerate if info.samplerate else None


def admit(root: Path, path: str, where: str) -> tuple[str, str, float | None]:
    """(path relative to ``root``, kind, seconds) for an item's audio, or InputError naming the problem."""
    p = Path(path)
    p = p if p.is_absolute() else root / p
    try:
        rel = os.path.relpath(os.path.abspath(p), root)
    except ValueError:  # another drive
        rel = str(p)
    found = locate(root, rel)
    if isinstance(found, str):
        raise InputError(
            f"{where}: audio {path} is {found}; a study serves only audio files under its audio root {root} "
            "(choose another root with {{audio_root}})",
            options={"audio_root": "audio_root="},
        )
    resolved, kind = found
    return resolved.relative_to(root).as_posix(), kind, duration(resolved, kind)
