"""The offline acoustic judge: prosody features measured from the waveform.

What it measures (numpy only; soundfile is used to read non-WAV files when installed):

* F0 track by YIN (10 ms hop, 60-400 Hz), voicing by periodicity and energy; F0 variability
  in semitones and range (5th-95th percentile);
* pauses: internal silences of at least 150 ms (energy 35 dB below the loudest frame);
* speech rate: syllables (estimated from the text's vowel groups) per second of speaking time;
* final lengthening: the last sounding stretch against the median stretch.

How it rates (1-10), per dimension it can hear, abstaining on the others:

* C1 phrasing and pausing: pauses matched to the text's punctuation by relative position
  (F1 of matched pauses; a pause at a comma is right, one in mid-phrase is wrong);
* C2 intonation: F0 variability, rising to 10 at 3 semitones of standard deviation;
* C4 rhythm and tempo: distance of the speech rate from a natural 3.5-6.5 syllables/s;
* L2 hesitation artifacts: pauses that match no punctuation, and any pause over one second.

C3 (stress), L1 and L3 need linguistic alignment or chunk information it does not have.
"""

from __future__ import annotations

import io
import re
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voxjudge.errors import InputError, reason

FRAME, HOP = 0.040, 0.010
F0_MIN, F0_MAX = 60.0, 400.0
MEASURED = ("C1", "C2", "C4", "L2")
_PUNCT = re.compile(r"[,;:.!?\u2014\u2013\u3001\u3002\u0964]")
_VOWELS = re.compile(r"[aeiouyàáâäèéêëìíîïòóôöùúûüæœ]+", re.IGNORECASE)


def read_audio(path: str | Path) -> tuple[np.ndarray, int]:
    """Mono float samples in [-1, 1] and the sample rate."""
    from voxjudge.io.readers import read_bytes

    p = Path(path)
    data = read_bytes(p, "audio file")
    try:
        with wave.open(io.BytesIO(data)) as w:
            width, rate, channels = w.getsampwidth(), w.getframerate(), w.getnchannels()
            raw = w.readframes(w.getnframes())
        if width not in (1, 2, 4):
            raise wave.Error(f"{8 * width}-bit PCM")
        dtype = {1: np.uint8, 2: np.int16, 4: np.int32}[width]
        x = np.frombuffer(raw, dtype=dtype).astype(np.float64)
        x = (x - 128) / 128 if width == 1 else x / float(2 ** (8 * width - 1))
        return x.reshape(-1, channels).mean(axis=1), rate
    except (wave.Error, EOFError) as e:
        try:
            import soundfile
        except ImportError:
            raise InputError(
                f"{p}: cannot read it as PCM WAV ({reason(e, p)}); install voxjudge[audio] for other formats"
            ) from None
        try:
            x, rate = soundfile.read(io.BytesIO(data), dtype="float64", always_2d=True)
        except Exception as e2:  # soundfile raises its own error types
            raise InputError(f"{p}: not a readable audio file ({reason(e2, p)})") from None
        return x.mean(axis=1), int(rate)


@dataclass(frozen=True)
class ClipFeatures:
    duration: float
    speaking_time: float
    f0_median: float | None
    f0_std_semitones: float | None
    f0_range_semitones: float | None
    pauses: tuple[tuple[float, float], ...]  # (start, end) seconds, internal only
    speech_start: float
    speech_end: float
    syllables_per_second: float | None
    final_lengthening: float | None

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _frames(x: np.ndarray, size: int, hop: int) -> np.ndarray:
    if len(x) < size:
        x = np.pad(x, (0, size - len(x)))
    n = 1 + (len(x) - size) // hop
    idx = np.arange(size)[None, :] + hop * np.arange(n)[:, None]
    return x[idx]


def syllables(text: str) -> int:
    """Vowel groups of the text's words (a rough but language-agnostic syllable count)."""
    return max(1, len(_VOWELS.findall(text)))


def f0_track(x: np.ndarray, rate: int, threshold: float = 0.15) -> np.ndarray:
    """F0 in Hz of the voiced frames, by YIN (cumulative mean normalised difference), vectorised.

    Each 10 ms frame compares a 25 ms window with its shifts up to the longest period; a frame
    is voiced when the normalised difference dips below ``threshold`` and the frame is within
    30 dB of the loudest one.
    """
    window = int(0.025 * rate)
    max_lag = int(rate / F0_MIN) + 2
    size, hop = window + max_lag, int(HOP * rate)
    frames = _frames(x - x.mean(), size, hop)
    level = 20 * np.log10(np.sqrt(np.mean(frames[:, :window] ** 2, axis=1)) + 1e-12)
    n_fft = 1 << int(np.ceil(np.log2(2 * size)))
    spectrum = np.fft.rfft(frames, n_fft, axis=1)
    head = np.fft.rfft(frames[:, :window], n_fft, axis=1)
    cross = np.fft.irfft(np.conj(head) * spectrum, n_fft, axis=1)[:, :max_lag]
    squares = np.cumsum(np.concatenate([np.zeros((len(frames), 1)), frames**2], axis=1), axis=1)
    lags = np.arange(max_lag)
    diff = squares[:, window : window + 1] + (squares[:, lags + window] - squares[:, lags]) - 2 * cross
    diff[:, 0] = 0
    cmnd = np.ones_like(diff)
    cmnd[:, 1:] = diff[:, 1:] / (np.cumsum(diff[:, 1:], axis=1) / np.arange(1, max_lag) + 1e-12)
    lo, hi = int(rate / F0_MAX), max_lag - 2
    band = cmnd[:, lo:hi]
    below = band < threshold
    first = np.argmax(below, axis=1)
    # settle on the local minimum just after the first dip
    ahead = np.clip(first[:, None] + np.arange(20)[None, :], 0, band.shape[1] - 1)
    lag = first + np.argmin(band[np.arange(len(band))[:, None], ahead], axis=1) + lo
    voiced = below.any(axis=1) & (level > level.max() - 30.0)
    return rate / lag[voiced]


