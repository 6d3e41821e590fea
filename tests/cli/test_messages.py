"""Error reasons and status lines read as sentences, not Python objects."""

from __future__ import annotations

import json
import re

from voxjudge.cli.main import main
from voxjudge.errors import reason


def test_reason_is_never_empty_and_has_no_object_repr():
    assert reason(EOFError()) == "the file ends too early (truncated or empty)"
    msg = "Error opening <_io.BytesIO object at 0x7f3a2b1c>: Format not recognised."
    assert reason(RuntimeError(msg), "clip.wav") == "Format not recognised."
    assert reason(ValueError("")) == "ValueError"


def _pairs(tmp_path, clip: bytes):
    (tmp_path / "a.wav").write_bytes(clip)
    (tmp_path / "b.wav").write_bytes(clip)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"pair_id": "p1", "text": "hello there", "audio_a": "a.wav", "audio_b": "b.wav"}) + "\n")
    return pairs


def test_truncated_wav_names_a_reason(tmp_path, capsys):
    pairs = _pairs(tmp_path, b"RIFF")
    code = main(["pairwise", "judge", "--pairs", str(pairs), "--out", str(tmp_path / "j.jsonl"), "--samples", "2"])
    err = capsys.readouterr().err
    assert code == 2
    assert "a.wav" in err and "()" not in err and "object at 0x" not in err
    assert not (tmp_path / "j.jsonl").exists()


def test_status_lines_are_not_python_dicts(tmp_path, capsys, examples):
    data = examples.parent / "tests" / "data" / "laser_pairs.tsv"
    model = tmp_path / "m.pkl"
    assert main(["asr", "train", str(data), "--out", str(model), "--test-fraction", "0.25"]) == 0
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert re.fullmatch(r".*m\.pkl: trained on \d+ pairs; on \d+ held-out pairs: error type [\d.]+% correct.*", err)
    assert "{" not in err
