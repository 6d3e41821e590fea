"""The acoustic judge on espeak-ng speech made during the test, and on synthetic signals."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from espeak_corpus import FLAWS, SENTENCES, VOICES, write_wav

from voxjudge.pairwise import AcousticPairJudge, Pair, Rubric, aggregate, analyze, read_audio, run_judgments
from voxjudge.pairwise.acoustic import (
    AcousticJudge,
    clip_warning,
    expected_breaks,
    pause_places,
    rate_clip,
    syllables,
)
from voxjudge.pairwise.checks import check_pairs
from voxjudge.pairwise.features import f0_track

RUBRIC = Rubric.default()
TEXT = "When the rain stopped, the streets were full of people."


def verdicts(a, b, text=TEXT):
    judge = AcousticPairJudge(RUBRIC)
    records = asyncio.run(run_judgments([Pair("p", text, a, b)], judge, RUBRIC, samples=2))
    return aggregate(records, RUBRIC)["p"], records


def accuracy(espeak_judged, flaw: str, dim: str = "overall") -> float:
    pairs, truth, results, _ = espeak_judged
    ids = [p.pair_id for p in pairs if p.pair_id.endswith("/" + flaw)]
    got = [(results[i].overall if dim == "overall" else results[i].verdicts[dim]) == truth[i] for i in ids]
    return sum(got) / len(got)


def test_the_corpus_is_big_enough(espeak_judged):
    pairs = espeak_judged[0]
    assert len(VOICES) >= 3 and len(SENTENCES) >= 12 and all("," in s for s in SENTENCES)
    assert len(pairs) == len(VOICES) * len(SENTENCES) * len(FLAWS)


@pytest.mark.parametrize("flaw", FLAWS)
def test_natural_beats_each_flaw_on_generated_speech(espeak_judged, flaw):
    assert accuracy(espeak_judged, flaw) >= 0.9


@pytest.mark.parametrize("flaw", ["commas_ignored", "misplaced_pause"])
def test_phrasing_is_heard_on_generated_speech(espeak_judged, flaw):
    assert accuracy(espeak_judged, flaw, "C1") >= 0.9
    if flaw == "misplaced_pause":  # a pause in mid-phrase is a hesitation artifact too
        assert accuracy(espeak_judged, flaw, "L2") >= 0.9


def test_tempo_and_intonation_are_heard_on_generated_speech(espeak_judged):
    assert accuracy(espeak_judged, "rushed", "C4") >= 0.9
    assert accuracy(espeak_judged, "monotone", "C2") >= 0.9
    # the two renditions differ in pitch only: tempo and pausing tie or nearly so
    pairs, truth, results, _ = espeak_judged
    mono = [results[p.pair_id] for p in pairs if p.pair_id.endswith("/monotone")]
    assert sum(r.verdicts["C4"] == "tie" for r in mono) / len(mono) >= 0.9


def test_espeak_comma_pauses_are_detected(espeak_clips, espeak_judged):
    """espeak-ng's ~150 ms comma pause is a pause; a rendition without commas has none."""
    judge = espeak_judged[3].acoustic  # the clips were measured there already
    found = missed = spurious = 0
    for (_voice, k, style), path in espeak_clips.items():
        if style not in ("natural", "commas_ignored"):
            continue
        f = judge.features(path)
        places = pause_places(f)
        if style == "commas_ignored":
            spurious += len(places)
            continue
        for comma in expected_breaks(SENTENCES[k]):
            if any(abs(comma - p) <= 0.08 for p in places):
                found += 1
            else:
                missed += 1
    assert found / (found + missed) >= 0.9
    assert spurious <= 0.1 * len(VOICES) * len(SENTENCES)


