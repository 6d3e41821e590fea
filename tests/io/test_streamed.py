"""Files read line by line (``scan_texts``, ``iter_lines``, ``pair_files``) against the whole-file
readers, which are the oracle: same lines, same records, same pairing, same error messages."""

from __future__ import annotations

import random
import time

import pytest

from voxjudge.errors import InputError
from voxjudge.io import pair_texts, read_texts
from voxjudge.io.matching import Paired
from voxjudge.io.readers import iter_lines, read_lines, scan_texts
from voxjudge.io.streamed import PairedStream, pair_files


def write(path, content):
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def _random_text(rng: random.Random) -> str:
    pieces = ["a", "b c", "नमस्ते", " ", "\t", "\x0c", "\u2028", "\x85", "\x1c", "é"]
    ends = ["\n", "\r\n", "\r", "\r\r\n", "\n\n"]
    text = "\ufeff" if rng.random() < 0.3 else ""
    for _ in range(rng.randint(1, 12)):
        text += "".join(rng.choices(pieces, k=rng.randint(0, 4))) + rng.choice(ends)
    return text if rng.random() < 0.7 else text.rstrip("\r\n")


@pytest.mark.parametrize("seed", range(40))
def test_lines_are_those_of_the_whole_file(tmp_path, seed):
    path = write(tmp_path / "t.txt", _random_text(random.Random(seed)))
    if not path.read_text(encoding="utf-8-sig").strip():
        return  # read_lines refuses an empty file; the scan lets it say so (below)
    assert list(iter_lines(path)) == read_lines(path)


CASES = [
    ("t.txt", "\ufeffa b\r\n\r\nc\rd\n", {}),
    ("k.txt", "\ufeffu1 hello world\r\nu2\r\n\r\nu3  नमस्ते  दुनिया\r\n", {"ids": True}),
    ("a.tsv", "id\tspeaker\ttext\nx\ts1\thello\n\t\t\ny\ts2\tworld\n", {}),
    ("a.csv", 'utt,sentence\nx,"hello, there"\ny,"two\nlines"\n', {"id_field": "utt", "text_field": "sentence"}),
    ("a.jsonl", '{"id": "x", "text": "hi", "speaker": "s9"}\n\n{"id": "y", "text": null}\n', {}),
    ("b.jsonl", '{"text": "no id"}\n{"id": "y", "text": "one"}\n', {}),
]


@pytest.mark.parametrize("name, content, kwargs", CASES)
def test_records_are_those_of_the_whole_file(tmp_path, name, content, kwargs):
    path = write(tmp_path / name, content)
    whole = read_texts(path, **kwargs)
    scan = scan_texts(path, **kwargs)
    assert scan.whole is None  # read line by line
    assert list(scan.records()) == whole.records
    assert (scan.count, scan.has_ids) == (len(whole), whole.has_ids)


@pytest.mark.parametrize("seed", range(40))
def test_kaldi_ids_and_records_are_those_of_the_whole_file(tmp_path, seed):
    rng = random.Random(seed)
    lead, gap, words = ["", " ", "\t", "\u2028"], [" ", "\t", "  ", "\x85"], ["a", "b c", "नमस्ते", " ", "\x0c", "é"]
    ends, blank = ["\n", "\r\n", "\r"], ["", " ", "\t\x1c"]
    content = "\ufeff" if seed % 3 == 0 else ""
    for k in range(12):  # an id, text with odd whitespace, odd line ends, blank lines between
        text = "".join(rng.choices(words, k=rng.randint(0, 4)))
        content += rng.choice(lead) + f"u{k}" + rng.choice(gap) + text + rng.choice(ends)
        content += rng.choice(blank) + rng.choice(ends) if rng.random() < 0.3 else ""
    path = write(tmp_path / "k.txt", content)
    whole = read_texts(path, ids=True)
    scan = scan_texts(path, ids=True)
    assert scan.whole is None  # the ids are unique: read line by line
    assert list(scan.id_hashes) == [hash(r.id) for r in whole.records]
    assert list(scan.records()) == whole.records


