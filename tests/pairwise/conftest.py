from __future__ import annotations

import io
import json
import wave
from pathlib import Path

import numpy as np
import pytest
from espeak_corpus import voice


def write_wav(path: Path, x: np.ndarray, rate: int = 16000) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(x, -1, 1) * 32000).astype(np.int16).tobytes())
    return path


@pytest.fixture
def clip_factory(tmp_path):
    """Synthetic clips: segments of voiced speech (F0 contour given) separated by silences."""

    def make(name: str, segments: list[tuple[float, str]], pauses: list[float], rate: int = 16000) -> Path:
        parts = []
        for k, (seconds, contour) in enumerate(segments):
            n = int(seconds * rate)
            t = np.arange(n) / rate
            # "flat": a monotone voice, which still wobbles (0.3 st); no voice holds a fixed pitch
            depth, hz = (0.3, 0.7) if contour == "flat" else (4.0, 1.5)
            f0 = 120.0 * 2 ** (depth * np.sin(2 * np.pi * hz * t) / 12)
            syll = 0.55 + 0.45 * np.abs(np.sin(np.pi * 4.5 * t))  # ~4.5 syllable pulses per second
            parts.append(voice(f0, rate) * syll)
            if k < len(pauses):
                parts.append(np.zeros(int(pauses[k] * rate)))
        return write_wav(tmp_path / f"{name}.wav", np.concatenate(parts), rate)

    return make


@pytest.fixture
def pairs_file(tmp_path):
    """A pairs JSONL over given (pair_id, text, audio_a, audio_b, human) tuples."""

    def make(rows, name="pairs.jsonl") -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return path

    return make


def read_wav_bytes(data: bytes):
    with wave.open(io.BytesIO(data)) as w:
        return w.getnframes()


@pytest.fixture(scope="session")
def espeak_clips(tmp_path_factory):
    """(voice, sentence, style) -> clip: espeak-ng speech made once per test session."""
    from espeak_corpus import ESPEAK, make_corpus

    if ESPEAK is None:
        pytest.skip("espeak-ng is not installed (Debian package espeak-ng; .ci/run installs it)")
    return make_corpus(tmp_path_factory.mktemp("espeak"))


@pytest.fixture(scope="session")
def espeak_judged(espeak_clips):
    """Natural against each flawed rendition, the natural clip in slot A or B at random, judged
    by the acoustic judge: (pairs, the natural clip's slot per pair, aggregated results, judge)."""
    import asyncio
    import random

    from espeak_corpus import FLAWS, SENTENCES, VOICES

    from voxjudge.pairwise import AcousticPairJudge, Pair, Rubric, aggregate, run_judgments

    rubric = Rubric.default()
    rng = random.Random(0)
    pairs, truth = [], {}
    for speaker in VOICES:
        for k, text in enumerate(SENTENCES):
            for flaw in FLAWS:
                good, bad = espeak_clips[(speaker, k, "natural")], espeak_clips[(speaker, k, flaw)]
                natural_first = rng.random() < 0.5
                pid = f"{speaker}/{k}/{flaw}"
                pairs.append(Pair(pid, text, *((good, bad) if natural_first else (bad, good))))
                truth[pid] = "A" if natural_first else "B"
    judge = AcousticPairJudge(rubric)
    records = asyncio.run(run_judgments(pairs, judge, rubric, samples=2))
    return pairs, truth, aggregate(records, rubric), judge
