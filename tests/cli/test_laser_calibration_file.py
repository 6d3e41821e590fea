"""``--calibration FILE``: a calibration fitted by ``asr train --ratings`` used by ``asr score`` and
``asr classify`` instead of the shipped one -- its tiers and its laser_calibrated model (with the
embedder it was fitted with), named in the summary with its sha256."""

from __future__ import annotations

import hashlib
import json

import pytest

from voxjudge.asr.laser.calibration import shipped_data
from voxjudge.cli.main import main


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A calibration fitted on 40 English ratings with the fake/hash embedder (as a user would)."""
    d = tmp_path_factory.mktemp("cal")
    ratings, _ = shipped_data()
    lines = ratings.read_text(encoding="utf-8").splitlines(keepends=True)
    small = d / "ratings.csv"
    small.write_text(lines[0] + "".join([x for x in lines[1:] if x.startswith("en-")][:40]), encoding="utf-8")
    out = d / "trained.json"
    assert main(["asr", "train", "--ratings", str(small), "--embedder", "fake/hash", "--out", str(out)]) == 0
    return out


@pytest.fixture
def filler(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("u1 i want to go home\nu2 the cat sat on the mat\n", encoding="utf-8")
    hyp.write_text("u1 i want um to go home\nu2 the cat sat on a mat\n", encoding="utf-8")
    return ["--ref", str(ref), "--hyp", str(hyp), "--ids", "--lang", "en"]


def _summary(capsys, argv) -> dict:
    capsys.readouterr()
    assert main(["asr", "score", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_file_decides_tiers_and_laser_calibrated(capsys, trained, filler, tmp_path):
    fitted = json.loads(trained.read_text(encoding="utf-8"))
    assert fitted["calibrations"]["*"]["filler"] == "no_penalty"  # the shipped calibration: minor
    shipped = _summary(capsys, filler)
    assert shipped["calibration"] == "shipped (models/evidence.json)" and "calibration_sha256" not in shipped
    assert shipped["penalty"] == 1.5  # the filler (minor) and a wrong word

    out = tmp_path / "records.jsonl"
    given = _summary(capsys, [*filler, "--calibration", str(trained), "--embedder", "fake/hash", "--out", str(out)])
    assert given["calibration"] == str(trained)
    assert given["calibration_sha256"] == hashlib.sha256(trained.read_bytes()).hexdigest()
    assert given["penalty"] == 1.0  # the file's tier for a filler: no penalty
    assert given["laser_calibrated_model"].endswith("(fake/hash?dim=64)")
    model = fitted["people"]["fake/hash?dim=64"]
    for record in map(json.loads, out.read_text(encoding="utf-8").splitlines()):
        z = model["intercept"] + model["rubric"] * (1 - record["laser"]) ** 0.5
        z += model["meaning"] * record["semdist"] ** 0.5
        assert record["laser_calibrated"] == pytest.approx(min(1.0, max(0.0, z)), abs=1e-12)


def test_workers_get_the_file_read_once(capsys, trained, filler, tmp_path):
    """Worker processes use the driver's reading of the file (a cluster's workers may not see it)."""
    argv = [*filler, "--calibration", str(trained)]
    one = _summary(capsys, [*argv, "--jobs", "1"])
    two = _summary(capsys, [*argv, "--jobs", "2"])
    assert one == two and one["penalty"] == 1.0


def test_the_text_view_names_the_file(capsys, trained, filler):
    capsys.readouterr()
    assert main(["asr", "score", *filler, "--calibration", str(trained)]) == 0
    assert f"calibration {trained}" in capsys.readouterr().out


def test_the_report_shows_the_files_weights(capsys, trained, filler, tmp_path):
    report = tmp_path / "r.html"
    assert main(["asr", "score", *filler, "--calibration", str(trained), "--report", str(report)]) == 0
    html = report.read_text(encoding="utf-8")
    assert f"learned from ratings and preferences ({trained})" in html


def test_an_embedder_the_file_was_not_fitted_with_is_refused(capsys, trained, filler):
    capsys.readouterr()
    assert main(["asr", "score", *filler, "--embedder", "fake/hash", "--calibration", str(trained)]) == 0
    capsys.readouterr()
    assert main(["asr", "score", *filler, "--embedder", "fake/hash?dim=32", "--calibration", str(trained)]) == 2
    err = capsys.readouterr().err
    assert "no model fitted with the embedder fake/hash?dim=32" in err and str(trained) in err
    assert "--calibration file fitted with it" in err and "--judge rules" in err


def test_the_shipped_calibration_points_to_the_option(capsys, filler):
    capsys.readouterr()
    assert main(["asr", "score", *filler, "--embedder", "fake/hash"]) == 2
    err = capsys.readouterr().err
    assert "shipped (models/evidence.json)" in err and "--calibration" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "calibration file not found"),
        ("", "not a voxjudge LASER calibration"),
        ("{}", "not a voxjudge LASER calibration"),
        ('{"format": "voxjudge-laser-calibration-2", "calibrations": []}', "not a voxjudge LASER calibration"),
        ("\udcff", "not a voxjudge LASER calibration"),
    ],
)
def test_a_bad_file_is_a_clear_error(capsys, filler, tmp_path, content, message):
    path = tmp_path / "cal.json"
    if content is not None:
        path.write_bytes(content.encode("utf-8", "surrogateescape"))
    capsys.readouterr()
    assert main(["asr", "score", *filler, "--calibration", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_malformed_people_models_are_a_clear_error(capsys, trained, filler, tmp_path):
    data = json.loads(trained.read_text(encoding="utf-8"))
    data["people"]["none"]["rubric"] = "steep"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert main(["asr", "score", *filler, "--calibration", str(bad)]) == 2
    assert "'people' models are malformed" in capsys.readouterr().err


@pytest.mark.parametrize("judge", ["rules", "openai/gpt-4o-mini"])
def test_judges_without_a_calibration_refuse_it(capsys, trained, filler, judge):
    capsys.readouterr()
    assert main(["asr", "score", *filler, "--judge", judge, "--calibration", str(trained)]) == 2
    err = capsys.readouterr().err
    assert "--calibration goes with" in err


def test_classify_uses_the_file(capsys, trained, tmp_path):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("ref,hyp,lang\n,um,en\n", encoding="utf-8")
    labels = {}
    for name, extra in (("shipped", []), ("file", ["--calibration", str(trained)])):
        out = tmp_path / f"{name}.jsonl"
        assert main(["asr", "classify", str(pairs), "--out", str(out), *extra]) == 0
        labels[name] = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["label"]
    assert labels == {"shipped": "minor", "file": "no_penalty"}