BAD = [
    ("empty.txt", "", {}),
    ("blank.txt", "\n  \n", {}),
    ("blank.jsonl", "\n \n", {}),
    ("bad.txt", b"ok line\nsecond \xff line\n", {}),
    ("bomfirst.txt", b"\xef\xbb\xbfok \xfe\n", {}),
    ("late.jsonl", b'{oops}\n{"text": "\xff"}\n', {}),  # the bad UTF-8 later in the file is what is said
    ("dup.txt", "a x\nb y\na z\n", {"ids": True}),
    ("dupafter.txt", "a x\na y\n{", {"fmt": "jsonl"}),
    ("cols.tsv", "id\tsentence\n1\thi\n", {}),
    ("bad.jsonl", '{"id": 1, "text": "a"}\n{oops}\n', {}),
    ("arr.jsonl", '["a"]\n', {}),
    ("missing.jsonl", '{"id": 1, "txt": "a"}\n', {}),
    ("typed.jsonl", '{"id": 1, "text": ["a"]}\n', {}),
    ("clash.jsonl", '{"id": "2", "text": "a"}\n{"text": "b"}\n', {}),  # line 2's id is its line number
    ("none.tsv", "id\ttext\n\t\n", {}),
]


@pytest.mark.parametrize("name, content, kwargs", BAD)
def test_every_problem_is_worded_as_the_whole_file_reader_words_it(tmp_path, name, content, kwargs):
    path = write(tmp_path / name, content)
    with pytest.raises(InputError) as whole:
        read_texts(path, **kwargs)
    with pytest.raises(InputError) as scanned:
        scan_texts(path, **kwargs)
    assert str(scanned.value) == str(whole.value)


def test_a_missing_file_and_a_directory(tmp_path):
    for path in (tmp_path / "nope.txt", tmp_path):
        with pytest.raises(InputError) as whole:
            read_texts(path)
        with pytest.raises(InputError) as scanned:
            scan_texts(path)
        assert str(scanned.value) == str(whole.value)


def _both(tmp_path, ref, hyp, **kwargs):
    r, h = write(tmp_path / "ref.txt", ref), write(tmp_path / "hyp.txt", hyp)
    return (r, h), pair_files(scan_texts(r, **kwargs), scan_texts(h, **kwargs))


def _rows(paired) -> list[tuple[str, str, str]]:
    if isinstance(paired, Paired):
        return list(zip(paired.ids, paired.references, paired.hypotheses))
    return list(paired)


def test_files_in_the_same_order_are_streamed(tmp_path):
    (r, h), paired = _both(tmp_path, "u1 a b\nu2 c\n\nu3\n", "u1 a\nu2 c d\nu3 e\n", ids=True)
    assert isinstance(paired, PairedStream) and len(paired) == 3
    assert _rows(paired) == _rows(pair_texts(read_texts(r, ids=True), read_texts(h, ids=True)))
    assert _rows(paired) == _rows(paired)  # read again from the files


def test_kaldi_files_split_in_c_give_the_records_rows(tmp_path):
    ref = "\ufeffu1 a  b \t\r\nu2\r\n \n\u2028\nu3\tc\u2028 d\u2028\ru4 \x1ce\x1c\n"
    hyp = "u1 x\n\nu2 y  z\u0085\nu3\nu4 w\r\n"
    (r, h), paired = _both(tmp_path, ref, hyp, ids=True)
    assert isinstance(paired, PairedStream) and paired.ref.kind == "kaldi"
    assert list(paired) == list(paired._records())
    assert list(paired) == _rows(pair_texts(read_texts(r, ids=True), read_texts(h, ids=True)))


