"""``--calibration FILE``: a calibration fitted by ``asr train --ratings`` used by ``asr score`` and
``asr classify`` instead of the shipped one -- its tiers and its laser_calibrated model (with the
embedder it was fitted with), named in the summary with its sha256."""

from __future__ import annotations

import hashlib
import json

import pytest

from voxjudge.asr.laser.calibration_file import shipped_data
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
        assert record["calibration_sha256"] == given["calibration_sha256"]  # a record says what made it


def test_records_name_a_given_calibration_on_every_path(capsys, trained, filler, tmp_path, monkeypatch):
    """The streamed records (one and two processes, the compiled and the Python paths) and the kept
    ones (``LaserResult.records``) name the file; the shipped calibration's records name none."""
    from voxjudge.asr.laser import LaserOptions, parallel, run_laser

    texts = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    n = parallel.CHUNK + 500  # two chunks: --jobs 2 runs worker processes
    ref = "".join(f"u{k} i want to go home now {k}\n" for k in range(n))
    hyp = "".join(f"u{k} i want um to go home {k}\n" for k in range(n))
    texts[0].write_text(ref, encoding="utf-8")
    texts[1].write_text(hyp, encoding="utf-8")
    argv = ["--ref", str(texts[0]), "--hyp", str(texts[1]), "--ids", "--lang", "en"]
    written = {}
    runs = (("one", ["--jobs", "1"]), ("two", ["--jobs", "2"]), ("python", ["--jobs", "2"]), ("shipped", []))
    for name, extra in runs:
        out = tmp_path / f"{name}.jsonl"
        cal = [] if name == "shipped" else ["--calibration", str(trained)]
        if name == "python":  # the Python loops instead of the compiled path for plain lines
            monkeypatch.setenv("VOXJUDGE_KERNEL", "python")
        _summary(capsys, [*argv, *cal, *extra, "--out", str(out)])
        monkeypatch.delenv("VOXJUDGE_KERNEL", raising=False)
        written[name] = out.read_text(encoding="utf-8")
    assert written["one"] == written["two"] == written["python"] and written["one"].count("\n") == n
    sha = hashlib.sha256(trained.read_bytes()).hexdigest()
    assert all(json.loads(x)["calibration_sha256"] == sha for x in written["one"].splitlines())
    assert "calibration_sha256" not in written["shipped"]
    kept = run_laser(
        ["i want to go home"], ["i want um to go home"], options=LaserOptions(lang="en", calibration=trained)
    )
    assert kept.records[0]["calibration_sha256"] == sha


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
    assert f"learned from human judgments ({trained})" in html


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


def _edited(trained, tmp_path, edit) -> str:
    data = json.loads(trained.read_text(encoding="utf-8"))
    edit(data)
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(data), encoding="utf-8")  # NaN and Infinity as Python's json writes them
    return str(bad)


def _set(section, key, field, value):
    def edit(data):
        data[section][key][field] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_set("people", "none", "rubric", "steep"), "people.none: intercept, rubric and meaning must be finite"),
        (_set("people", "none", "intercept", float("nan")), "must be finite numbers"),
        (_set("people", "none", "rubric", float("inf")), "must be finite numbers"),
        (_set("people", "none", "intercept", True), "must be finite numbers"),
        (_set("people", "none", "embedder", "fake/hash?dim=64"), "people.none says it was fitted with the embedder"),
        (_set("people", "none", "extra", 1), "'people' models are malformed"),
        (_set("calibrations", "*", "near", "catastrophic"), "calibrations.*.near is 'catastrophic': a tier must be"),
        (_set("calibrations", "*", "near_sound", "high"), "near_sound is 'high': must be a finite number"),
        (_set("calibrations", "*", "near_sound", float("nan")), "near_sound is nan: must be a finite number"),
        (_set("calibrations", "*", "min_chars", -5), "min_chars is -5: must be a finite number, 0 or more"),
        (_set("calibrations", "*", "min_chars", 2.5), "min_chars is 2.5: must be a whole number"),
        (lambda d: d["calibrations"]["*"].pop("near"), "calibrations.* needs exactly the fields"),
        (lambda d: d.update(calibrations={}), "no 'calibrations'"),
        (lambda d: d["people"].pop("none"), "has no laser_calibrated model without an embedder"),
        (lambda d: d.update(rubric_sha256="0" * 16), "calibration was fitted under rubric 0000000000000000"),
    ],
)
def test_a_hand_edited_file_is_checked_before_any_work(capsys, trained, filler, tmp_path, edit, message):
    bad = _edited(trained, tmp_path, edit)
    capsys.readouterr()
    assert main(["asr", "score", *filler, "--calibration", bad]) == 2
    err = capsys.readouterr().err
    assert message in err and bad in err and "Traceback" not in err


def test_another_rubric_is_refused_unless_allowed(capsys, trained, filler, tmp_path):
    other = _edited(trained, tmp_path, lambda d: d.update(rubric_sha256="0" * 16))
    assert main(["asr", "score", *filler, "--calibration", other, "--allow-rubric-mismatch"]) == 0


