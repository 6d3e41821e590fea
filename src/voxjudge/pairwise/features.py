"""Prosody features measured from a waveform (numpy only), at 10 ms resolution.

* Level: RMS of 10 ms frames in dB. The clip's own *speech level* is the 95th percentile of its
  frame levels and its *floor* the 5th percentile; a frame is silent when it is within a quarter
  of the floor-to-speech distance of the floor, and in any case 35 dB below the speech level,
  never less than 15 dB below it (so a noisy recording's hiss counts as silence too).
* Pauses: internal silent runs of at least ``MIN_PAUSE`` (120 ms). espeak-ng's comma pause is
  ~150 ms at its default rate while stop closures stay under ~110 ms.
* F0: YIN (25 ms window, 10 ms hop, 60-400 Hz); a frame is voiced when the normalised difference
  dips below 0.15 and the frame is not silent. Only *voiced stretches* count: at least
  ``MIN_STRETCH`` (50 ms) of consecutive voiced frames whose F0 moves less than ``MAX_JUMP``
  semitones from frame to frame, as in a syllable's nucleus. A click, a ringing tap or a noise
  burst can fool YIN for a frame or two, never for a stretch. Variability in semitones (std and
  5-95% range); the *final contour* is the F0 change over the last ``FINAL_SPAN`` of voicing.
* Speaking time: from the first to the last sounding frame, pauses excluded.
* Speech presence: a clip without speech (digital silence, clicks, knocks, a short or steady tone
  such as mains hum, noise) is reported with the reason, so a judge can tell it from a reading.
  Speech needs ``MIN_VOICED`` of voiced stretches that are not rings (a stretch that peaks at its
  onset and only decays is a struck resonance); without the F0 track, ``MIN_VOICED`` of sound in
  runs of ``MIN_STRETCH`` (level alone cannot tell a knock from a syllable).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HOP = 0.010
MIN_PAUSE = 0.12
F0_MIN, F0_MAX = 60.0, 400.0
SILENCE_DROP_DB = 35.0
MIN_VOICED = 0.08  # seconds of voiced stretches below which a clip holds no speech
MIN_STRETCH = 0.05  # a voiced (or, level only, sounding) run shorter than this is a click or a tap
MAX_JUMP = 3.0  # semitones between neighbouring frames of one voiced stretch
FINAL_SPAN = 0.25  # seconds of final voicing over which the final contour is measured
CONTOUR_STEP = 1.5  # semitones of final change that make a contour rising or falling
VOICING = 0.15  # YIN threshold of the F0 track
PRESENCE_VOICING = 0.35  # YIN threshold of the voiced stretches that decide speech presence
RING_DECAY = 6.0  # dB a knock's stretch decays by after its onset (see is_ring)
FIXED_PITCH = 0.15  # semitones (interquartile) of F0 below which voicing is a resonance or a tone
ATTACK = 6.0  # dB of rise in one frame that starts a new sound (a knock, a syllable)
QUIET_DBFS = -60.0  # a clip whose peak is below this is silent


@dataclass(frozen=True)
class ClipFeatures:
    duration: float
    speech_start: float
    speech_end: float
    speaking_time: float  # speech_end - speech_start minus the pauses
    voiced_time: float | None  # None when the F0 track was skipped
    pauses: tuple[tuple[float, float], ...]  # (start, end) seconds, internal only
    f0_median: float | None
    f0_std_semitones: float | None
    f0_range_semitones: float | None
    no_speech: str | None = None  # why the clip holds no speech, or None
    f0_final_semitones: float | None = None  # F0 change over the last FINAL_SPAN of voicing

    @property
    def final_contour(self) -> str | None:
        """ "rising", "falling" or "level" (within CONTOUR_STEP semitones), None without F0."""
        c = self.f0_final_semitones
        if c is None:
            return None
        return "rising" if c >= CONTOUR_STEP else "falling" if c <= -CONTOUR_STEP else "level"

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def sounding_before(self, t: float) -> float:
        """Speaking time (pauses excluded) from the start of speech to time ``t``."""
        elapsed = max(0.0, min(t, self.speech_end) - self.speech_start)
        return elapsed - sum(max(0.0, min(e, t) - s) for s, e in self.pauses)


def _frames(x: np.ndarray, size: int, hop: int) -> np.ndarray:
    if len(x) < size:
        x = np.pad(x, (0, size - len(x)))
    n = 1 + (len(x) - size) // hop
    idx = np.arange(size)[None, :] + hop * np.arange(n)[:, None]
    return x[idx]


def frame_levels(x: np.ndarray, rate: int) -> np.ndarray:
    """dB level of consecutive 10 ms frames (digital silence is -240 dB)."""
    hop = max(1, int(round(HOP * rate)))
    frames = _frames(x, hop, hop)
    return 20 * np.log10(np.sqrt(np.mean(frames**2, axis=1)) + 1e-12)


def sounding_mask(db: np.ndarray) -> np.ndarray:
    """Frames that are not silent, relative to the clip's own speech level and floor."""
    audible = db[db > -200]
    if len(audible) == 0:
        return np.zeros(len(db), dtype=bool)
    level = np.percentile(audible, 95)
    floor = max(np.percentile(db, 5), level - 80.0)
    # a quarter of the way from the floor to speech, but never closer to speech than 15 dB
    # (a clip with few pauses has its 5th percentile inside speech) nor further than 35 dB
    threshold = np.clip(floor + 0.25 * (level - floor), level - SILENCE_DROP_DB, level - 15.0)
    return db > threshold


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) indices of the True runs."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist()))


