"""``asr train --ratings/--preferences`` on bad input: one line and exit 2 (or 3 when the embedder
fails), nothing written; the ratings' scale and the triplets' language are the user's to give,
never assumed in silence."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from voxjudge.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "human"
RATINGS = EXAMPLES / "ratings_sample.csv"
HATS = EXAMPLES / "hats_sample.tsv"


def _train(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["asr", "train", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _edited(tmp_path: Path, name: str, source: Path, edit) -> Path:
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / name
    path.write_text("".join(edit(lines)), encoding="utf-8")
    return path


def _cells(line: str) -> list[str]:
    return next(csv.reader([line]))


def _cell(line: str, column: int, value: str) -> str:
    row = _cells(line)
    row[column] = value
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(row)
    return buf.getvalue()


HUMAN_MEAN = 6  # column of human_mean in the ratings sample


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: d / "missing.csv", "no such file"),
        (
            lambda d: _edited(d, "empty_mean.csv", RATINGS, lambda ls: [ls[0], _cell(ls[1], HUMAN_MEAN, "")] + ls[2:]),
            "human_mean '' is not a number",
        ),
        (lambda d: _edited(d, "header_only.csv", RATINGS, lambda ls: ls[:1]), "no ratings found"),
    ],
    ids=["missing", "empty cell", "header only"],
)
def test_bad_ratings_are_one_line_and_nothing_is_written(capsys, tmp_path, make, message):
    out = tmp_path / "cal.json"
    code, _, err = _train(capsys, "--ratings", str(make(tmp_path)), "--out", str(out))
    assert code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_invalid_utf8_ratings_are_one_line(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(RATINGS.read_bytes().replace(b"alchemist", b"alch\xffmist", 1))
    code, _, err = _train(capsys, "--ratings", str(bad), "--out", str(tmp_path / "cal.json"))
    assert code == 2 and "UTF-8" in err and "Traceback" not in err


def test_votes_that_are_not_whole_numbers_are_one_line(capsys, tmp_path):
    def edit(lines):
        cells = lines[1].rstrip("\n").split("\t")
        cells[2] = "2.5"
        return [lines[0], "\t".join(cells) + "\n", *lines[2:]]

    hats = _edited(tmp_path, "votes.tsv", HATS, edit)
    code, _, err = _train(capsys, "--preferences", str(hats), "--out", str(tmp_path / "cal.json"))
    assert code == 2 and "whole number of votes" in err and "Traceback" not in err


def test_ratings_on_another_scale_are_refused_unless_the_scale_is_given(capsys, tmp_path):
    """A 0-100 file fitted as 0-5 gave laser_calibrated 1.0 for every utterance, without a word."""

    def times_20(lines):
        return [lines[0]] + [_cell(x, HUMAN_MEAN, str(float(_cells(x)[HUMAN_MEAN]) * 20)) for x in lines[1:]]

    hundred = _edited(tmp_path, "r100.csv", RATINGS, times_20)
    code, _, err = _train(capsys, "--ratings", str(hundred), "--out", str(tmp_path / "cal.json"))
    assert code == 2 and "outside 0-5" in err and "--rating-scale" in err
    assert not (tmp_path / "cal.json").exists()
    # the same ratings with their scale given fit the same model as the 0-5 file
    code, _, _ = _train(capsys, "--ratings", str(hundred), "--rating-scale", "100", "--out", str(tmp_path / "a.json"))
    assert code == 0
    code, _, _ = _train(capsys, "--ratings", str(RATINGS), "--out", str(tmp_path / "b.json"))
    assert code == 0
    a, b = (json.loads((tmp_path / n).read_text(encoding="utf-8"))["people"] for n in ("a.json", "b.json"))
    for key in b:
        for field in ("intercept", "rubric"):
            assert a[key][field] == pytest.approx(b[key][field], abs=1e-6)  # (L-BFGS's tolerance)
    code, _, err = _train(capsys, "--ratings", str(RATINGS), "--rating-scale", "0", "--out", str(tmp_path / "c.json"))
    assert code == 2 and "scale" in err


def test_the_triplets_language_is_lang_else_detected(capsys, tmp_path):
    """--lang was ignored: every triplet set was scored as French."""
    code, out, _ = _train(capsys, "--preferences", str(HATS), "--cv", "2", "--json")
    assert code == 0 and "hats-fr" in json.dumps(json.loads(out))
    english = tmp_path / "en.tsv"
    english.write_text(
        "reference\thyp_a\tvotes_a\thyp_b\tvotes_b\n"
        + "".join(
            f"the {w} was on the table today\tthe {w} was on a table today\t6\tthe {w} is on the cable today\t1\n"
            for w in ("cat", "book", "cup", "key", "phone", "bread", "lamp", "pen")
        ),
        encoding="utf-8",
    )
    for argv, name in (([], "hats-en"), (["--lang", "de"], "hats-de")):
        code, out, err = _train(capsys, "--preferences", str(english), *argv, "--out", str(tmp_path / "cal.json"))
        assert code == 0, err
        assert name in json.loads((tmp_path / "cal.json").read_text(encoding="utf-8"))["sets"]


def test_ratings_without_a_language_need_lang(capsys, tmp_path):
    def drop_lang(lines):
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        for row in csv.reader(lines):
            writer.writerow(row[:1] + row[2:])
        return [buf.getvalue()]

    no_lang = _edited(tmp_path, "nolang.csv", RATINGS, drop_lang)
    code, _, err = _train(capsys, "--ratings", str(no_lang), "--out", str(tmp_path / "cal.json"))
    assert code == 2 and "no language" in err and "--lang" in err
    code, _, err = _train(capsys, "--ratings", str(no_lang), "--lang", "en", "--out", str(tmp_path / "cal.json"))
    assert code == 0, err


def test_a_text_the_embedder_cannot_embed_stops_the_fit(capsys, tmp_path):
    """It was dropped from the fit in silence, the file written and exit 0."""
    out = tmp_path / "cal.json"
    code, _, err = _train(
        capsys, "--ratings", str(RATINGS), "--embedder", "fake/hash?reject=alchemist", "--no-cache", "--out", str(out)
    )
    assert code == 3 and "could not embed" in err and "nothing was fitted" in err
    assert "first rating en-03-" in err  # the row as the file names it, not its texts cut at 120 characters
    assert not out.exists()


def test_rating_scale_without_ratings_is_refused(capsys, tmp_path):
    code, _, err = _train(
        capsys, "--preferences", str(HATS), "--rating-scale", "100", "--out", str(tmp_path / "c.json")
    )
    assert code == 2 and "--rating-scale is the scale of --ratings" in err


def test_files_without_a_known_suffix_are_read_by_their_first_line(capsys, tmp_path):
    """A process substitution (/dev/fd/63), '-' or a .txt name was refused for its suffix."""
    ratings, hats = tmp_path / "ratings.txt", tmp_path / "hats"
    ratings.write_bytes(RATINGS.read_bytes())
    hats.write_bytes(HATS.read_bytes())
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert _train(capsys, "--ratings", str(ratings), "--preferences", str(hats), "--out", str(one))[0] == 0
    assert _train(capsys, "--ratings", str(RATINGS), "--preferences", str(HATS), "--out", str(two))[0] == 0
    strip = lambda p: {k: v for k, v in json.loads(p.read_text(encoding="utf-8")).items() if k != "notice"}  # noqa: E731
    assert strip(one) == strip(two)


def test_a_dry_run_needs_no_out(capsys):
    """It said 'nothing to do: give --out', though a dry run writes nothing by definition."""
    code, out, err = _train(capsys, "--ratings", str(RATINGS), "--embedder", "fake/hash", "--dry-run")
    assert code == 0, err
    assert json.loads(out)["texts"] > 0


def test_pairs_of_several_languages_with_lang_train_on_that_language_and_say_so(capsys, tmp_path):
    """--lang hi trained all 7 languages' pairs as one Hindi model, as the error's advice led to."""
    pairs = tmp_path / "pairs.csv"
    rows = ["ref,hyp,label,lang"] + [
        f"घर{k},{'घार' if k % 2 else 'पानी'}{k},{'minor' if k % 2 else 'major'},hi" for k in range(30)
    ]
    rows += [f"house{k},hose{k},major,en" for k in range(30)]
    pairs.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, _, err = _train(capsys, str(pairs), "--out", str(tmp_path / "m.json"))
    assert code == 2 and "a model is for one language" in err
    code, out, err = _train(capsys, str(pairs), "--lang", "hi", "--out", str(tmp_path / "m.json"))
    assert code == 0 and "30 of 60 pairs are in hi" in err and "30 pairs (hi)" in out


def test_export_pairs_output_can_be_evaluated(capsys, tmp_path):
    """export-pairs writes a 'tier' column; classify --eval wanted 'label' and said it was ''."""
    from voxjudge.cli.main import main

    data = Path(__file__).resolve().parents[1] / "data" / "laser_pairs.tsv"
    out = tmp_path / "pairs.csv"
    assert main(["asr", "export-pairs", str(data), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["asr", "classify", str(out), "--lang", "hi", "--eval", "--json"]) == 0
    assert "accuracy" in capsys.readouterr().out


def test_a_callers_two_argument_distances_still_fit():
    """calibration.tasks began passing the rows' names to every distances function: TypeError."""
    import numpy as np

    from voxjudge.asr.laser import calibration as C
    from voxjudge.asr.laser.judges import rules_labeler_for
    from voxjudge.asr.laser.rubric import LaserRubric

    rubric = LaserRubric.load()
    seen = []

    def distances(refs, hyps):
        seen.append(len(refs))
        return np.zeros(len(refs))

    tasks = C.tasks(C.read_ratings(RATINGS), [], rubric, rules_labeler_for(rubric), distances)
    assert seen and sum(seen) == sum(len(t.groups) for t in tasks)
