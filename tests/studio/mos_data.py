"""A small MOS study on disk: clips of two systems, a gold clip with an obvious defect, training clips."""

from __future__ import annotations

import json
import wave
from pathlib import Path

import numpy as np

RATE = 16000


def write_wav(path: Path, signal: np.ndarray) -> Path:
    pcm = (np.clip(signal, -1, 1) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())
    return path


def tone(seconds: float, f0: float, noise: float = 0.0, seed: int = 0) -> np.ndarray:
    t = np.arange(int(RATE * seconds)) / RATE
    x = 0.3 * np.sin(2 * np.pi * f0 * t) + 0.1 * np.sin(2 * np.pi * 2 * f0 * t)
    return x + noise * np.random.default_rng(seed).standard_normal(len(t))


def mos_files(folder: Path, seconds: float = 0.4, n_per_system: int = 3) -> dict[str, Path]:
    """items.jsonl (systems 'clean' and 'noisy'), gold.jsonl (the clipped burst must get 1 or 2) and
    training.jsonl (one clean clip expected 4-5, one noisy expected 1-2)."""
    audio = folder / "audio"
    audio.mkdir(parents=True, exist_ok=True)
    rows = []
    for k in range(n_per_system):
        for system, noise in (("clean", 0.0), ("noisy", 0.2)):
            name = f"{system}_{k}.wav"
            write_wav(audio / name, tone(seconds, 180 + 20 * k, noise, seed=k))
            rows.append({"id": f"{system}-{k}", "audio": f"audio/{name}", "system": system})
    write_wav(audio / "gold_burst.wav", np.sign(tone(seconds, 90, 0.8, seed=9)))  # hard-clipped noise: a defect
    rows.append({"id": "gold-burst", "audio": "audio/gold_burst.wav", "system": "check"})
    items = folder / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    gold = folder / "gold.jsonl"
    gold.write_text(json.dumps({"id": "gold-burst", "answer": {"score": [1, 2]}}) + "\n")
    write_wav(audio / "train_clean.wav", tone(seconds, 200))
    write_wav(audio / "train_noisy.wav", tone(seconds, 200, 0.4, seed=3))
    training = folder / "training.jsonl"
    training.write_text(
        json.dumps({"id": "train-clean", "audio": "audio/train_clean.wav", "expected": [4, 5], "explain": "clean"})
        + "\n"
        + json.dumps({"id": "train-noisy", "audio": "audio/train_noisy.wav", "expected": [1, 2], "explain": "hiss"})
        + "\n"
    )
    return {"items": items, "gold": gold, "training": training}