def test_a_directory_an_empty_name_and_an_input_as_output_are_refused(capsys, trained, filler, tmp_path):
    capsys.readouterr()
    assert main(["asr", "score", *filler, "--calibration", str(tmp_path)]) == 2
    assert "is a directory, not a calibration file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # an unset shell variable: never the shipped file in silence
        main(["asr", "score", *filler, "--calibration", ""])
    assert stop.value.code == 2 and "needs a file name" in capsys.readouterr().err
    before = trained.read_bytes()
    assert main(["asr", "score", *filler, "--calibration", str(trained), "--out", str(trained)]) == 2
    assert "is also an input of this command" in capsys.readouterr().err and trained.read_bytes() == before


def test_a_missing_model_is_refused_before_any_text_is_embedded(capsys, trained, filler, monkeypatch):
    """The check runs once the embedder is open, before a (paid) call: here a server that does not
    exist is never asked (an asked one would exit 3, 'cannot reach')."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    capsys.readouterr()
    code = main(["asr", "score", *filler, "--calibration", str(trained), "--embedder", "openai/text-embedding-3-small",
                 "--embedder-base-url", "http://127.0.0.1:9/v1", "--no-cache"])  # fmt: skip
    assert code == 2 and "no model fitted with the embedder openai/text-embedding-3-small" in capsys.readouterr().err


def test_a_report_uses_the_files_weights_whatever_its_name(capsys, trained, filler, tmp_path):
    named = tmp_path / "shipped_mine.json"
    named.write_bytes(trained.read_bytes())
    report = tmp_path / "r.html"
    assert main(["asr", "score", *filler, "--calibration", str(named), "--report", str(report)]) == 0
    assert f"learned from human judgments ({named})" in report.read_text(encoding="utf-8")


def test_train_names_its_data_and_says_where_the_file_went(capsys, trained):
    notice = json.loads(trained.read_text(encoding="utf-8"))["notice"]
    assert notice == "Calibrated on ratings.csv."  # not the shipped data's notice


def test_a_pair_judge_takes_no_embedder(capsys, tmp_path):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("ref,hyp,label\nhome,hme,minor\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["asr", "train", str(pairs), "--embedder", "fake/hash", "--out", str(tmp_path / "m.json")]) == 2
    assert "a pair judge takes no embedder" in capsys.readouterr().err


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


# asr judge-card --calibration FILE: the same file, read and checked as asr score reads it, on the card


@pytest.fixture
def rated(tmp_path):
    """Four rated English hypotheses; the first has a filler (the file: no penalty; shipped: minor)."""
    path = tmp_path / "ratings.csv"
    path.write_text(
        "id,lang,ref,hyp,score\n"
        "r1,en,i want to go home,i want um to go home,4.5\n"
        "r2,en,the cat sat on the mat,the cat sat on a mat,3.9\n"
        "r3,en,we walk home after school,we talk home after school,2.0\n"
        "r4,en,birds sing every morning,birds sing every morning,5.0\n",
        encoding="utf-8",
    )
    return str(path)


def _card(capsys, argv) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["asr", "judge-card", *argv, "--resamples", "50", "--split-halves", "10"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_judge_card_puts_the_files_laser_calibrated_on_the_card(capsys, trained, rated, tmp_path):
    out = tmp_path / "card.jsonl"
    code, stdout, err = _card(
        capsys,
        ["--ratings", rated, "--embedder", "fake/hash", "--calibration", str(trained), "--json", "--out", str(out)],
    )
    assert code == 0, err
    s = json.loads(stdout)
    (calibrated,) = [m for m in s["metrics"] if m.get("fitted")]
    sha = hashlib.sha256(trained.read_bytes()).hexdigest()
    # named as asr score's summary names it: the file and its sha256
    assert (calibrated["name"], calibrated["calibration"], calibrated["calibration_sha256"]) == (
        "LASER default calibrated",
        str(trained),
        sha,
    )
    assert calibrated["fitted"].endswith("(fake/hash?dim=64)")
    assert s["runs"]["LASER default"]["calibration"] == str(trained)
    assert s["runs"]["LASER default"]["calibration_sha256"] == sha
    records = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert records["r1"]["LASER default"] == 1.0  # the file's tier for a filler: no penalty
    model = json.loads(trained.read_text(encoding="utf-8"))["people"]["fake/hash?dim=64"]
    for r in records.values():
        z = model["intercept"] + model["rubric"] * (1 - r["LASER default"]) ** 0.5
        z += model["meaning"] * r["SemDist (fake/hash?dim=64)"] ** 0.5
        assert r["LASER default calibrated"] == pytest.approx(min(1.0, max(0.0, z)), abs=1e-12)
    # the same records as asr score --calibration gives for these texts
    ref, hyp, scored = tmp_path / "ref.txt", tmp_path / "hyp.txt", tmp_path / "scored.jsonl"
    ref.write_text("".join(f"{k} {r['reference']}\n" for k, r in records.items()), encoding="utf-8")
    hyp.write_text("".join(f"{k} {r['hypothesis']}\n" for k, r in records.items()), encoding="utf-8")
    argv = ["--ref", str(ref), "--hyp", str(hyp), "--ids", "--lang", "en", "--embedder", "fake/hash"]
    _summary(capsys, [*argv, "--calibration", str(trained), "--out", str(scored)])
    for u in map(json.loads, scored.read_text(encoding="utf-8").splitlines()):
        assert (u["laser"], u["laser_calibrated"]) == (
            records[u["id"]]["LASER default"],
            records[u["id"]]["LASER default calibrated"],
        )


def test_judge_card_reads_the_file_once_for_every_judge_and_language(capsys, trained, examples, monkeypatch):
    from voxjudge.asr.laser import calibration_file

    read = []
    real = calibration_file.read_file
    monkeypatch.setattr(calibration_file, "read_file", lambda *a, **k: read.append(a) or real(*a, **k))
    ratings = str(examples / "human" / "ratings_sample.csv")  # three languages: one run each per judge
    argv = ["--ratings", ratings, "--calibration", str(trained), "--judge", "default", "--judge", "rules"]
    code, stdout, err = _card(capsys, [*argv, "--embedder", "fake/hash", "--methods", "pearson"])
    assert code == 0, err
    assert read == [(str(trained),)]  # once, by the command; the rules judge keeps the rubric's tiers
    footnote = " ".join(stdout.split())
    assert (
        f"= laser_calibrated, fitted to people from the rubric score and semantic distance (fake/hash?dim=64), "
        f"from calibration {trained} (sha256 {hashlib.sha256(trained.read_bytes()).hexdigest()[:12]}" in footnote
    )


def test_judge_card_checks_the_file_as_asr_score_does(capsys, trained, rated, tmp_path):
    bad = _edited(trained, tmp_path, _set("calibrations", "*", "near", "catastrophic"))
    code, stdout, err = _card(capsys, ["--ratings", rated, "--calibration", bad])
    assert code == 2 and "calibrations.*.near is 'catastrophic': a tier must be" in err and bad in err
    code, _, err = _card(capsys, ["--ratings", rated, "--embedder", "fake/hash?dim=32", "--calibration", str(trained)])
    assert code == 2 and "no model fitted with the embedder fake/hash?dim=32" in err and str(trained) in err
    code, _, err = _card(capsys, ["--ratings", rated, "--judge", "rules", "--calibration", str(trained)])
    assert code == 2 and "--calibration goes with the default and model: judges" in err
    other = _edited(trained, tmp_path, lambda d: d.update(rubric_sha256="0" * 16))
    code, _, err = _card(capsys, ["--ratings", rated, "--calibration", other])
    assert code == 2 and "calibration was fitted under rubric 0000000000000000" in err
    assert _card(capsys, ["--ratings", rated, "--calibration", other, "--allow-rubric-mismatch"])[0] == 0
    before = trained.read_bytes()
    code, _, err = _card(capsys, ["--ratings", rated, "--calibration", str(trained), "--out", str(trained)])
    assert code == 2 and "is also an input of this command" in err and trained.read_bytes() == before


def test_judge_card_dry_run_estimates_the_llm_judges_beside_a_calibration(capsys, trained, rated):
    """The embedder and the calibration serve the offline judges: a dry run of the LLM judges beside
    them estimates (no key, nothing sent) rather than refusing either option."""
    argv = ["--ratings", rated, "--judge", "openai/gpt-4o-mini", "--judge", "default", "--dry-run"]
    code, stdout, err = _card(capsys, [*argv, "--calibration", str(trained), "--embedder", "fake/hash"])
    assert code == 0, err
    assert list(json.loads(stdout)["judges"]) == ["openai/gpt-4o-mini"]


def test_judge_card_refuses_a_calibration_before_an_llm_judge_is_asked(capsys, trained, rated, monkeypatch, tmp_path):
    """The offline judges run first: a calibration without a model for the embedder stops the card
    before the LLM judge listed before them is sent anything (the rows keep the order given)."""
    from voxjudge.llm.providers import fake

    asked = []

    def answer(request, index):
        asked.append(index)
        return {"items": []}

    monkeypatch.setitem(fake._SCRIPTS, "card-first", answer)
    argv = ["--ratings", rated, "--judge", "fake/card-first", "--judge", "default", "--calibration", str(trained)]
    argv += ["--cache", str(tmp_path / "c.sqlite"), "--max-retries", "0"]
    code, _, err = _card(capsys, [*argv, "--embedder", "fake/hash?dim=32"])
    assert code == 2 and "no model fitted with the embedder fake/hash?dim=32" in err and asked == []
    code, stdout, _ = _card(capsys, [*argv, "--embedder", "fake/hash", "--json"])
    assert asked and [m["name"] for m in json.loads(stdout)["metrics"]][2:4] == [
        "LASER fake/card-first",
        "LASER default",
    ]
