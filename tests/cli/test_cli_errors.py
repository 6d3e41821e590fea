"""Bad input: one clear line on stderr, exit status 2, no traceback, nothing partial written."""

from __future__ import annotations

import subprocess
import sys

import pytest

from voxjudge.cli.main import main


@pytest.fixture
def files(tmp_path):
    def make(name, content):
        p = tmp_path / name
        p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        return str(p)

    return make


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "ref, hyp, extra, message",
    [
        ("u1 a\nu2 b\nu3 c\n", "u1 a\nu9 b\n", ["--ids"], "2 reference id(s) missing from"),
        ("a\nb\n", "a\n", [], "has 2 lines but"),
        ("", "a\n", [], "file is empty"),
        ("a\n", b"\xc3\x28\n", [], ":1: invalid UTF-8"),
        ("a\n", "b\n", ["--normalize", "loud"], "unknown normalization 'loud'"),
        ("a\n", "b\n", ["--by-speaker"], "--by-speaker: no speaker column"),
    ],
)
def test_metrics_bad_input(capsys, files, tmp_path, ref, hyp, extra, message):
    out_file = tmp_path / "out.jsonl"
    code, out, err = run(
        capsys,
        "asr",
        "metrics",
        "--ref",
        files("r.txt", ref),
        "--hyp",
        files("h.txt", hyp),
        "--out",
        str(out_file),
        *extra,
    )
    assert code == 2
    assert out == ""
    assert err.startswith("voxjudge: error: ") and message in err
    assert err.count("\n") == 1
    assert not out_file.exists()


def test_missing_tsv_column(capsys, files):
    code, _, err = run(
        capsys,
        "asr",
        "metrics",
        "--ref",
        files("r.tsv", "id\tsentence\n1\ta\n"),
        "--hyp",
        files("h.tsv", "id\tsentence\n1\ta\n"),
    )
    assert code == 2 and "no column 'text'" in err and "--text-col" in err


def test_compare_bad_names_and_mismatch(capsys, files):
    ref = files("r.txt", "a\nb\n")
    code, _, err = run(capsys, "asr", "compare", "--ref", ref, "--hyp-a", ref, "--hyp-b", ref, "--names", "one")
    assert code == 2 and "--names needs two" in err
    code, _, err = run(capsys, "asr", "compare", "--ref", ref, "--hyp-a", ref, "--hyp-b", files("b.txt", "a\n"))
    assert code == 2 and "has 2 lines but" in err


def test_ctrl_c_exits_130_and_writes_nothing(capsys, files, tmp_path, monkeypatch):
    import voxjudge.asr.measures as measures

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(measures, "compute_metrics", interrupted)
    out_file = tmp_path / "out.jsonl"
    code, _, err = run(
        capsys, "asr", "metrics", "--ref", files("r.txt", "a\n"), "--hyp", files("h.txt", "a\n"), "--out", str(out_file)
    )
    assert code == 130 and "interrupted" in err
    assert not out_file.exists()


def test_no_traceback_from_the_real_console_script(files):
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "voxjudge.cli.main",
            "asr",
            "metrics",
            "--ref",
            files("r.txt", ""),
            "--hyp",
            files("h.txt", "x\n"),
        ],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    assert res.stderr.strip().endswith("file is empty; expected one utterance per line")


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["asr", "metrics", "--ref", "x"])
    assert exc.value.code == 2


def test_bad_bootstrap_options(capsys, files):
    ref = files("r.txt", "a\nb\n")
    code, _, err = run(capsys, "asr", "compare", "--ref", ref, "--hyp-a", ref, "--hyp-b", ref, "--resamples", "0")
    assert code == 2 and "--resamples must be at least 1" in err
    code, _, err = run(capsys, "asr", "compare", "--ref", ref, "--hyp-a", ref, "--hyp-b", ref, "--confidence", "95")
    assert code == 2 and "--confidence must be between 0 and 1" in err


def test_a_full_disk_is_one_line_and_leaves_no_temporary_file(capsys, files, tmp_path, monkeypatch):
    import errno

    from voxjudge.io import writers

    def full(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writers.RecordStream, "write_jsonl", full)
    out = tmp_path / "out.jsonl"
    ref = files("r.txt", "u1 the cat sat\n")
    hyp = files("h.txt", "u1 the bat sat\n")
    code, _, err = run(capsys, "asr", "score", "--ref", ref, "--hyp", hyp, "--ids", "--lang", "en", "--out", str(out))
    assert code == 1 and "No space left on device" in err and "free space" in err and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".out.jsonl.*"))


def test_a_records_file_is_discarded_even_when_closing_it_fails(tmp_path):
    import errno

    from voxjudge.io.writers import RecordStream

    stream = RecordStream(tmp_path / "out.jsonl")
    stream.write_lines(['{"a": 1}\n'])
    real = stream._file

    class Failing:
        closed = False

        def close(self):
            real.close()
            raise OSError(errno.ENOSPC, "No space left on device")

    stream._file = Failing()
    stream.discard()
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "argv, said, helped",
    [
        (
            ["asr", "score", "--jobs", "abc"],
            "voxjudge asr score: error: argument --jobs: invalid int value: 'abc'",
            "asr score",
        ),
        (
            ["asr", "metrics", "--ref", "r.txt"],
            "voxjudge asr metrics: error: the following arguments are required: --hyp",
            "asr metrics",
        ),
        (["nope"], "voxjudge: error: argument <command>: invalid choice: 'nope'", ""),
        (
            ["asr", "metrics", "--ref", "r", "--hyp", "h", "extra"],
            "voxjudge asr metrics: error: unrecognized arguments: extra",
            "asr metrics",
        ),
    ],
)
def test_a_usage_error_is_one_line_that_points_to_the_help(capsys, argv, said, helped):
    """argparse printed ~20 lines of usage before the error."""
    from voxjudge.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and err.startswith(said), err
    assert err.endswith(f" (see: {' '.join(['voxjudge', *helped.split()])} --help)\n"), err
