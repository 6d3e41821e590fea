"""One audio reader for every judge: it decodes and validates a clip, or says what is wrong with it.

Reads what libsndfile reads (through ``soundfile``): WAV of any common sample format (8/16/24/32-bit
PCM, 32/64-bit float, WAVE_FORMAT_EXTENSIBLE), FLAC, Ogg/Vorbis, MP3, AIFF. A file that does not
decode, a WAV whose data chunk is shorter than its header says (a truncated download or copy),
or a clip with no samples is an ``InputError`` naming the file. The acoustic judge gets the
samples; the audio-LLM path gets the same validated bytes with the container format that was
actually found (not the one the suffix claims).
"""

from __future__ import annotations

import base64
import hashlib
import io
import struct
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from voxjudge.errors import InputError

AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg", "flac": "audio/flac", "ogg": "audio/ogg"}


@dataclass(frozen=True)
class AudioPart:
    """Audio bytes with their container format; the cache keys it by content hash, not by path.
    Plain data with no model in it: ``voxjudge.llm`` puts it in a message (``llm.types`` re-exports it)."""

    data: bytes = field(repr=False)
    format: str = "wav"

    def __post_init__(self) -> None:
        if self.format not in AUDIO_FORMATS:
            raise InputError(f"audio format {self.format!r} not supported; use one of {', '.join(AUDIO_FORMATS)}")

    @classmethod
    def from_path(cls, path: str | Path) -> AudioPart:
        """The clip after the one audio validation every path shares (format from the content,
        not the suffix; silence-free decoding checked), so no judge is sent bytes that are not audio."""
        return audio_part(path)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    @property
    def mime_type(self) -> str:
        return AUDIO_FORMATS[self.format]

    def seconds(self) -> float | None:
        """Duration for WAV (from the header); None for compressed formats."""
        if self.format != "wav":
            return None
        import io
        import wave

        try:
            with wave.open(io.BytesIO(self.data)) as w:
                return w.getnframes() / float(w.getframerate())
        except (wave.Error, EOFError):
            return None


# container name from libsndfile -> the format name an audio-LLM request carries
_CONTAINERS = {"WAV": "wav", "WAVEX": "wav", "RF64": "wav", "FLAC": "flac", "OGG": "ogg", "MP3": "mp3"}
_STREAMING_SIZE = 0x7FFF0000  # writers that cannot seek (espeak-ng --stdout) leave a huge placeholder


@dataclass(frozen=True)
class Audio:
    """Decoded mono samples in [-1, 1] with what the file said about itself."""

    path: Path
    samples: np.ndarray
    rate: int
    channels: int
    container: str  # libsndfile's name: WAV, WAVEX, FLAC, OGG, MP3, AIFF, ...
    subtype: str  # PCM_16, PCM_24, FLOAT, VORBIS, ...

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate


def _wav_shortfall(data: bytes) -> tuple[int, int] | None:
    """(declared, present) data bytes when a RIFF/WAVE file's data chunk is cut short, else None."""
    if len(data) < 12 or data[:4] not in (b"RIFF", b"RIFX") or data[8:12] != b"WAVE":
        return None
    pos = 12
    order = "<" if data[:4] == b"RIFF" else ">"
    while pos + 8 <= len(data):
        tag, size = data[pos : pos + 4], struct.unpack(order + "I", data[pos + 4 : pos + 8])[0]
        if tag == b"data":
            present = len(data) - pos - 8
            if size < _STREAMING_SIZE and present < size:
                return size, present
            return None
        pos += 8 + size + (size & 1)
    return None


def read_audio(path: str | Path) -> Audio:
    """Decode and validate one clip (see the module docstring); stereo is averaged to mono."""
    from voxjudge.io.readers import read_bytes

    return _decode(Path(path), read_bytes(path, "audio file"))


def _decode(p: Path, data: bytes) -> Audio:
    import soundfile

    try:
        info = soundfile.info(io.BytesIO(data))
        x, rate = soundfile.read(io.BytesIO(data), dtype="float64", always_2d=True)
    except Exception as e:  # libsndfile's errors carry its own message
        reason = str(e).split(": ", 1)[-1].strip() or type(e).__name__
        raise InputError(f"{p}: not a readable audio file ({reason}); use WAV, FLAC, Ogg or MP3") from None
    short = _wav_shortfall(data)
    if short is not None:
        raise InputError(
            f"{p}: truncated WAV: the header declares {short[0]} bytes of audio but the file holds {short[1]}"
        )
    if info.frames > 0 and len(x) < info.frames:
        raise InputError(f"{p}: truncated audio: {len(x)} of {info.frames} frames decode")
    if len(x) == 0:
        raise InputError(f"{p}: the audio file holds no samples (0 frames)")
    if not np.isfinite(x).all():
        raise InputError(f"{p}: the audio holds NaN or infinite samples")
    return Audio(p, x.mean(axis=1), int(rate), x.shape[1], info.format, info.subtype)


def audio_part(path: str | Path):
    """The clip as an ``AudioPart`` for an audio LLM, after the same validation as ``read_audio``
    (done once per file version: a judge sends the same clip in many requests)."""
    from voxjudge.io.readers import read_bytes

    data = read_bytes(path, "audio file")
    stat = Path(path).stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    fmt = _VALIDATED.get(key)
    if fmt is None:
        audio = _decode(Path(path), data)
        fmt = _CONTAINERS.get(audio.container)
        if fmt is None:
            raise InputError(
                f"{path}: {audio.container} audio cannot be sent to an audio LLM; convert it to WAV or FLAC"
            )
        _VALIDATED[key] = fmt
    return AudioPart(data, fmt)


_VALIDATED: dict[tuple[str, int, int], str] = {}  # (path, mtime, size) -> format, for files that passed
