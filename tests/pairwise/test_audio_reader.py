"""One audio reader for the acoustic judge and the audio-LLM path: every common format decodes,
broken files are errors naming the file."""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile

from voxjudge.errors import InputError
from voxjudge.io.audio import audio_part, read_audio

RATE = 16000
SIGNAL = 0.4 * np.sin(2 * np.pi * 220 * np.arange(RATE // 2) / RATE)


@pytest.mark.parametrize(
    "fmt, subtype, tolerance",
    [
        ("WAV", "PCM_U8", 1 / 64),
        ("WAV", "PCM_16", 1e-4),
        ("WAV", "PCM_24", 1e-6),
        ("WAV", "PCM_32", 1e-8),
        ("WAV", "FLOAT", 1e-7),
        ("WAV", "DOUBLE", 1e-12),
        ("WAVEX", "PCM_16", 1e-4),  # WAVE_FORMAT_EXTENSIBLE
        ("WAVEX", "PCM_24", 1e-6),
        ("FLAC", "PCM_16", 1e-4),
        ("FLAC", "PCM_24", 1e-6),
    ],
)
def test_common_formats_decode_to_the_same_samples(tmp_path, fmt, subtype, tolerance):
    path = tmp_path / f"clip.{'flac' if fmt == 'FLAC' else 'wav'}"
    soundfile.write(path, SIGNAL, RATE, format=fmt, subtype=subtype)
    audio = read_audio(path)
    assert audio.rate == RATE and audio.channels == 1 and audio.subtype == subtype
    assert audio.duration == pytest.approx(0.5)
    assert np.max(np.abs(audio.samples - SIGNAL)) <= tolerance
    part = audio_part(path)
    assert part.format == ("flac" if fmt == "FLAC" else "wav") and part.data == path.read_bytes()


def test_stereo_is_averaged(tmp_path):
    path = tmp_path / "stereo.wav"
    soundfile.write(path, np.stack([SIGNAL, np.zeros_like(SIGNAL)], axis=1), RATE, subtype="PCM_24")
    audio = read_audio(path)
    assert audio.channels == 2 and np.allclose(audio.samples, SIGNAL / 2, atol=1e-6)


def test_the_container_not_the_suffix_decides_the_llm_format(tmp_path):
    path = tmp_path / "really_flac.wav"
    soundfile.write(path, SIGNAL, RATE, format="FLAC")
    assert audio_part(path).format == "flac"


def _wav(frames: np.ndarray) -> bytes:
    buf = io.BytesIO()
    soundfile.write(buf, frames, RATE, format="WAV", subtype="PCM_16")
    return buf.getvalue()


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("empty.wav", b"", "audio file is empty"),
        ("random.wav", np.random.default_rng(0).bytes(4000), "not a readable audio file"),
        ("text.wav", b"RIFF but not really a wave file", "not a readable audio file"),
        ("zero.wav", _wav(np.zeros(0)), "holds no samples"),
        ("truncated.wav", _wav(SIGNAL)[: 44 + 4000], "truncated WAV: the header declares 16000 bytes"),
        ("header_only.wav", _wav(SIGNAL)[:44], "truncated WAV"),
    ],
)
def test_broken_files_are_errors_on_both_paths(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    for reader in (read_audio, audio_part):
        with pytest.raises(InputError, match=message) as err:
            reader(path)
        assert name in str(err.value)


def test_truncated_flac_and_missing_files(tmp_path):
    buf = io.BytesIO()
    soundfile.write(buf, SIGNAL, RATE, format="FLAC")
    path = tmp_path / "cut.flac"
    path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    with pytest.raises(InputError, match="cut.flac"):
        read_audio(path)
    with pytest.raises(InputError, match="not found"):
        read_audio(tmp_path / "missing.wav")


def test_a_streamed_wav_with_a_placeholder_size_is_not_truncated(tmp_path):
    """espeak-ng --stdout cannot seek back, so its header carries a huge placeholder size."""
    data = bytearray(_wav(SIGNAL))
    data[4:8] = (0x7FFFF024).to_bytes(4, "little")
    data[40:44] = (0x7FFFF000).to_bytes(4, "little")
    path = tmp_path / "streamed.wav"
    path.write_bytes(bytes(data))
    assert read_audio(path).duration == pytest.approx(0.5)