def f0_track(x: np.ndarray, rate: int, threshold: float = 0.15) -> np.ndarray:
    """F0 in Hz per 10 ms frame by YIN (cumulative mean normalised difference), NaN where unvoiced.

    Frame k starts at k * 10 ms, like the level frames, so the two line up. Frames are processed
    in blocks so a long clip does not need gigabytes.
    """
    return f0_tracks(x, rate, (threshold,))[0]


def f0_tracks(x: np.ndarray, rate: int, thresholds: tuple[float, ...]) -> list[np.ndarray]:
    """``f0_track`` at several voicing thresholds, from one difference function per frame."""
    window = int(0.025 * rate)
    max_lag = int(rate / F0_MIN) + 2
    size, hop = window + max_lag, max(1, int(round(HOP * rate)))
    n_out = max(1, len(x) // hop)
    padded = np.pad(x - x.mean(), (0, size + hop))
    out = [np.empty(n_out) for _ in thresholds]
    for lo in range(0, n_out, 400):
        n = min(400, n_out - lo)
        block = padded[lo * hop : (lo + n - 1) * hop + size]
        cmnd = _cmnd(_frames(block, size, hop)[:n], window, max_lag)
        for track, threshold in zip(out, thresholds):
            track[lo : lo + n] = _pick(cmnd, rate, max_lag, threshold)
    return out


def _cmnd(frames: np.ndarray, window: int, max_lag: int) -> np.ndarray:
    size = frames.shape[1]
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
    return cmnd


def _pick(cmnd: np.ndarray, rate: int, max_lag: int, threshold: float) -> np.ndarray:
    lo, hi = int(rate / F0_MAX), max_lag - 2
    band = cmnd[:, lo:hi]
    below = band < threshold
    first = np.argmax(below, axis=1)
    # settle on the local minimum just after the first dip
    ahead = np.clip(first[:, None] + np.arange(20)[None, :], 0, band.shape[1] - 1)
    lag = first + np.argmin(band[np.arange(len(band))[:, None], ahead], axis=1) + lo
    return np.where(below.any(axis=1), rate / lag, np.nan)


def long_runs(mask: np.ndarray, min_frames: int) -> np.ndarray:
    """``mask`` with its True runs shorter than ``min_frames`` cleared."""
    out = np.zeros(len(mask), dtype=bool)
    for a, b in runs(mask):
        if b - a >= min_frames:
            out[a:b] = True
    return out


def voiced_stretches(f0: np.ndarray) -> np.ndarray:
    """``f0`` with NaN outside voiced stretches: runs of at least ``MIN_STRETCH`` of voiced frames
    whose F0 moves less than ``MAX_JUMP`` semitones from one frame to the next."""
    voiced = ~np.isnan(f0)
    # a jump between neighbours (or an unvoiced frame) ends a stretch
    st = 12 * np.log2(np.where(voiced, f0, 1.0))
    smooth = np.concatenate([[False], voiced[1:] & voiced[:-1] & (np.abs(np.diff(st)) < MAX_JUMP)])
    keep = np.zeros(len(f0), dtype=bool)
    min_frames = int(round(MIN_STRETCH / HOP))
    for a, b in runs(smooth):  # run [a, b) of frames joined to their predecessor: stretch a-1 .. b
        if b - a + 1 >= min_frames:
            keep[a - 1 : b] = True
    return np.where(keep, f0, np.nan)


def is_ring(levels: np.ndarray) -> bool:
    """A struck resonance (a knock, a ringing click), not a syllable: from a peak in its first two
    frames the level only decays, by ``RING_DECAY`` dB or more."""
    peak = int(np.argmax(levels))
    after = levels[peak:]
    return peak <= 1 and after[0] - after[-1] >= RING_DECAY and bool(np.all(np.diff(after) <= 1.0))


def speech_voicing(f0: np.ndarray, db: np.ndarray) -> np.ndarray:
    """The frames of the voiced stretches (``f0`` from ``voiced_stretches``) that are syllable-like:
    a stretch is cut at every attack (a rise of ``ATTACK`` dB or more in one frame), since knocks in quick
    succession ring into each other, and the pieces of ``MIN_STRETCH`` or more that are no ring
    are kept."""
    keep = np.zeros(len(f0), dtype=bool)
    min_frames = int(round(MIN_STRETCH / HOP))
    for a, b in runs(~np.isnan(f0)):
        attacks = [a] + [k for k in range(a + 1, b) if db[k] - db[k - 1] >= ATTACK] + [b]
        for lo, hi in zip(attacks, attacks[1:]):
            keep[lo:hi] = hi - lo >= min_frames and not is_ring(db[lo:hi])
    return keep


def _spread(x: np.ndarray) -> float:
    """Interquartile range: a few click frames do not move it."""
    q1, q3 = np.percentile(x, [25, 75])
    return float(q3 - q1)


def final_change(f0: np.ndarray) -> float | None:
    """F0 change (semitones, least-squares line) over the last ``FINAL_SPAN`` of voiced frames."""
    idx = np.flatnonzero(~np.isnan(f0))
    n = int(round(FINAL_SPAN / HOP))
    if len(idx) < n:
        return None
    idx = idx[-n:]
    st = 12 * np.log2(f0[idx] / np.median(f0[idx]))
    slope = np.polyfit(idx * HOP, st, 1)[0]
    return float(slope * (idx[-1] - idx[0]) * HOP)


def _no_speech(x: np.ndarray, db: np.ndarray, sounding: np.ndarray, f0: np.ndarray | None) -> str | None:
    """Why the clip holds no speech, or None. Without an F0 track only level is looked at.
    ``f0``: the voiced stretches only (see ``voiced_stretches``)."""
    peak = float(np.max(np.abs(x))) if len(x) else 0.0
    if peak == 0.0:
        return "no speech: digital silence"
    if 20 * np.log10(peak) < QUIET_DBFS:
        return f"no speech: the loudest sample is at {20 * np.log10(peak):.0f} dBFS"
    need = f"at least {1000 * MIN_VOICED:.0f} ms needed"
    if f0 is None:
        sounding_time = float(np.sum(long_runs(sounding, int(round(MIN_STRETCH / HOP)))) * HOP)
        if sounding_time < MIN_VOICED:
            return f"no speech: {1000 * sounding_time:.0f} ms of sound in runs of {1000 * MIN_STRETCH:.0f} ms ({need})"
        return None
    voiced = speech_voicing(f0, db)
    if np.sum(voiced) * HOP < MIN_VOICED:
        stretch = f"{1000 * MIN_STRETCH:.0f} ms"
        return f"no speech: {1000 * np.sum(voiced) * HOP:.0f} ms of voicing in stretches of {stretch} ({need})"
    st = 12 * np.log2(f0[voiced] / np.median(f0[voiced]))
    power = np.convolve(10 ** (db[: len(f0)] / 10), np.ones(5) / 5, mode="same")  # 50 ms: mains hum is steady
    level = 10 * np.log10(power[voiced] + 1e-24)
    if _spread(level) < 1.5 and _spread(st) < 0.6:  # mains hum wobbles by half a semitone
        return "no speech: a steady tone (level and pitch do not move)"
    if _spread(st) < FIXED_PITCH:  # espeak-ng's flattest voice still spreads over 0.36 st
        return f"no speech: a fixed pitch (F0 spread under {FIXED_PITCH:g} semitones: a resonance, not a voice)"
    return None


def analyze(x: np.ndarray, rate: int, *, pitch: bool = True) -> ClipFeatures:
    """Features of one mono clip (samples in [-1, 1]). ``pitch=False`` skips the F0 track (most of
    the cost): the F0 fields and voiced time are then None, and speech presence is judged by level."""
    db = frame_levels(x, rate)
    sounding = sounding_mask(db)
    f0 = presence = None
    if pitch:
        # strict voicing for the F0 figures; looser voicing, in stretches, for speech presence
        # (breathy voices fall between YIN's dips)
        f0, loose = (t[: len(db)] for t in f0_tracks(x, rate, (VOICING, PRESENCE_VOICING)))
        f0 = np.where(sounding[: len(f0)], f0, np.nan)
        presence = voiced_stretches(np.where(sounding[: len(loose)], loose, np.nan))
    reason = _no_speech(x, db, sounding, presence)
    on = np.flatnonzero(sounding)
    start = float(on[0] * HOP) if len(on) else 0.0
    end = float((on[-1] + 1) * HOP) if len(on) else 0.0
    pauses: list[tuple[float, float]] = []
    if len(on):
        inner = ~sounding[on[0] : on[-1] + 1]
        min_frames = int(round(MIN_PAUSE / HOP))
        pauses = [((on[0] + a) * HOP, (on[0] + b) * HOP) for a, b in runs(inner) if b - a >= min_frames]
    speaking = max(end - start - sum(e - s for s, e in pauses), 0.0)
    voiced = f0[~np.isnan(f0)] if f0 is not None else np.zeros(0)
    if len(voiced) >= 5:
        st = 12 * np.log2(voiced / np.median(voiced))
        f0_med, f0_std = float(np.median(voiced)), float(np.std(st))
        f0_rng = float(np.percentile(st, 95) - np.percentile(st, 5))
    else:
        f0_med = f0_std = f0_rng = None
    return ClipFeatures(
        duration=len(x) / rate,
        speech_start=start,
        speech_end=end,
        speaking_time=float(speaking),
        voiced_time=float(len(voiced) * HOP) if f0 is not None else None,
        pauses=tuple((float(a), float(b)) for a, b in pauses),
        f0_median=f0_med,
        f0_std_semitones=f0_std,
        f0_range_semitones=f0_rng,
        no_speech=reason,
        f0_final_semitones=final_change(f0) if f0 is not None else None,
    )
