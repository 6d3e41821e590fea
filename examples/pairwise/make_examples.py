"""Regenerate the example clips with espeak-ng (Debian package espeak-ng) and the pair files.

    python examples/pairwise/make_examples.py

Four renditions of each text: natural (pauses at the commas), monotone (flat pitch), misplaced
pauses (breaks inside phrases) and rushed (fast, no pauses). Clips are resampled to 16 kHz mono.
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


def ssml(text: str, style: str) -> str:
    if style == "natural":
        body = text.replace(", ", ', <break time="450ms"/> ')
        return f'<speak><prosody range="x-high">{body}</prosody></speak>'
    if style == "monotone":
        return f'<speak><prosody range="x-low">{text.replace(", ", " ")}</prosody></speak>'
    if style == "misplaced":
        words = text.replace(",", "").split()
        cut1, cut2 = 2, len(words) - 3
        body = (
            " ".join(words[:cut1])
            + ' <break time="600ms"/> '
            + " ".join(words[cut1:cut2])
            + ' <break time="600ms"/> '
            + " ".join(words[cut2:])
        )
        return f"<speak>{body}</speak>"
    return f'<speak><prosody rate="x-fast">{text.replace(",", "")}</prosody></speak>'  # rushed


def render(markup: str, path: Path) -> None:
    raw = subprocess.run(["espeak-ng", "-m", "--stdout", markup], capture_output=True, check=True).stdout
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
