"""The offline acoustic judge: two renditions of one text compared from their waveforms.

It rates (1-10) the dimensions a waveform can speak to and abstains on the others:

* C1 phrasing and pausing: pauses (see ``features``) matched to the text's punctuation. A pause's
  place is the share of speaking time before it; punctuation's place is the share of the text's
  letters before it; they match within ``TOLERANCE``. Score = 1 + 9 x F1 of matched pauses.
* C2 intonation: F0 variability, 1 + 9 x (std in semitones / 3), capped at 10.
* C4 rhythm and tempo: 10 - 10 x |ln(rate / 4.5)|, rate in syllables (vowel groups of the text)
  per second of speaking time. Vowel groups overcount English syllables by ~10%, so 4.5 sits
  at a calm ~4 syllables/s; a clip 30% faster than another loses ~2.6 points to it.
* L2 hesitation artifacts: 10 - 3 per pause that matches no punctuation, - 3 per pause over 1 s.

Pair-relative: both clips read the same text, so their ratios are exact even where the absolute
numbers are rough (the syllable count is shared). Differences below what a listener hears are
ties: speaking times within 5% (tempo), F0 variability within 10% (intonation).

A clip without speech loses to a clip with speech on every dimension (no reading has no prosody
to rate): the pair is flagged with the reason. Two clips without speech make the pair abstain
with the reasons. A clip whose speaking rate is implausible for the text, or a pair whose clips
differ in length beyond any rendition of one text, gets a warning (the text is probably wrong,
and C4 with it). ``measurements`` says what each score stands on, clip by clip.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from voxjudge.io.audio import read_audio
from voxjudge.pairwise.features import MIN_PAUSE, ClipFeatures, analyze
from voxjudge.plural import counted

MEASURED = ("C1", "C2", "C4", "L2")
TOLERANCE = 0.08
TARGET_RATE = 4.5
TEMPO_TIE = 1.05
PITCH_TIE = 1.10
PLAUSIBLE_RATE = (1.5, 10.0)  # vowel groups per second of speaking time
PLAUSIBLE_LENGTH_RATIO = 2.0  # speaking times of two renditions of one text
_BREAK_PUNCT = ",;:.!?\u2014\u2013\u3001\u3002\u0964\uff0c\uff1b\uff1a"
_VOWELS = re.compile(r"[aeiouyàáâäèéêëìíîïòóôöùúûüæœ]+", re.IGNORECASE)


def syllables(text: str) -> int:
    """Vowel groups of the text's words (a rough but language-agnostic syllable count)."""
    return max(1, len(_VOWELS.findall(text)))


def expected_breaks(text: str) -> list[float]:
    """Places (0-1, share of the text's letters before it) of punctuation inside the text."""
    letters = sum(c.isalnum() for c in text)
    if not letters:
        return []
    out, seen = [], 0
    for c in text:
        if c.isalnum():
            seen += 1
        elif c in _BREAK_PUNCT and 0 < seen < letters and (not out or out[-1] != seen / letters):
            out.append(seen / letters)
    return out


def pause_places(f: ClipFeatures) -> list[float]:
    """Places (0-1, share of speaking time before it) of the clip's pauses."""
    if f.speaking_time <= 0:
        return []
    return [f.sounding_before((s + e) / 2) / f.speaking_time for s, e in f.pauses]


def _matched(expected: list[float], found: list[float]) -> int:
    used, hits = set(), 0
    for e in expected:
        best = min(((abs(e - p), k) for k, p in enumerate(found) if k not in used), default=None)
        if best is not None and best[0] <= TOLERANCE:
            used.add(best[1])
            hits += 1
    return hits


def speech_rate(f: ClipFeatures, text: str) -> float | None:
    """Syllables (vowel groups) per second of speaking time, None without text or speech."""
    if not any(c.isalnum() for c in text) or f.speaking_time <= 0:
        return None
    return syllables(text) / f.speaking_time


def rate_clip(f: ClipFeatures, text: str) -> dict[str, float]:
    """1-10 scores of one clip on the dimensions it can measure (see the module docstring)."""
    expected, found = expected_breaks(text), pause_places(f)
    hits = _matched(expected, found)
    denom = len(expected) + len(found)
    scores = {"C1": 1 + 9 * (1.0 if denom == 0 else 2 * hits / denom)}
    if f.f0_std_semitones is not None:
        scores["C2"] = float(np.clip(1 + 9 * f.f0_std_semitones / 3.0, 1, 10))
    rate = speech_rate(f, text)
    if rate is not None:
        scores["C4"] = float(np.clip(10 - 10 * abs(math.log(rate / TARGET_RATE)), 1, 10))
    long_pauses = sum(1 for s, e in f.pauses if e - s > 1.0)
    scores["L2"] = float(np.clip(10 - 3 * (len(found) - hits) - 3 * long_pauses, 1, 10))
    return scores


def _tie(a: dict[str, float], b: dict[str, float], dim: str) -> bool:
    if dim in a and dim in b:
        a[dim] = b[dim] = (a[dim] + b[dim]) / 2
        return True
    return False


