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
    pairs.write_text(
        json.dumps({"pair_id": "p1", "text": "hello there", "audio_a": "a.wav", "audio_b": "b.wav"}) + "\n"
    )
    return pairs


def test_truncated_wav_names_a_reason(tmp_path, capsys):
    pairs = _pairs(tmp_path, b"RIFF")
    code = main(["pairwise", "judge", "--pairs", str(pairs), "--out", str(tmp_path / "j.jsonl"), "--samples", "2"])
    err = capsys.readouterr().err
    assert code == 2
    assert "a.wav" in err and "()" not in err and "object at 0x" not in err
    assert not (tmp_path / "j.jsonl").exists()


def test_status_lines_are_not_python_dicts(tmp_path, capsys, examples):
    pairs = examples / "pairwise" / "pairs.jsonl"
    judged, sft = tmp_path / "j.jsonl", tmp_path / "sft.jsonl"
    assert main(["pairwise", "judge", "--pairs", str(pairs), "--samples", "4", "--out", str(judged)]) in (0, 3)
    capsys.readouterr()
    assert main(["pairwise", "distill", str(judged), "--pairs", str(pairs), "--keep", "3-1", "--out", str(sft)]) == 0
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ SFT examples -> .*sft\.jsonl .*pairs dropped by the 3-1 filter.*", err), err
    assert "{" not in err


def _asr_files(tmp_path, hyp_lines, human_lines):
    ref = tmp_path / "ref.txt"
    ref.write_text("u1 a b c\nu2 d e f\nu3 g h i\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text(hyp_lines)
    human = tmp_path / "human.txt"
    human.write_text(human_lines)
    return [str(ref), str(hyp), str(human)]


def test_constant_human_scores_get_a_clean_error(tmp_path, capsys, recwarn):
    ref, hyp, human = _asr_files(tmp_path, "u1 a b x\nu2 d e f\nu3 g y i\n", "u1 3\nu2 3\nu3 3\n")
    out = tmp_path / "o.jsonl"
    code = main(["asr", "score", "--ref", ref, "--hyp", hyp, "--ids", "--human", human, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "the human scores are all equal (3 items)" in err and "nan" not in err
    assert not out.exists()
    assert not [w for w in recwarn if "onstant" in str(w.message)]


def test_constant_metric_is_refused_with_the_one_agreement_message(tmp_path, capsys, recwarn):
    # every hypothesis perfect: LASER cannot rank anything; the one agreement function says so
    ref, hyp, human = _asr_files(tmp_path, "u1 a b c\nu2 d e f\nu3 g h i\n", "u1 3\nu2 4\nu3 3\n")
    assert main(["asr", "score", "--ref", ref, "--hyp", hyp, "--ids", "--human", human]) == 2
    err = capsys.readouterr().err
    assert "the LASER scores are all equal (3 items)" in err and "nan" not in err
    assert not [w for w in recwarn if "onstant" in str(w.message)]
