"""The acoustic judge on real (espeak-ng) and synthetic speech."""

from __future__ import annotations

import asyncio
import shutil
import subprocess

import pytest

from voxjudge.errors import InputError
from voxjudge.pairwise import AcousticPairJudge, Pair, Rubric, aggregate, analyze, read_audio, run_judgments
from voxjudge.pairwise.acoustic import expected_breaks, f0_track, rate_clip, syllables

RUBRIC = Rubric.default()
TEXT = "When the rain stopped, the streets were full of people."


def verdicts(a, b, text=TEXT):
    judge = AcousticPairJudge(RUBRIC)
    records = asyncio.run(run_judgments([Pair("p", text, a, b)], judge, RUBRIC, samples=2))
    return aggregate(records, RUBRIC)["p"]


def test_shipped_espeak_clips(examples):
    audio = examples / "pairwise" / "audio"
    text = "When the rain stopped, the streets were full of people."
    flat = verdicts(audio / "t0_natural.wav", audio / "t0_monotone.wav", text)
    assert flat.verdicts["C2"] == "A"  # the natural clip's pitch moves, the monotone one's does not
    misplaced = verdicts(audio / "t0_misplaced.wav", audio / "t0_natural.wav", text)
    assert misplaced.verdicts["C1"] == "B" and misplaced.verdicts["L2"] == "B"
    assert misplaced.verdicts["C3"] == "abstain" and misplaced.verdicts["L1"] == "abstain"


def test_synthetic_pitch_and_pause_contrasts(clip_factory):
    varied = clip_factory("varied", [(1.0, "varied"), (1.2, "varied")], [0.4])
    flat = clip_factory("flat", [(1.0, "flat"), (1.2, "flat")], [0.4])
    res = verdicts(varied, flat)
    assert res.verdicts["C2"] == "A" and res.means["C2"]["A"] > 7 and res.means["C2"]["B"] < 2
    # the text has one comma about 40% of the way in: a pause there is right, one at 15% is not
    at_comma = clip_factory("comma", [(0.9, "varied"), (1.3, "varied")], [0.4])
    mid_phrase = clip_factory("mid", [(0.3, "varied"), (1.9, "varied")], [0.4])
    res = verdicts(at_comma, mid_phrase)
    assert res.verdicts["C1"] == "A" and res.verdicts["L2"] == "A"


def test_features_of_a_synthetic_clip_match_how_it_was_made(clip_factory):
    path = clip_factory("f", [(1.0, "flat"), (1.0, "flat")], [0.5])
    x, rate = read_audio(path)
    f = analyze(x, rate, TEXT)
    assert rate == 16000 and f.duration == pytest.approx(2.5, abs=0.01)
    assert f.f0_median == pytest.approx(120, rel=0.03) and f.f0_std_semitones < 0.3
    assert len(f.pauses) == 1 and f.pauses[0][1] - f.pauses[0][0] == pytest.approx(0.5, abs=0.05)
    assert f.syllables_per_second == pytest.approx(syllables(TEXT) / 2.0, rel=0.1)
    assert len(f0_track(x, rate)) > 150
    assert expected_breaks("a b, c d.") == [pytest.approx(4 / 9)]  # just after the comma
    assert set(rate_clip(f, TEXT)) == {"C1", "C2", "C4", "L2"}


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is installed by .ci/run")
def test_espeak_clips_made_now_get_the_expected_pause_and_pitch_verdicts(tmp_path):
    def say(name: str, markup: str):
        path = tmp_path / f"{name}.wav"
        subprocess.run(["espeak-ng", "-m", "-w", str(path), markup], check=True)
        return path

    good = say("good", '<speak>When the rain stopped, <break time="500ms"/> the streets were full of people.</speak>')
    bad = say(
        "bad",
        '<speak>When the <break time="500ms"/> rain stopped the streets were '
        '<break time="500ms"/> full of people.</speak>',
    )
    res = verdicts(good, bad)
    assert res.verdicts["C1"] == "A" and res.verdicts["L2"] == "A"
    varied = say(
        "varied",
        '<speak><prosody range="x-high">When the rain stopped the streets were full of people.</prosody></speak>',
    )
    flat = say(
        "flat", '<speak><prosody range="x-low">When the rain stopped the streets were full of people.</prosody></speak>'
    )
    assert verdicts(flat, varied).verdicts["C2"] == "B"


def test_bad_audio(tmp_path):
    (tmp_path / "empty.wav").write_bytes(b"")
    (tmp_path / "junk.wav").write_bytes(b"not audio at all")
    with pytest.raises(InputError, match="empty"):
        read_audio(tmp_path / "empty.wav")
    with pytest.raises(InputError, match="junk.wav"):
        read_audio(tmp_path / "junk.wav")
    with pytest.raises(InputError, match="not found"):
        read_audio(tmp_path / "missing.wav")
