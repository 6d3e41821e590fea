from __future__ import annotations

import json

import pytest

from voxjudge.errors import InputError
from voxjudge.io import pair_texts, read_texts, write_records
from voxjudge.io.scores import paired_scores, read_score_file


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def test_line_aligned_keeps_empty_lines_as_empty_utterances(tmp_path):
    ts = read_texts(write(tmp_path / "h.txt", "a b\n\nc\n"))
    assert [r.text for r in ts.records] == ["a b", "", "c"]
    assert [r.id for r in ts.records] == ["1", "2", "3"]
    assert not ts.has_ids


def test_line_aligned_records_built_when_asked_are_the_records(tmp_path):
    from voxjudge.io import TextRecord

    ts = read_texts(write(tmp_path / "h.txt", "a b\n\nc\n"))
    want = [TextRecord("1", "a b", 1), TextRecord("2", "", 2), TextRecord("3", "c", 3)]
    assert list(ts.records) == want and ts.records == want and len(ts.records) == 3
    assert ts.records[-1] == want[-1] and ts.records[1:] == want[1:] and ts.records[0].speaker is None
    with pytest.raises(IndexError):
        ts.records[3]
    paired = pair_texts(ts, read_texts(write(tmp_path / "r.txt", "a\nb\nc\n")))
    assert (paired.ids, paired.references, paired.speakers) == (["1", "2", "3"], ["a b", "", "c"], [None] * 3)
    assert paired.hypotheses == ["a", "b", "c"]


def test_kaldi_ids_bom_and_crlf(tmp_path):
    ts = read_texts(write(tmp_path / "r.txt", "\ufeffu1 hello world\r\nu2\r\n\r\nu3  नमस्ते  दुनिया\r\n"), ids=True)
    assert [(r.id, r.text) for r in ts.records] == [("u1", "hello world"), ("u2", ""), ("u3", "नमस्ते  दुनिया")]
    assert ts.records[2].line == 4


def test_tsv_csv_jsonl_with_named_columns(tmp_path):
    tsv = read_texts(write(tmp_path / "a.tsv", "id\tspeaker\ttext\nx\ts1\thello\ny\ts2\tworld\n"))
    csv_ = read_texts(
        write(tmp_path / "a.csv", 'utt,sentence\nx,"hello, there"\n'), id_field="utt", text_field="sentence"
    )
    jl = read_texts(
        write(tmp_path / "a.jsonl", '{"id": "x", "text": "hi", "speaker": "s9"}\n\n{"id": "y", "text": null}\n')
    )
    assert [(r.id, r.text, r.speaker) for r in tsv.records] == [("x", "hello", "s1"), ("y", "world", "s2")]
    assert csv_.records[0].text == "hello, there" and csv_.has_ids
    assert [(r.id, r.text, r.speaker) for r in jl.records] == [("x", "hi", "s9"), ("y", "", None)]


@pytest.mark.parametrize(
    "name, content, kwargs, message",
    [
        ("empty.txt", "", {}, "file is empty"),
        ("blank.txt", "\n  \n", {}, "file is empty"),
        ("bad.txt", b"ok line\nsecond \xff line\n", {}, r"bad.txt:2: invalid UTF-8 \(byte 0xff at column 8\)"),
        ("dup.txt", "a x\nb y\na z\n", {"ids": True}, "dup.txt:3: duplicate id 'a' \\(first on line 1\\)"),
        (
            "cols.tsv",
            "id\tsentence\n1\thi\n",
            {},
            r"cols.tsv:1: no column 'text' in the header \(columns: id, sentence\)",
        ),
        ("bad.jsonl", '{"id": 1, "text": "a"}\n{oops}\n', {}, r"bad.jsonl:2: not valid JSON"),
        ("arr.jsonl", '["a"]\n', {}, "expected a JSON object"),
        ("missing.jsonl", '{"id": 1, "txt": "a"}\n', {}, r"missing.jsonl:1: missing field 'text' \(fields: id, txt\)"),
        ("typed.jsonl", '{"id": 1, "text": ["a"]}\n', {}, "must be a string"),
        ("nan.jsonl", '{"id": 1, "text": NaN}\n', {}, r"nan.jsonl:1: field 'text' is nan, not a text"),
        ("inf.jsonl", '{"id": 1, "text": -Infinity}\n', {}, r"inf.jsonl:1: field 'text' is -inf, not a text"),
        # half a UTF-16 pair: asr score crashed writing it (UnicodeEncodeError), asr metrics counted it as a word
        (
            "half.jsonl",
            '{"id": "a", "text": "ok \\ud83d\\ude00"}\n{"id": "b", "text": "hi \\ud800 x"}\n',
            {},
            r"half.jsonl:2: field 'text' holds \\ud800, half of a UTF-16 pair",
        ),
        ("halfid.jsonl", '{"\\udc00": "a", "text": "hi"}\n', {}, r"halfid.jsonl:1: field '\\udc00' holds \\udc00"),
    ],
)
def test_bad_input_names_file_and_line(tmp_path, name, content, kwargs, message):
    path = write(tmp_path / name, content)
    with pytest.raises(InputError, match=message):
        read_texts(path, **kwargs)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_texts(tmp_path / "nope.txt")
    with pytest.raises(InputError, match="is a directory"):
        read_texts(tmp_path)


