"""``write_records`` and ``RecordStream`` as the Python API uses them: every key of every record is
a column, a record is a dict, JSON output is valid JSON (NaN and infinity as null, as the command
line writes them) and numpy scalars are written as numbers."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from voxjudge.errors import InputError
from voxjudge.io.writers import RecordStream, write_records


def _strict(text: str):
    """JSON as a strict reader takes it: NaN, Infinity and -Infinity are refused."""
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))


def _table(path, delimiter=","):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f, delimiter=delimiter))


@pytest.mark.parametrize("suffix, delimiter", [("csv", ","), ("tsv", "\t")])
def test_csv_columns_are_every_key_in_first_seen_order(tmp_path, suffix, delimiter):
    path = tmp_path / f"out.{suffix}"
    write_records(path, [{"a": 1}, {"a": 2, "b": 3}, {"c": [4], "a": 5}])
    assert _table(path, delimiter) == [["a", "b", "c"], ["1", "", ""], ["2", "3", ""], ["5", "", "[4]"]]


def test_a_streamed_csv_gets_the_keys_first_seen_later(tmp_path):
    path = tmp_path / "out.csv"
    stream = RecordStream(path)
    stream.write_lines(['{"id": "1", "laser": 1.0}\n', '{"id": "2", "laser": null, "unscored": "bad, \\"answer\\""}\n'])
    stream.write_lines(['{"id": "3", "laser": 0.5, "note": "two\\nlines"}\n'])
    stream.commit()
    assert _table(path) == [
        ["id", "laser", "unscored", "note"],
        ["1", "1.0", "", ""],
        ["2", "", 'bad, "answer"', ""],
        ["3", "0.5", "", "two\nlines"],
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]  # no staging file left


def test_a_streamed_csv_with_the_same_keys_is_written_once(tmp_path):
    path = tmp_path / "out.tsv"
    stream = RecordStream(path)
    stream.write_lines(['{"id": "1", "x": 1}\n', '{"x": 2, "id": "2"}\n', '{"id": "3"}\n'])
    stream.commit()
    assert path.read_bytes() == b"id\tx\r\n1\t1\r\n2\t2\r\n3\t\r\n"


@pytest.mark.parametrize("suffix", ["jsonl", "json", "csv"])
def test_a_record_that_is_not_a_dict_is_refused(tmp_path, suffix):
    path = tmp_path / f"out.{suffix}"
    with pytest.raises(InputError, match=r"record 2 is an int \(2\), not a dict"):
        write_records(path, [{"a": 1}, 2])
    with pytest.raises(InputError, match=r"record 1 is a list \(\['a', 1\]\), not a dict"):
        write_records(path, [["a", 1]])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", ["jsonl", "json"])
def test_nan_and_infinity_are_written_as_null(tmp_path, suffix):
    path = tmp_path / f"out.{suffix}"
    rows = [{"id": "a", "r": float("nan")}, {"id": "b", "r": [float("inf"), -float("inf"), 1.5], "s": {"x": np.nan}}]
    write_records(path, rows)
    text = path.read_text()
    back = [_strict(line) for line in text.splitlines()] if suffix == "jsonl" else _strict(text)
    assert back == [{"id": "a", "r": None}, {"id": "b", "r": [None, None, 1.5], "s": {"x": None}}]


@pytest.mark.parametrize("suffix", ["jsonl", "json"])
def test_numpy_scalars_are_written_as_numbers(tmp_path, suffix):
    path = tmp_path / f"out.{suffix}"
    rows = [
        {"f": np.float32(0.5), "i": np.int64(3), "b": np.bool_(True), "n": np.float32("nan")},
        {"list": [np.int32(1), np.float64(2.5)], "nested": {"k": np.uint8(7)}},
    ]
    write_records(path, rows)
    text = path.read_text()
    back = [_strict(line) for line in text.splitlines()] if suffix == "jsonl" else _strict(text)
    assert back == [{"f": 0.5, "i": 3, "b": True, "n": None}, {"list": [1, 2.5], "nested": {"k": 7}}]
    assert type(back[0]["i"]) is int and type(back[0]["b"]) is bool


def test_numpy_in_a_csv_cell(tmp_path):
    path = tmp_path / "out.csv"
    write_records(path, [{"id": "a", "v": np.float32(0.25), "pairs": [np.int64(1), {"p": np.float64(0.5)}]}])
    assert _table(path) == [["id", "v", "pairs"], ["a", "0.25", '[1, {"p": 0.5}]']]


def test_plain_records_are_written_as_json_dumps_writes_them(tmp_path):
    rows = [{"id": "ü", "x": 1.0, "y": [1, {"z": None}], "t": True}] * 3
    write_records(tmp_path / "o.jsonl", rows)
    assert (tmp_path / "o.jsonl").read_text() == "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    write_records(tmp_path / "o.json", rows)
    assert (tmp_path / "o.json").read_text() == json.dumps(rows, ensure_ascii=False, indent=2) + "\n"
    write_records(tmp_path / "e.json", [])
    assert (tmp_path / "e.json").read_text() == "[]\n"


def test_a_value_json_cannot_hold_names_the_record_and_field(tmp_path):
    with pytest.raises(InputError, match=r"record 2, field 'bad': Object of type set is not JSON serializable"):
        write_records(tmp_path / "out.jsonl", [{"ok": 1}, {"ok": 2, "bad": {1}}])
    assert list(tmp_path.iterdir()) == []