def analyze(x: np.ndarray, rate: int, text: str = "") -> ClipFeatures:
    size, hop = int(FRAME * rate), int(HOP * rate)
    frames = _frames(x - x.mean(), size, hop)
    db = 20 * np.log10(np.sqrt(np.mean(frames**2, axis=1)) + 1e-12)
    loud = db > db.max() - 35.0
    f0v = f0_track(x, rate)
    sounding = np.flatnonzero(loud)
    start = sounding[0] * HOP if len(sounding) else 0.0
    end = (sounding[-1] * HOP + FRAME) if len(sounding) else 0.0
    pauses = _pauses(loud, min_len=int(0.15 / HOP))
    pause_time = sum(e - s for s, e in pauses)
    speaking = max(end - start - pause_time, 1e-6)
    if len(f0v) >= 5:
        st = 12 * np.log2(f0v / np.median(f0v))
        f0_med, f0_std = float(np.median(f0v)), float(np.std(st))
        f0_rng = float(np.percentile(st, 95) - np.percentile(st, 5))
    else:
        f0_med = f0_std = f0_rng = None
    stretches = _runs(loud)
    lengths = [(b - a) for a, b in stretches]
    final = float(lengths[-1] / np.median(lengths)) if len(lengths) >= 2 else None
    return ClipFeatures(
        duration=len(x) / rate,
        speaking_time=float(speaking),
        f0_median=f0_med,
        f0_std_semitones=f0_std,
        f0_range_semitones=f0_rng,
        pauses=tuple((float(a), float(b)) for a, b in pauses),
        speech_start=float(start),
        speech_end=float(end),
        syllables_per_second=(syllables(text) / speaking) if text else None,
        final_lengthening=final,
    )


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) frame indices of the True runs."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)))


def _pauses(loud: np.ndarray, min_len: int) -> list[tuple[float, float]]:
    sounding = np.flatnonzero(loud)
    if len(sounding) == 0:
        return []
    inner = ~loud[sounding[0] : sounding[-1] + 1]
    return [((sounding[0] + a) * HOP, (sounding[0] + b) * HOP) for a, b in _runs(inner) if b - a >= min_len]


def expected_breaks(text: str) -> list[float]:
    """Relative positions (0-1) of punctuation inside the text, where a pause belongs."""
    body = text.strip()
    if not body:
        return []
    positions = [m.end() / len(body) for m in _PUNCT.finditer(body)]
    return [p for p in positions if p < 0.97]


def _match(expected: list[float], found: list[float], tolerance: float = 0.08) -> int:
    used, hits = set(), 0
    for e in expected:
        best = min(((abs(e - f), k) for k, f in enumerate(found) if k not in used), default=None)
        if best is not None and best[0] <= tolerance:
            used.add(best[1])
            hits += 1
    return hits


def rate_clip(features: ClipFeatures, text: str) -> dict[str, float]:
    """1-10 scores for the dimensions the waveform can speak to (see the module docstring)."""
    span = max(features.speech_end - features.speech_start, 1e-6)
    found = [((s + e) / 2 - features.speech_start) / span for s, e in features.pauses]
    expected = expected_breaks(text)
    hits = _match(expected, found)
    denom = len(expected) + len(found)
    pause_f1 = 1.0 if denom == 0 else 2 * hits / denom
    scores = {"C1": 1 + 9 * pause_f1}
    if features.f0_std_semitones is not None:
        scores["C2"] = float(np.clip(1 + 9 * features.f0_std_semitones / 3.0, 1, 10))
    if features.syllables_per_second is not None:
        rate = features.syllables_per_second
        off = max(0.0, 3.5 - rate, rate - 6.5)
        scores["C4"] = float(np.clip(10 - 4 * off, 1, 10))
    stray = len(found) - hits
    long_pauses = sum(1 for s, e in features.pauses if e - s > 1.0)
    scores["L2"] = float(np.clip(10 - 3 * stray - 3 * long_pauses, 1, 10))
    return scores


class AcousticJudge:
    """Rates each clip on its own (so it has no position bias) and abstains where it cannot hear."""

    name = "acoustic"

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], dict[str, float]] = {}

    def clip_scores(self, path: Path, text: str) -> dict[str, float]:
        key = (str(path), text)
        if key not in self._cache:
            x, rate = read_audio(path)
            self._cache[key] = rate_clip(analyze(x, rate, text), text)
        return self._cache[key]
