from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxjudge.breaks import Annotation, LabelMap, LabelSet, format_as, parse, parse_inline, read_annotations
from voxjudge.errors import InputError

word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäéअक", min_size=1, max_size=6)
label = st.sampled_from(["NB", "AP", "IP", "SB"])
annotation = st.integers(1, 12).flatmap(
    lambda n: st.builds(Annotation, st.tuples(*[word] * n), st.tuples(*[label] * n))
)


@given(annotation)
def test_inline_round_trip(ann):
    assert parse_inline(ann.inline()) == ann


@given(annotation)
def test_sequence_round_trip(ann):
    assert parse(format_as(ann, "sequence"), "sequence") == ann


def test_inline_tags_glued_or_spaced_and_punctuation():
    a = parse_inline("their poor parents<IP> were just starving, <AP> as usual . <SB>")
    assert a.words == ("their", "poor", "parents", "were", "just", "starving,", "as", "usual")
    assert a.labels == ("NB", "NB", "IP", "NB", "NB", "AP", "NB", "SB")  # "." carried <SB> to "usual"
    assert a.text_key == "their poor parents were just starving as usual"


def test_other_conventions_map_to_canonical_labels():
    assert parse("their|1 poor|1 parents|4 were|3 starving|4", "tobi").labels == ("NB", "NB", "IP", "AP", "SB")
    assert parse("우리는|1 학교에|2 갔다|3", "k-tobi").labels == ("NB", "AP", "SB")
    m = parse("风筝#2要线#3才#1能飞#4", "mandarin")
    assert m.words == ("风", "筝", "要", "线", "才", "能", "飞") and m.labels == (
        "NB",
        "AP",
        "NB",
        "IP",
        "NB",
        "NB",
        "SB",
    )
    assert parse("GPS导航#2很好#4", "mandarin").words == ("GPS", "导", "航", "很", "好")
    assert parse("their<0>poor<3>parents<1>were", "pause").labels == ("NB", "IP", "AP", "SB")
    custom = LabelMap("mine", {"0": "NB", "1": "IP"})
    assert parse("a<1>b", "pause", label_map=custom).labels == ("IP", "SB")


@pytest.mark.parametrize(
    "text, fmt, message",
    [
        ("a <XX> b", "inline", "unknown boundary label 'XX'"),
        ("<AP> a b", "inline", "comes before any word"),
        ("a <AP> <IP> b", "inline", "two tags after 'a'"),
        ("a|9 b|1", "tobi", "label '9' is not in the tobi label map"),
        ("a b", "tobi", "is not word|index"),
        ("a b\tNB", "sequence", "2 words but 1 labels"),
        ("a b", "xml", "unknown annotation format"),
        ("<5>a", "pause", "pause bucket <5> without a word before it"),
        ("their poor<3>", "pause", "pause bucket <3> without a word after it"),
        ("a<1><2>b", "pause", "pause buckets <1> and <2> without a word between them"),
        ("a <> b", "inline", "malformed tag '<>'"),
        ("a < AP > b", "inline", "malformed tag '<'"),
        ("a <AP b", "inline", "malformed tag '<AP'"),
    ],
)
def test_bad_annotations(text, fmt, message):
    with pytest.raises(InputError, match=message):
        parse(text, fmt)


def test_angle_brackets_that_are_no_tag_stay_words():
    for text, words in [
        ("if x < y <IP> swap them <SB>", ("if", "x", "<", "y", "swap", "them")),
        ("convert a -> b <AP> quickly <SB>", ("convert", "a", "->", "b", "quickly")),
        ("I <3 you <SB>", ("I", "<3", "you")),
        ("close the html> tag <SB>", ("close", "the", "html>", "tag")),
    ]:
        assert parse_inline(text).words == words
    for broken in ("a AP> b", "a <AP b", "a < AP > b", "a <> b"):
        with pytest.raises(InputError, match="malformed tag"):
            parse_inline(broken)


def test_custom_label_set():
    ls = LabelSet.parse("none,minor,major,end")
    a = parse_inline("a <minor> b <end>", ls)
    assert a.labels == ("minor", "end") and a.levels(ls) == (1, 3)
    with pytest.raises(InputError):
        LabelSet(("x",))


def test_read_annotations_names_file_and_line(tmp_path):
    path = tmp_path / "h.txt"
    path.write_text("a b <SB>\n\na <ZZ> b\n")
    with pytest.raises(InputError, match=r"h.txt:3: unknown boundary label 'ZZ'"):
        read_annotations(path)
    tsv = tmp_path / "h.tsv"
    tsv.write_text("id\tannotation\nx\ta <IP> b <SB>\n")
    assert read_annotations(tsv) == [("x", parse_inline("a <IP> b <SB>"))]
    empty = tmp_path / "e.txt"
    empty.write_text("")
    with pytest.raises(InputError, match="file is empty"):
        read_annotations(empty)


def test_label_map_file(tmp_path):
    good = tmp_path / "m.json"
    good.write_text('{"0": "NB", "2": "IP"}')
    assert LabelMap.load(good)("2") == "IP"
    bad = tmp_path / "b.json"
    bad.write_text("[1, 2]")
    with pytest.raises(InputError, match="label map is a JSON object"):
        LabelMap.load(bad)


def test_label_map_values_must_be_in_the_label_set(tmp_path, capsys):
    from voxjudge.cli.main import main

    lm = tmp_path / "m.json"
    lm.write_text('{"1": "NB", "5": "XX"}')
    with pytest.raises(InputError, match=r"m.json: the label map maps '5' to 'XX', which is not in the label set"):
        LabelMap.load(lm, LabelSet())
    ann = tmp_path / "a.txt"
    ann.write_text("a|1 b|5\n")
    assert main(["breaks", "convert", str(ann), "--convention", "tobi", "--label-map", str(lm)]) == 2
    assert "which is not in the label set (NB, AP, IP, SB)" in capsys.readouterr().err


def test_a_line_error_keeps_the_setting_it_names(tmp_path, capsys):
    from voxjudge.cli.main import main

    ann = tmp_path / "a.txt"
    ann.write_text("a|1 b|4\na|9 b|4\n")
    with pytest.raises(InputError) as e:
        read_annotations(ann, fmt="tobi")
    assert str(e.value).startswith(f"{ann}:2: label '9'") and "a label_map (LabelMap.load(FILE))" in str(e.value)
    assert main(["breaks", "convert", str(ann), "--convention", "tobi"]) == 2
    assert "a.txt:2: label '9' is not in the tobi label map" in (err := capsys.readouterr().err)
    assert "pass --label-map FILE to map it" in err


def test_a_single_reference_file_gives_one_annotation_per_text(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("a b <IP> c <SB>\nx y <SB>\n\nA, b c <SB>\n")
    assert len(read_annotations(path)) == 3
    with pytest.raises(InputError, match=r"s.txt:4: text 'a b c' is annotated again \(first on line 1\)"):
        read_annotations(path, one_per_text=True)
