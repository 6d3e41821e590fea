"""Exact line splitting, long CSV fields, pipes read once, and all-or-nothing outputs."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import jiwer
import pytest

from voxjudge.cli.main import main
from voxjudge.errors import InputError
from voxjudge.io.readers import read_lines, read_texts, split_lines
from voxjudge.io.writers import write_outputs, write_records

ODD_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("sep", list(ODD_BREAKS))
def test_only_newline_cr_and_crlf_end_a_line(sep):
    assert split_lines(f"a{sep}b\nc\r\nd\re\n") == [f"a{sep}b", "c", "d", "e"]


def test_split_lines_matches_splitlines_on_ordinary_text():
    for text in ["", "a", "a\n", "a\n\n", "\n", "a\nb", "a\r\n\r\nb\r\n", "a\rb\r"]:
        assert split_lines(text) == text.splitlines()


def test_form_feed_does_not_shift_utterances(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    ref.write_bytes(b"the cat sat\x0con the mat\nhello world\n")
    hyp.write_bytes(b"the cat sat on the mat\nhello\x0cworld\n")
    code, out, _ = run(capsys, "asr", "metrics", "--ref", ref, "--hyp", hyp, "--split", "jiwer", "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["utterances_count"] == 2
    refs = ["the cat sat\x0con the mat", "hello world"]
    hyps = ["the cat sat on the mat", "hello\x0cworld"]
    assert summary["wer"] == pytest.approx(jiwer.wer(refs, hyps))  # 4/7


def test_jsonl_strings_may_hold_line_separators(tmp_path):
    p = tmp_path / "u.jsonl"
    rows = [{"id": "a", "text": "one\u2028two"}, {"id": "b", "text": "three\u2029four\x85five"}]
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    ts = read_texts(p)
    assert [(r.id, r.text) for r in ts.records] == [("a", "one\u2028two"), ("b", "three\u2029four\x85five")]


def test_long_csv_and_tsv_fields_are_read(tmp_path):
    long_text = " ".join(["word"] * 60_000)  # 299,999 characters, beyond csv's default field limit
    for suffix, sep in ((".tsv", "\t"), (".csv", ",")):
        p = tmp_path / f"u{suffix}"
        p.write_text(f"id{sep}text\nu1{sep}{long_text}\n", encoding="utf-8")
        assert read_texts(p).records[0].text == long_text


@pytest.mark.parametrize(
    "data",
    [b"a\nb\n", b"a\r\nb", b"a\rb\r\r\n", b"\xef\xbb\xbfa b\n\n\n", "x\x0cy\nz\x85w\u2028v\n".encode(), b"\n\na"],
)
def test_a_file_read_as_it_is_decoded_gives_the_whole_files_lines(tmp_path, data):
    p = tmp_path / "t.txt"
    p.write_bytes(data)
    assert read_lines(p) == split_lines(data.decode("utf-8-sig"))


def test_a_crlf_across_the_decoders_block_ends_one_line(tmp_path):
    p = tmp_path / "t.txt"
    for k in range(8185, 8195):
        data = b"a" * k + b"\r\nb\r\n"
        p.write_bytes(data)
        assert read_lines(p) == split_lines(data.decode()), k


@pytest.mark.parametrize(("data", "message"), [(b" \n\t\n", "file is empty"), (b"ok\na\xffb\n", ":2: invalid UTF-8")])
def test_read_lines_words_problems_as_the_whole_file_path_does(tmp_path, data, message):
    p = tmp_path / "t.txt"
    p.write_bytes(data)
    with pytest.raises(InputError, match=message):
        read_lines(p)


def test_read_lines_reads_a_pipe_once():
    code = "import sys; from voxjudge.io.readers import read_lines; print(len(read_lines('/dev/stdin')))"
    done = subprocess.run([sys.executable, "-c", code], input="a\nb\fc\n", capture_output=True, text=True)
    assert done.stdout.strip() == "2", done.stderr


def test_stats_agree_reads_metric_from_a_pipe(tmp_path):
    human = tmp_path / "human.tsv"
    human.write_text("id\tscore\nu1\t1\nu2\t2\nu3\t3\nu4\t5\n", encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "voxjudge.cli.main",
            "stats",
            "agree",
            "--metric",
            "/dev/stdin",
            "--human",
            str(human),
            "--json",
            "--resamples",
            "50",
        ],
        input="u1 0.1\nu2 0.2\nu3 0.25\nu4 0.9\n",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n"] == 4


def test_hints_name_options_that_exist(tmp_path, capsys):
    metric = tmp_path / "m.tsv"
    metric.write_text("id\twer\nu1\t0.1\n", encoding="utf-8")
    human = tmp_path / "h.tsv"
    human.write_text("id\tscore\nu1\t3\n", encoding="utf-8")
    code, _, err = run(capsys, "stats", "agree", "--metric", metric, "--human", human)
    assert code == 2 and "--metric-col" in err and "--text-col" not in err
    code, _, err = run(
        capsys, "stats", "agree", "--metric", metric, "--metric-col", "wer", "--human", human, "--human-col", "rating"
    )
    assert code == 2 and "--human-col" in err and "--text-col" not in err


def test_breaks_hint_names_the_column_not_an_absent_option(tmp_path, capsys, examples):
    hyps = tmp_path / "h.tsv"
    hyps.write_text("id\tphrasing\nh1\ta <SB>\n", encoding="utf-8")
    code, _, err = run(capsys, "breaks", "score", "--refs", examples / "breaks" / "table.jsonl", "--hyps", hyps)
    assert code == 2
    assert "--text-col" not in err and "'annotation'" in err


# ---- outputs -------------------------------------------------------------------------------------


@pytest.fixture
def en(examples):
    return examples / "asr" / "en"


def test_report_directory_fails_before_work_and_writes_nothing(tmp_path, capsys, en):
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        capsys,
        "asr",
        "score",
        "--ref",
        en / "ref.txt",
        "--hyp",
        en / "sys_a.txt",
        "--ids",
        "--out",
        out,
        "--report",
        tmp_path,
    )
    assert code == 2 and "is a directory" in err
    assert not out.exists()
    code, _, err = run(
        capsys,
        "asr",
        "score",
        "--ref",
        en / "ref.txt",
        "--hyp",
        en / "sys_a.txt",
        "--ids",
        "--out",
        out,
        "--report",
        tmp_path / "nodir" / "r.html",
    )
    assert code == 2 and "does not exist" in err
    assert list(tmp_path.iterdir()) == []


def _metrics_to(en, out) -> list:
    return ["asr", "metrics", "--ref", en / "ref.txt", "--hyp", en / "sys_a.txt", "--ids", "--out", out]


def test_unknown_record_suffix_fails_before_work(tmp_path, capsys, en):
    code, _, err = run(capsys, *_metrics_to(en, tmp_path / "out.xlsx"))
    assert code == 2 and ".jsonl" in err
    assert list(tmp_path.iterdir()) == []


def test_same_file_for_two_outputs_is_refused(tmp_path, capsys, en):
    same = tmp_path / "x.jsonl"
    code, _, err = run(
        capsys,
        "asr",
        "score",
        "--ref",
        en / "ref.txt",
        "--hyp",
        en / "sys_a.txt",
        "--ids",
        "--out",
        same,
        "--report",
        same,
    )
    assert code == 2 and "two different outputs" in err


def test_failed_batch_leaves_no_file(tmp_path):
    class Boom:
        def __iter__(self):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_outputs({tmp_path / "a.jsonl": [{"x": 1}], tmp_path / "b.jsonl": Boom()})
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_new_files_follow_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        write_records(tmp_path / "r.jsonl", [{"a": 1}])
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.jsonl").stat().st_mode) == 0o666 & ~umask


def test_replacing_a_file_keeps_its_mode(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("old\n")
    p.chmod(0o640)
    write_records(p, [{"a": 1}])
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert p.read_bytes() == b"a\r\n1\r\n"


def test_read_lines_errors_stay_input_errors(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        read_lines(tmp_path)


@pytest.mark.parametrize("command", ["score", "metrics"])
def test_a_long_output_name_the_file_system_takes_is_written(tmp_path, capsys, en, command):
    """A 251-byte name is a valid name, but its staging file (".<name>.XXXXXXXX.tmp") was not:
    OSError traceback, and asr metrics only after the whole run."""
    out = tmp_path / ("o" * 245 + ".jsonl")
    argv = ["asr", command, "--ref", en / "ref.txt", "--hyp", en / "sys_a.txt", "--ids", "--out", out]
    code, _, err = run(capsys, *argv, *(["--lang", "en"] if command == "score" else []))
    assert code == 0, err
    lines = (en / "ref.txt").read_text(encoding="utf-8").count("\n")
    assert [p.name for p in tmp_path.iterdir()] == [out.name] and out.read_text(encoding="utf-8").count("\n") == lines


def test_names_too_long_and_unwritable_places_are_one_line_before_any_work(tmp_path, capsys, en):
    too_long = tmp_path / ("o" * 300 + ".jsonl")
    base = ["asr", "metrics", "--ref", en / "ref.txt", "--hyp", en / "sys_a.txt", "--ids"]
    code, _, err = run(capsys, *base, "--out", too_long)
    assert code == 2 and "the file name is 306 bytes, longer than the file system allows (255)" in err
    code, _, err = run(capsys, "asr", "metrics", "--ref", too_long, "--hyp", en / "sys_a.txt", "--ids")
    assert code == 2 and err.endswith(": cannot be read (File name too long)\n"), err
    if os.path.isdir("/proc"):  # (as root, os.access calls /proc writable; no file can be made there)
        code, _, err = run(capsys, *base, "--out", "/proc/x.jsonl")
        assert code == 2 and err.startswith("voxjudge: error: /proc/x.jsonl: cannot ") and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["score", "metrics"])
def test_an_output_that_is_a_symbolic_link_is_written_through_it(tmp_path, capsys, en, command):
    """The link was replaced by a regular file and the file it named left as it was."""
    (tmp_path / "real").mkdir()
    kept, new = tmp_path / "real" / "kept.jsonl", tmp_path / "real" / "new.jsonl"
    kept.write_text("old\n", encoding="utf-8")
    (tmp_path / "link.jsonl").symlink_to(kept)
    (tmp_path / "dangling.jsonl").symlink_to(new)
    lines = (en / "ref.txt").read_text(encoding="utf-8").count("\n")
    for link, target in (("link.jsonl", kept), ("dangling.jsonl", new)):
        argv = ["asr", command, "--ref", en / "ref.txt", "--hyp", en / "sys_a.txt", "--ids", "--out", tmp_path / link]
        code, _, err = run(capsys, *argv, *(["--lang", "en"] if command == "score" else []))
        assert code == 0, err
        assert (tmp_path / link).is_symlink() and target.read_text(encoding="utf-8").count("\n") == lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.jsonl", "link.jsonl", "real"]


def test_a_link_to_a_place_no_file_can_be_made_is_refused_before_any_work(tmp_path, capsys, en):
    """The link was checked, not its target: the failure came after the whole run."""
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "missing" / "x.jsonl")
    code, out, err = run(capsys, *_metrics_to(en, tmp_path / "link.jsonl"))
    assert code == 2 and out == "" and f"directory {tmp_path / 'missing'} does not exist" in err, err