def test_a_kaldi_file_changed_while_it_is_read(tmp_path):
    (r, h), paired = _both(tmp_path, "u1 a\nu2 b\n", "u1 a\n\nu2 b\n", ids=True)
    h.write_text("u1 a\n\nu9 b\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"hyp.txt:3: the file changed while it was read"):
        list(paired)


@pytest.mark.parametrize("kaldi", [True, False])
@pytest.mark.parametrize("grown", ["hyp", "ref"])
def test_a_file_that_grows_while_it_is_read_is_one_line_not_a_traceback(tmp_path, kaldi, grown):
    """A line appended mid-run raised zip()'s ValueError: a traceback and exit status 1."""
    ref, hyp = ("u1 a\nu2 b\n", "u1 a\nu2 c\n") if kaldi else ("a\nb\n", "a\nc\n")
    (r, h), paired = _both(tmp_path, ref, hyp, ids=kaldi)
    assert isinstance(paired, PairedStream) and (paired.ref.kind == "kaldi") == kaldi
    with (h if grown == "hyp" else r).open("a", encoding="utf-8") as f:
        f.write("u9 late line\n")
    with pytest.raises(InputError, match=r"a file changed while it was read .*run again"):
        list(paired)


@pytest.mark.parametrize("kaldi", [True, False])
@pytest.mark.parametrize("edited", ["hyp", "ref"])
def test_a_line_edited_in_place_while_it_is_read_stops_the_run(tmp_path, kaldi, edited):
    """The same lines, other words: every row read fine, but from two versions of a file."""
    ref, hyp = ("u1 a\nu2 b\n", "u1 a\nu2 c\n") if kaldi else ("a\nb\n", "a\nc\n")
    (r, h), paired = _both(tmp_path, ref, hyp, ids=kaldi)
    assert isinstance(paired, PairedStream)
    rows = iter(paired)
    next(rows)
    time.sleep(0.05)  # past the file system's timestamp granularity, as a real edit is
    f = h if edited == "hyp" else r
    f.write_text(f.read_text(encoding="utf-8")[:-2] + "x\n", encoding="utf-8")  # same size
    with pytest.raises(InputError, match=rf"{f.name}: the file changed while it was read; run again"):
        list(rows)


def test_files_in_another_order_are_paired_by_id(tmp_path):
    (r, h), paired = _both(tmp_path, "u1 a b\nu2 c\nu3 x\n", "u3 e\nu1 a\nu2 c d\n", ids=True)
    assert isinstance(paired, Paired)
    assert _rows(paired) == [("u1", "a b", "a"), ("u2", "c", "c d"), ("u3", "x", "e")]


def test_line_aligned_files(tmp_path):
    (r, h), paired = _both(tmp_path, "a b\n\nc\n", "a\nb\nc d\n")
    assert isinstance(paired, PairedStream)
    assert _rows(paired) == [("1", "a b", "a"), ("2", "", "b"), ("3", "c", "c d")]
    assert paired.leading_ids == ()
    (r, h), paired = _both(tmp_path, "u1 a\nu2 b\n", "u1 a\nu2 c\n")
    assert paired.leading_ids == pair_texts(read_texts(r), read_texts(h)).leading_ids == ("u1", "u2")


@pytest.mark.parametrize(
    "ref, hyp, kwargs",
    [
        ("u1 a\nu2 b\n", "u1 a\nu9 b\nu8 c\n", {"ids": True}),
        ("a\nb\n", "a\n", {}),
    ],
)
def test_mismatches_are_worded_as_pair_texts_words_them(tmp_path, ref, hyp, kwargs):
    r, h = write(tmp_path / "ref.txt", ref), write(tmp_path / "hyp.txt", hyp)
    with pytest.raises(InputError) as whole:
        pair_texts(read_texts(r, **kwargs), read_texts(h, **kwargs))
    with pytest.raises(InputError) as scanned:
        pair_files(scan_texts(r, **kwargs), scan_texts(h, **kwargs))
    assert str(scanned.value) == str(whole.value)


def test_ids_on_one_side_only(tmp_path):
    r = write(tmp_path / "ref.jsonl", '{"id": "a", "text": "x"}\n')
    h = write(tmp_path / "hyp.jsonl", '{"text": "x"}\n')
    with pytest.raises(InputError, match="has utterance ids but"):
        pair_files(scan_texts(r), scan_texts(h))


def test_asr_score_reads_a_pipe_whole_and_a_file_line_by_line(tmp_path):
    import json
    import subprocess
    import sys

    ref = write(tmp_path / "ref.txt", "u1 the cat sat\nu2 on a mat\n")
    out = tmp_path / "r.jsonl"
    argv = [sys.executable, "-m", "voxjudge.cli.main", "asr", "score", "--ref", str(ref), "--hyp", "/dev/stdin"]
    argv += ["--ids", "--lang", "en", "--json", "--out", str(out), "--jobs", "1"]
    done = subprocess.run(argv, input="u1 the cat sat\nu2 on the mat\n", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["ref_words"] == 6 and summary["labels"]["major"] == 1
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["u1", "u2"]


def test_a_file_removed_while_it_is_read_stops_the_run_in_one_line(tmp_path):
    """The check after the last row raised FileNotFoundError: a traceback, exit status 1."""
    (r, h), paired = _both(tmp_path, "a\nb\n", "a\nc\n")
    rows = iter(paired)
    next(rows)
    h.unlink()
    with pytest.raises(InputError, match=r"hyp.txt: the file changed while it was read; run again"):
        list(rows)
