from __future__ import annotations

import json

import pytest

from voxjudge.breaks import LabelSet, ReferenceTable, merge, parse_inline
from voxjudge.errors import InputError


def table_of(*annotations, generator="g"):
    t = ReferenceTable()
    for k, a in enumerate(annotations):
        t.add(parse_inline(a), generator=generator, iteration=f"{generator}#{k}")
    return t


def test_counts_and_identity_ignore_the_final_juncture_and_case():
    t = table_of("A b <IP> c <SB>", "a b <IP> c", "a, b <IP> c. <SB>", "a b c <SB>")
    entry = t.entries["a b c"]
    ranked = entry.ranked()
    assert [r.count for r in ranked] == [3, 1]
    assert ranked[0].iterations == ["g#0", "g#1", "g#2"] and ranked[0].generators == ["g"]
    assert entry.levels(LabelSet()).tolist() == [[0, 2], [0, 0]]


def test_save_load_round_trip(tmp_path):
    t = table_of("a b <IP> c <SB>", "a b <IP> c <SB>", "a <AP> b c <SB>", "x y <SB>")
    path = tmp_path / "t.jsonl"
    t.save(path)
    back = ReferenceTable.load(path)
    assert list(back.records()) == list(t.records())
    line = json.loads(path.read_text().splitlines()[0])
    assert line["references"][0]["annotation"] == "a b <IP> c <SB>" and line["references"][0]["count"] == 2


def test_annotation_only_references_are_parsed(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"text": "a b c", "references": [{"annotation": "A b <AP> c <SB>", "count": 2}]}) + "\n")
    t = ReferenceTable.load(path)
    assert t.entries["a b c"].ranked()[0].count == 2


def test_hand_written_text_is_normalized_like_hypotheses(tmp_path):
    path = tmp_path / "t.jsonl"
    lines = [
        {"text": "Hello, world again", "references": [{"annotation": "Hello, <IP> world again <SB>"}]},
        {"text": "Good day , sir", "references": [{"boundaries": "NB NB IP SB"}, {"levels": "0003"}]},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    t = ReferenceTable.load(path)
    assert list(t.entries) == ["hello world again", "good day sir"]
    assert t.entries["hello world again"].ranked()[0].inline() == "hello <IP> world again <SB>"
    # the comma's IP moves to "day", as in a hypothesis
    assert [r.inline() for r in t.entries["good day sir"].ranked()] == ["good day <IP> sir <SB>", "good day sir <SB>"]


def test_merge_of_a_hand_written_table(tmp_path):
    path = tmp_path / "hand.jsonl"
    path.write_text(json.dumps({"text": "Hello world again", "references": [{"boundaries": "IP NB SB"}]}) + "\n")
    m = merge([ReferenceTable.load(path), table_of("hello <IP> world again <SB>")])
    assert list(m.entries) == ["hello world again"] and m.entries["hello world again"].ranked()[0].count == 2


def test_merge_sums_counts_and_keeps_provenance():
    a = table_of("a b <IP> c <SB>", "a b <IP> c <SB>", generator="gpt")
    b = table_of("a b <IP> c <SB>", "a <AP> b c <SB>", "p q <SB>", generator="claude")
    m = merge([a, b])
    top = m.entries["a b c"].ranked()[0]
    assert top.count == 3 and top.generators == ["gpt", "claude"] and len(top.iterations) == 3
    assert len(m) == 2 and m.reference_count == 3


def test_filter_keeps_more_than_min_count():
    t = table_of(*(["a b <IP> c <SB>"] * 3 + ["a <AP> b c <SB>"] * 2))
    kept = t.filtered(2)
    assert [r.count for r in kept.entries["a b c"].ranked()] == [3]
    assert t.filtered(3).empty_texts() == ["a b c"]


@pytest.mark.parametrize(
    "lines, message",
    [
        ([], "is empty"),
        ([{"text": "a b"}], "needs 'text' and a list of 'references'"),
        ([{"text": "a b", "references": []}, {"text": "a b", "references": []}], "'a b' is on line 1 already;"),
        ([{"text": "a b", "references": [{"boundaries": ["NB"]}]}], "1 boundaries for 2 words"),
        ([{"text": "a b", "references": [{"boundaries": ["NB", "XX"]}]}], "unknown boundary label 'XX'"),
        ([{"text": "a b", "references": [{"annotation": "a c <SB>"}]}], "does not have the words"),
        ([{"text": "a b", "words": ["a", "c"], "references": []}], "do not spell"),
        ([{"text": "a 5 b", "words": ["a", 5, "b"], "references": []}], r"t.jsonl:1: 'words' must be a list of"),
        ([{"text": "a b", "labels": "NBAPIPSB", "references": []}], r"t.jsonl:1: 'labels' must be a list"),
        ([{"text": "a b", "labels": ["NB", "NB"], "references": []}], r"t.jsonl:1: a label set needs"),
        (
            [{"text": "A b", "references": []}, {"text": "a, b", "references": []}],
            "t.jsonl:2: text 'a, b' is on line 1 already as 'A b' \\(the same words, normalized\\)",
        ),
        (
            [
                {"text": "a b", "labels": ["N", "Y"], "references": []},
                {"text": "c", "labels": ["NB", "SB"], "references": []},
            ],
            "label set",
        ),
    ],
)
def test_bad_tables(tmp_path, lines, message):
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(InputError, match=message):
        ReferenceTable.load(path)
