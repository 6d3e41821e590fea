"""Speech made by espeak-ng during the tests: natural renditions of texts with commas and four
flawed ones, in several voices. The judge never saw these clips before the test made them.
Also ``write_wav`` for synthetic signals (importable by name, unlike a conftest)."""

from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ESPEAK = shutil.which("espeak-ng")
VOICES = ("en-us", "en-gb", "en-029")
RATE = 175  # espeak-ng's default words per minute
SENTENCES = (
    "When the rain stopped, the streets were full of people.",
    "If you need any help, please call me before noon.",
    "After the long meeting, everyone went home without a word.",
    "The museum is closed on Mondays, but open every other day.",
    "Before you leave, make sure that all the windows are closed.",
    "Although it was late, the little shop was still open.",
    "In the morning, we walked along the river to the old bridge.",
    "My brother, who lives in Boston, is coming to visit next week.",
    "We bought apples, oranges, and a loaf of fresh bread.",
    "As the sun went down, the children ran back to their houses.",
    "To be honest, I never liked that restaurant very much.",
    "Once the paint is dry, you can move the furniture back.",
)
FLAWS = ("monotone", "rushed", "commas_ignored", "misplaced_pause")


def misplaced(text: str) -> str:
    """The commas dropped and a 600 ms pause put in the middle of the longest comma-free phrase."""
    words = text.split()
    phrases, current = [], []
    for k, w in enumerate(words):
        current.append(k)
        if w.endswith(","):
            phrases.append(current)
            current = []
    phrases.append(current)
    longest = max(phrases, key=len)
    cut = longest[len(longest) // 2 - 1]  # the pause follows this word
    plain = [w.rstrip(",") for w in words]
    return " ".join(plain[: cut + 1]) + ' <break time="600ms"/> ' + " ".join(plain[cut + 1 :])


def markup(text: str, style: str) -> tuple[str, int]:
    """(SSML, words per minute) of one rendition."""
    if style == "natural":
        return text, RATE
    if style == "monotone":
        return f'<prosody range="x-low">{text}</prosody>', RATE
    if style == "rushed":
        return text, round(RATE * 1.3)
    if style == "commas_ignored":
        return text.replace(",", ""), RATE
    if style == "misplaced_pause":
        return misplaced(text), RATE
    raise ValueError(style)


def render(path: Path, voice: str, text: str, style: str) -> Path:
    body, wpm = markup(text, style)
    cmd = [ESPEAK, "-v", voice, "-s", str(wpm), "-m", "-w", str(path), f"<speak>{body}</speak>"]
    subprocess.run(cmd, check=True, capture_output=True)
    return path


def make_corpus(folder: Path) -> dict[tuple[str, int, str], Path]:
    """(voice, sentence index, style) -> clip, rendered in parallel."""
    jobs = {
        (v, k, style): folder / f"{v}_{k}_{style}.wav"
        for v in VOICES
        for k in range(len(SENTENCES))
        for style in ("natural", *FLAWS)
    }
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda item: render(item[1], item[0][0], SENTENCES[item[0][1]], item[0][2]), jobs.items()))
    return jobs


def write_wav(path: Path, x: np.ndarray, rate: int = 16000) -> Path:
    """16-bit PCM WAV of samples in [-1, 1]."""
    import soundfile

    soundfile.write(path, np.clip(x, -1, 1), rate, subtype="PCM_16")
    return path


def click_shapes() -> dict[str, np.ndarray]:
    """One click each, at 16 kHz: an impulse, a 15 ms noise burst, and struck resonances (a tap on
    a microphone or a desk) that ring for 4-30 ms."""
    rate = 16000
    t = np.arange(int(0.15 * rate)) / rate
    shapes = {
        "impulse": np.array([1.0, -0.6, 0.3]),
        "burst": np.random.default_rng(7).standard_normal(int(0.015 * rate)),
    }
    for freq, tau in ((150, 0.004), (250, 0.010), (1000, 0.010), (2500, 0.005), (300, 0.030)):
        shapes[f"ring{freq}Hz_{int(tau * 1000)}ms"] = np.sin(2 * np.pi * freq * t) * np.exp(-t / tau)
    return shapes


def clicks(
    seconds: float, shape: np.ndarray, per_second: float, *, noise_db: float | None, hum: bool, seed: int = 0
) -> np.ndarray:
    """A recording without a reading: clicks of one shape at random times and levels, over an
    optional noise floor (dB re full scale) and 60 Hz mains hum with two harmonics (-40 dB)."""
    rate = 16000
    rng = np.random.default_rng(seed)
    x = np.zeros(int(seconds * rate))
    for t in np.sort(rng.uniform(0.05, seconds - 0.2, max(1, int(seconds * per_second)))):
        i = int(t * rate)
        seg = shape[: len(x) - i]
        x[i : i + len(seg)] += 0.8 * rng.uniform(0.3, 1.0) * seg
    if noise_db is not None:
        x += 10 ** (noise_db / 20) * rng.standard_normal(len(x))
    if hum:
        tt = np.arange(len(x)) / rate
        x += 0.01 * sum(np.sin(2 * np.pi * 60 * k * tt) / k for k in (1, 2, 3))
    return np.clip(x, -1, 1)


def voice(f0: np.ndarray, rate: int = 16000) -> np.ndarray:
    """A buzzy harmonic 'voice' following an F0 contour (one value per sample)."""
    phase = 2 * np.pi * np.cumsum(f0) / rate
    return sum(np.sin(k * phase) / k for k in range(1, 8)) * 0.3
