"""Regenerate the example clips with espeak-ng (Debian package espeak-ng) and the pair files.

    python examples/pairwise/make_examples.py

Four renditions of each text: natural (espeak-ng's own reading, ~150 ms pauses at the commas),
monotone (flat pitch), misplaced (the commas dropped and a 600 ms pause put inside a phrase) and
rushed (30% faster). Clips are resampled to 16 kHz mono.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import wave
from pathlib import Path

import numpy as np
from scipy.signal import resample_poly

HERE = Path(__file__).parent
TEXTS = [
    "When the rain stopped, the streets were full of people.",
    "If you need any help, please call me before noon.",
    "After the long meeting, everyone went home without a word.",
    "The museum is closed on Mondays, but open every other day.",
    "Before you leave, make sure that all the windows are closed.",
    "Although it was late, the little shop was still open.",
]


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
    cut = longest[len(longest) // 2 - 1]
    plain = [w.rstrip(",") for w in words]
    return " ".join(plain[: cut + 1]) + ' <break time="600ms"/> ' + " ".join(plain[cut + 1 :])


def ssml(text: str, style: str) -> tuple[str, int]:
    """SSML and words per minute of one rendition; natural is espeak-ng's own reading (175 wpm)."""
    if style == "natural":
        return f"<speak>{text}</speak>", 175
    if style == "monotone":
        return f'<speak><prosody range="x-low">{text}</prosody></speak>', 175
    if style == "misplaced":
        return f"<speak>{misplaced(text)}</speak>", 175
    return f"<speak>{text}</speak>", 228  # rushed: 30% faster


def render(markup: tuple[str, int], path: Path) -> None:
    body, wpm = markup
    cmd = ["espeak-ng", "-m", "-s", str(wpm), "--stdout", body]
    raw = subprocess.run(cmd, capture_output=True, check=True).stdout
    with wave.open(io.BytesIO(raw)) as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(float)
    y = resample_poly(x, 16000, rate)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(np.clip(y, -32768, 32767).astype(np.int16).tobytes())


def main() -> None:
    rng = random.Random(7)
    styles = ("natural", "monotone", "misplaced", "rushed")
    for k, text in enumerate(TEXTS):
        for style in styles:
            render(ssml(text, style), HERE / "audio" / f"t{k}_{style}.wav")
    # natural against each flawed rendition; the better clip lands in A or B at random
    better_dims = {"monotone": ["C2"], "misplaced": ["C1", "L2"], "rushed": ["C4", "C1"]}
    pairs = []
    for k, text in enumerate(TEXTS):
        for flaw, dims in better_dims.items():
            good, bad = f"audio/t{k}_natural.wav", f"audio/t{k}_{flaw}.wav"
            a_is_good = rng.random() < 0.5
            win = "A" if a_is_good else "B"
            pairs.append(
                {
                    "pair_id": f"t{k}-natural-vs-{flaw}",
                    "text": text,
                    "audio_a": good if a_is_good else bad,
                    "audio_b": bad if a_is_good else good,
                    "human": {"overall": win, **{d: win for d in dims}},
                    "human_confident": dims,
                    "system_a": "natural" if a_is_good else flaw,
                    "system_b": flaw if a_is_good else "natural",
                }
            )
    (HERE / "pairs.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pairs))
    sets = [
        {
            "set_id": f"t{k}",
            "text": text,
            "candidates": [f"audio/t{k}_{s}.wav" for s in ("rushed", "misplaced", "natural", "monotone")],
            "human_topk": [f"audio/t{k}_natural.wav"],
        }
        for k, text in enumerate(TEXTS)
    ]
    (HERE / "candidates.jsonl").write_text("".join(json.dumps(s) + "\n" for s in sets))


if __name__ == "__main__":
    main()