def test_pause_resolution_is_ten_milliseconds(clip_factory):
    for gap in (0.13, 0.16, 0.30):
        path = clip_factory(f"gap{int(gap * 1000)}", [(1.0, "varied"), (1.2, "varied")], [gap])
        f = analyze(read_audio(path).samples, 16000)
        assert len(f.pauses) == 1 and f.pauses[0][1] - f.pauses[0][0] == pytest.approx(gap, abs=0.011)
    short = clip_factory("gap100", [(1.0, "varied"), (1.2, "varied")], [0.10])
    assert analyze(read_audio(short).samples, 16000).pauses == ()  # a stop closure is no pause


def test_pauses_are_relative_to_the_clips_own_level(clip_factory, tmp_path):
    loud = read_audio(clip_factory("loud", [(1.0, "varied"), (1.2, "varied")], [0.2])).samples
    rng = np.random.default_rng(0)
    for gain, noise in ((0.01, 0.0), (1.0, 0.003)):  # 40 dB quieter; hiss 30 dB below the speech
        x = gain * loud + noise * rng.standard_normal(len(loud))
        f = analyze(read_audio(write_wav(tmp_path / f"g{gain}.wav", x)).samples, 16000)
        assert len(f.pauses) == 1 and f.pauses[0][1] - f.pauses[0][0] == pytest.approx(0.2, abs=0.02)
        assert f.no_speech is None


def test_synthetic_pitch_and_pause_contrasts(clip_factory):
    varied = clip_factory("varied", [(1.0, "varied"), (1.2, "varied")], [0.4])
    flat = clip_factory("flat", [(1.0, "flat"), (1.2, "flat")], [0.4])
    res, _ = verdicts(varied, flat)
    assert res.verdicts["C2"] == "A" and res.means["C2"]["A"] > 7 and res.means["C2"]["B"] < 2
    assert res.verdicts["C1"] == "tie" and res.verdicts["C4"] == "tie"  # same pauses, same tempo
    # the text has one comma 40% of the way in: a pause there is right, one at 15% is not
    at_comma = clip_factory("comma", [(0.9, "varied"), (1.3, "varied")], [0.4])
    mid_phrase = clip_factory("mid", [(0.3, "varied"), (1.9, "varied")], [0.4])
    res, _ = verdicts(at_comma, mid_phrase)
    assert res.verdicts["C1"] == "A" and res.verdicts["L2"] == "A"


def test_tempo_is_compared_within_the_pair(clip_factory):
    calm = clip_factory("calm", [(1.0, "varied"), (1.2, "varied")], [0.3])
    fast = clip_factory("fast", [(0.77, "varied"), (0.92, "varied")], [0.3])  # 30% faster
    res, _ = verdicts(calm, fast)
    assert res.verdicts["C4"] == "A"
    nearly = clip_factory("nearly", [(0.98, "varied"), (1.18, "varied")], [0.3])  # 2% apart: a tie
    assert verdicts(calm, nearly)[0].verdicts["C4"] == "tie"


def test_features_of_a_synthetic_clip_match_how_it_was_made(clip_factory):
    path = clip_factory("f", [(1.0, "flat"), (1.0, "flat")], [0.5])
    audio = read_audio(path)
    f = analyze(audio.samples, audio.rate)
    assert audio.rate == 16000 and f.duration == pytest.approx(2.5, abs=0.01)
    assert f.f0_median == pytest.approx(120, rel=0.03) and f.f0_std_semitones < 0.3
    assert len(f.pauses) == 1 and f.pauses[0][1] - f.pauses[0][0] == pytest.approx(0.5, abs=0.011)
    assert f.speaking_time == pytest.approx(2.0, abs=0.03)
    assert f.sounding_before(f.pauses[0][1] + 0.5) == pytest.approx(1.5, abs=0.03)
    assert len(f0_track(audio.samples, audio.rate)) == 250
    assert expected_breaks("ab cd, ef gh.") == [pytest.approx(4 / 8)]  # letters before the comma
    assert syllables("people were waiting") == 6  # vowel groups: "were" counts two
    assert set(rate_clip(f, TEXT)) == {"C1", "C2", "C4", "L2"}


# ---- clips without speech, and clips that do not fit their text ---------------------------------