def compare_clips(
    fa: ClipFeatures, fb: ClipFeatures, text: str
) -> tuple[dict[str, float], dict[str, float], dict[str, str]]:
    """Scores of clips A and B, with differences below a listener's resolution made ties, and
    why each such tie was made (dimension -> reason)."""
    a, b = rate_clip(fa, text), rate_clip(fb, text)
    ties: dict[str, str] = {}
    if fa.speaking_time > 0 and fb.speaking_time > 0:
        if abs(math.log(fa.speaking_time / fb.speaking_time)) < math.log(TEMPO_TIE):
            if _tie(a, b, "C4"):
                ties["C4"] = f"speaking times within {100 * (TEMPO_TIE - 1):.0f}%: a tie"
    sa, sb = fa.f0_std_semitones, fb.f0_std_semitones
    if sa and sb and abs(math.log(sa / sb)) < math.log(PITCH_TIE):
        if _tie(a, b, "C2"):
            ties["C2"] = f"F0 variability within {100 * (PITCH_TIE - 1):.0f}%: a tie"
    return a, b, ties


def clip_warning(f: ClipFeatures, text: str) -> str | None:
    """Why the clip's length is implausible for its text, or None."""
    rate = speech_rate(f, text)
    if rate is None or f.no_speech:
        return None
    low, high = PLAUSIBLE_RATE
    if not low <= rate <= high:
        return (
            f"{syllables(text)} syllables in {f.speaking_time:.2f} s of speech is {rate:.1f} per second, "
            f"outside {low:g}-{high:g}: is the text right? (C4 is computed from it)"
        )
    return None


def pair_warning(fa: ClipFeatures, fb: ClipFeatures) -> str | None:
    """A warning when two clips cannot both be renditions of one text, or None."""
    if fa.no_speech or fb.no_speech or min(fa.speaking_time, fb.speaking_time) <= 0:
        return None
    ratio = max(fa.speaking_time, fb.speaking_time) / min(fa.speaking_time, fb.speaking_time)
    if ratio > PLAUSIBLE_LENGTH_RATIO:
        longer = "A" if fa.speaking_time > fb.speaking_time else "B"
        return f"clip {longer} speaks {ratio:.1f} times as long as the other: are both renditions of the same text?"
    return None


def _seconds(t: float) -> str:
    return f"{t:.2f} s"


def measurements(f: ClipFeatures, text: str) -> dict[str, str]:
    """What each measured dimension's score of one clip stands on, in words and numbers."""
    expected, found = expected_breaks(text), pause_places(f)
    hits = _matched(expected, found)
    if f.pauses:
        pauses = "pauses at " + ", ".join(f"{_seconds(s)} ({1000 * (e - s):.0f} ms)" for s, e in f.pauses)
    else:
        pauses = f"no pause of {1000 * MIN_PAUSE:.0f} ms or more"
    if expected:
        matched = f"{hits} of {counted(len(expected), 'punctuation break')} in the text matched"
    else:
        matched = "no punctuation inside the text to match"
    out = {"C1": f"{pauses}; {matched}"}
    if f.f0_median is not None:
        contour = f.final_contour
        change = round(f.f0_final_semitones, 1) + 0.0 if contour else 0.0  # + 0.0: no "-0.0"
        final = f"; final contour {contour} ({change:+.1f} st)" if contour else ""
        out["C2"] = (
            f"F0 median {f.f0_median:.0f} Hz, range {f.f0_range_semitones:.1f} st (5-95%), "
            f"std {f.f0_std_semitones:.1f} st{final}"
        )
    rate = speech_rate(f, text)
    if rate is not None:
        out["C4"] = f"{rate:.1f} syllables/s ({syllables(text)} in {_seconds(f.speaking_time)} of speech)"
    long_pauses = sum(1 for s, e in f.pauses if e - s > 1.0)
    out["L2"] = f"{counted(len(found) - hits, 'pause')} off punctuation, {long_pauses} over 1 s"
    return out


@dataclass
class PairScores:
    a: dict[str, float] = field(default_factory=dict)
    b: dict[str, float] = field(default_factory=dict)
    abstain: str | None = None  # why no score was given (both clips without speech)
    forfeit: str | None = None  # "A" or "B": the only clip with speech (the other holds none)
    reason: str | None = None  # why the other clip lost (its no-speech reason)
    notes: dict[str, str] = field(default_factory=dict)  # dimension -> measurements of both clips


class AcousticJudge:
    """Measures each clip once (cached by path) and compares pairs; no model, no position bias."""

    name = "acoustic"

    def __init__(self, *, pitch: bool = True) -> None:
        self.pitch = pitch  # False: level only, for checking clips an LLM will judge (much faster)
        self._features: dict[str, ClipFeatures] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def features(self, path: str | Path) -> ClipFeatures:
        key = str(path)
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # pairs sharing a clip are judged concurrently: measure it once
            if key not in self._features:
                audio = read_audio(path)
                self._features[key] = analyze(audio.samples, audio.rate, pitch=self.pitch)
        return self._features[key]

    def compare(self, path_a: str | Path, path_b: str | Path, text: str) -> PairScores:
        fa, fb = self.features(path_a), self.features(path_b)
        silent = [
            f"clip {slot} ({p}): {f.no_speech}" for slot, p, f in (("A", path_a, fa), ("B", path_b, fb)) if f.no_speech
        ]
        if len(silent) == 2:
            return PairScores(abstain="; ".join(silent))
        if silent:
            winner, f = ("B", fb) if fa.no_speech else ("A", fa)
            notes = {d: f"clip {winner}: {m}" for d, m in measurements(f, text).items()}
            return PairScores(forfeit=winner, reason=silent[0], notes=notes)
        a, b, ties = compare_clips(fa, fb, text)
        ma, mb = measurements(fa, text), measurements(fb, text)
        notes = {d: f"A: {ma[d]}; B: {mb[d]}" + (f"; {ties[d]}" if d in ties else "") for d in a if d in b}
        return PairScores(a, b, notes=notes)