def test_unknown_format():
    with pytest.raises(InputError, match="unknown format 'xml'"):
        read_texts("x.xml", fmt="xml")


def test_pairing_by_id_follows_reference_order(tmp_path):
    ref = read_texts(write(tmp_path / "r.txt", "a one\nb two\nc three\n"), ids=True)
    hyp = read_texts(write(tmp_path / "h.txt", "c 3\na 1\nb 2\n"), ids=True)
    p = pair_texts(ref, hyp)
    assert p.ids == ["a", "b", "c"] and p.hypotheses == ["1", "2", "3"]


def test_id_mismatch_names_the_first_few(tmp_path):
    ref = read_texts(write(tmp_path / "r.txt", "".join(f"u{k} x\n" for k in range(10))), ids=True)
    hyp = read_texts(write(tmp_path / "h.txt", "u0 x\nzz y\n"), ids=True)
    with pytest.raises(
        InputError,
        match=r"9 reference id\(s\) missing from .*h.txt: 'u1', 'u2', 'u3', 'u4', 'u5' and 4 more; "
        r"1 id\(s\) in .*h.txt not in .*r.txt: 'zz'",
    ):
        pair_texts(ref, hyp)


def test_ids_in_messages_are_quoted_and_long_ones_cut(tmp_path):
    """A BOM inside a line's id read as the same id on both sides, and a 2 MB id made a 4 MB line."""
    ref = read_texts(write(tmp_path / "r.txt", "a x\n\ufeffb y\n"), ids=True)
    hyp = read_texts(write(tmp_path / "h.txt", "a x\nb y\n"), ids=True)
    with pytest.raises(InputError, match=r"missing from .*h.txt: '\\ufeffb'; 1 id\(s\) in .*h.txt not in .*r.txt: 'b'"):
        pair_texts(ref, hyp)
    long = "x" * 2_000_000
    ref = read_texts(write(tmp_path / "r.txt", f"{long} hi\nb y\n"), ids=True)
    with pytest.raises(InputError) as e:
        pair_texts(ref, hyp)
    assert f"'{'x' * 40}'... (2,000,000 characters)" in str(e.value) and len(str(e.value)) < 600


def test_line_count_mismatch(tmp_path):
    ref = read_texts(write(tmp_path / "r.txt", "a\nb\n"))
    hyp = read_texts(write(tmp_path / "h.txt", "a\n"))
    with pytest.raises(InputError, match="r.txt has 2 lines but .*h.txt has 1"):
        pair_texts(ref, hyp)


def test_ids_on_one_side_only(tmp_path):
    ref = read_texts(write(tmp_path / "r.txt", "u1 a\n"), ids=True)
    hyp = read_texts(write(tmp_path / "h.txt", "a\n"))
    with pytest.raises(InputError, match="has utterance ids but"):
        pair_texts(ref, hyp)


def test_scores_by_id_and_bad_numbers(tmp_path):
    m = read_score_file(write(tmp_path / "m.txt", "a 0.5\nb 0.25\n"))
    h = read_score_file(write(tmp_path / "h.jsonl", '{"id": "b", "score": 2}\n{"id": "a", "score": 4.5}\n'))
    assert paired_scores(m, h) == (["a", "b"], [0.5, 0.25], [4.5, 2.0])
    bad = read_score_file(write(tmp_path / "bad.txt", "a 0.5\nb high\n"))
    with pytest.raises(InputError, match=r"bad.txt:2: score 'high' for id 'b' is not a number"):
        paired_scores(bad, h)


@pytest.mark.parametrize("suffix", ["jsonl", "csv", "tsv", "json"])
def test_writers_round_trip(tmp_path, suffix):
    rows = [{"id": "a", "wer": 0.5, "text": "नमस्ते, दुनिया"}, {"id": "b", "wer": 0.0, "text": 'q"uote'}]
    path = tmp_path / f"out.{suffix}"
    write_records(path, rows)
    text = path.read_text(encoding="utf-8")
    if suffix == "jsonl":
        assert [json.loads(line) for line in text.splitlines()] == rows
    elif suffix == "json":
        assert json.loads(text) == rows
    else:
        back = read_texts(path)
        assert [r.text for r in back.records] == [r["text"] for r in rows]


def test_writer_leaves_nothing_behind_on_failure(tmp_path):
    path = tmp_path / "out.jsonl"
    with pytest.raises(InputError, match="record 2, field 'bad': Object of type object is not JSON serializable"):
        write_records(path, [{"ok": 1}, {"bad": object()}])
    assert list(tmp_path.iterdir()) == []


def test_writer_refuses_unknown_suffix_and_missing_directory(tmp_path):
    with pytest.raises(InputError, match="cannot tell the output format"):
        write_records(tmp_path / "out.xlsx", [])
    with pytest.raises(InputError, match="does not exist"):
        write_records(tmp_path / "no" / "out.jsonl", [])