def _tone(seconds: float, rate: int = 16000) -> np.ndarray:
    return 0.5 * np.sin(2 * np.pi * 200 * np.arange(int(seconds * rate)) / rate)


NO_SPEECH = [
    ("silence", np.zeros(4 * 16000), "digital silence"),
    ("tone20ms", np.concatenate([np.zeros(8000), _tone(0.02), np.zeros(8000)]), "ms of voicing"),
    ("steady_tone", _tone(4.0), "steady tone"),
    ("noise", 0.3 * np.random.default_rng(1).standard_normal(32000), "ms of voicing"),
    ("whisper", 1e-4 * _tone(2.0), "dBFS"),
]


def _silent_clip(tmp_path, name, signal):
    if name == "whisper":  # below what 16-bit PCM keeps: write float
        import soundfile

        path = tmp_path / f"{name}.wav"
        soundfile.write(path, signal, 16000, subtype="FLOAT")
        return path
    return write_wav(tmp_path / f"{name}.wav", signal)


@pytest.mark.parametrize("name, signal, reason", NO_SPEECH)
@pytest.mark.parametrize("speech_slot", ["A", "B"])
def test_the_clip_with_speech_wins_every_measured_dimension(tmp_path, clip_factory, name, signal, reason, speech_slot):
    speech = clip_factory("speech", [(1.0, "varied"), (1.2, "varied")], [0.3])
    silent = _silent_clip(tmp_path, name, signal)
    a, b = (speech, silent) if speech_slot == "A" else (silent, speech)
    res, records = verdicts(a, b)
    silent_slot = "B" if speech_slot == "A" else "A"
    assert res.overall == speech_slot
    # no reading loses what the judge measures; C3, L1, L3 it never measures: absent, not lost
    assert res.verdicts == {d: speech_slot for d in AcousticPairJudge.measures}
    assert len(records) == 2 and {r["first"] for r in records} == {"A", "B"}
    for r in records:
        assert r["error"] is None and r["abstained"] == [] and set(r["scores"]) == set(AcousticPairJudge.measures)
        assert r["verdict"] == speech_slot
        assert r["flag"].startswith(f"clip {speech_slot} wins: clip {silent_slot}") and reason in r["flag"]
        assert all(why.startswith(r["flag"]) for why in r["rationale"].values())
        assert "syllables/s" in r["rationale"]["C4"]  # the winner's measurements come with the reason
        assert all(s[speech_slot] == RUBRIC.high and s[silent_slot] == RUBRIC.low for s in r["scores"].values())
    assert AcousticJudge().features(speech).no_speech is None


def test_two_clips_without_speech_abstain_with_both_reasons(tmp_path):
    silence = _silent_clip(tmp_path, "silence", np.zeros(32000))
    noise = _silent_clip(tmp_path, "noise", 0.3 * np.random.default_rng(1).standard_normal(32000))
    res, records = verdicts(silence, noise)
    assert res.overall == "abstain" and all(v == "abstain" for v in res.verdicts.values())
    for r in records:
        assert r["scores"] == {} and r["flag"] is None
        assert "clip A" in r["error"] and "digital silence" in r["error"] and "clip B" in r["error"]
        assert r["abstained"] == list(AcousticPairJudge.measures)  # only what the judge measures at all


def test_warnings_for_clips_that_do_not_fit_their_text(clip_factory):
    a = clip_factory("a", [(1.0, "varied"), (1.2, "varied")], [0.3])
    b = clip_factory("b", [(0.4, "varied")], [])
    long_text = " ".join([TEXT] * 4)
    judge = AcousticJudge()
    assert "is the text right" in clip_warning(judge.features(a), long_text)
    assert clip_warning(judge.features(a), TEXT) is None
    warnings = check_pairs([Pair("p", TEXT, a, b), Pair("q", long_text, a, a)], judge)
    assert any("pair 'p'" in w and "5.5 times as long" in w for w in warnings)
    assert any("pair 'q', clip A" in w and "is the text right" in w for w in warnings)


def test_level_only_check_for_clips_an_llm_will_judge(tmp_path, clip_factory):
    """Without the F0 track (the quick check before an LLM run) silence and a click are still caught."""
    speech = clip_factory("speech", [(1.0, "varied"), (1.2, "varied")], [0.3])
    silence = write_wav(tmp_path / "silence.wav", np.zeros(16000))
    click = write_wav(tmp_path / "click.wav", np.concatenate([np.zeros(8000), _tone(0.02), np.zeros(8000)]))
    quick = AcousticJudge(pitch=False)
    assert quick.features(speech).no_speech is None and quick.features(speech).f0_std_semitones is None
    assert quick.features(silence).no_speech == "no speech: digital silence"
    assert "ms of sound" in quick.features(click).no_speech
    warnings = check_pairs([Pair("p", TEXT, speech, click)])
    assert len(warnings) == 1 and warnings[0].startswith("pair 'p', clip B") and "no speech" in warnings[0]


def test_rationales_carry_each_clips_measurements(clip_factory):
    """Pauses with their times and lengths, syllables per second, F0 median and range, final contour."""
    at_comma = clip_factory("comma", [(0.9, "varied"), (1.3, "varied")], [0.4])
    flat = clip_factory("flat", [(1.0, "flat"), (1.2, "flat")], [0.25])
    _, records = verdicts(at_comma, flat)
    fa = AcousticJudge().features(at_comma)
    ((start, end),) = fa.pauses
    for r in records:
        why = r["rationale"]
        assert set(why) == {"C1", "C2", "C4", "L2"} and r["flag"] is None
        assert why["C1"].startswith(f"A: pauses at {start:.2f} s ({1000 * (end - start):.0f} ms); 1 of 1")
        assert "; B: pauses at " in why["C1"] and "(250 ms)" in why["C1"]
        assert f"A: F0 median {fa.f0_median:.0f} Hz, range {fa.f0_range_semitones:.1f} st" in why["C2"]
        fb = AcousticJudge().features(flat)
        assert f"B: F0 median {fb.f0_median:.0f} Hz, range {fb.f0_range_semitones:.1f} st" in why["C2"]
        assert why["C2"].count("final contour level (") == 2  # neither clip ends rising or falling
        rate = syllables(TEXT) / fa.speaking_time
        assert why["C4"].startswith(f"A: {rate:.1f} syllables/s ({syllables(TEXT)} in {fa.speaking_time:.2f} s")
        assert why["L2"] == "A: 0 pauses off punctuation, 0 over 1 s; B: 0 pauses off punctuation, 0 over 1 s"


def test_rationales_say_what_is_there_when_there_is_no_pause(clip_factory):
    """A clip without a pause says so (not "pauses at none"); a text without inner punctuation too."""
    one_run = clip_factory("one", [(2.2, "varied")], [])
    paused = clip_factory("paused", [(1.0, "varied"), (1.2, "varied")], [0.3])
    _, records = verdicts(one_run, paused)
    why = records[0]["rationale"]["C1"]
    assert why.startswith("A: no pause of 120 ms or more; 0 of 1 punctuation break in the text matched; B: pauses at ")
    _, records = verdicts(one_run, paused, text="the streets were full of people")
    assert "no punctuation inside the text to match" in records[0]["rationale"]["C1"]
    assert all("none" not in w for r in records for w in r["rationale"].values())


def test_final_contour_follows_the_last_quarter_second_of_voicing(tmp_path):
    from espeak_corpus import voice

    t = np.arange(int(1.0 * 16000)) / 16000
    cases = [("rise", 120 * 2 ** (8 * t / 12), "rising"), ("fall", 200 * 2 ** (-8 * t / 12), "falling"),
             ("level", np.full(len(t), 150.0), "level")]  # fmt: skip
    for name, f0, contour in cases:
        f = analyze(voice(f0), 16000)
        assert f.final_contour == contour, name
        if contour != "level":  # 8 st per second over the last 0.25 s of voicing: 2 st
            assert abs(f.f0_final_semitones) == pytest.approx(2.0, abs=0.3)
