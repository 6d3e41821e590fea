"""Messages of ``read_scores`` and ``join_by_id`` as a Python caller meets them: a setting is named
as the function called spells it, a side is named as what it is (no "file" when none was read),
and the command line still words them with its flags."""

from __future__ import annotations

import pytest

from voxjudge.cli.wording import worded
from voxjudge.errors import InputError
from voxjudge.io.join import join_by_id
from voxjudge.io.scores import read_score_file, read_scores


@pytest.mark.parametrize(
    "name, content, problem",
    [
        ("s.tsv", "id\tval\n1\t0.5\n", r"s.tsv:1: no column 'score' in the header \(columns: id, val\)"),
        ("s.jsonl", '{"id": "1", "val": 0.5}\n', r"s.jsonl:1: missing field 'score' \(fields: id, val\)"),
    ],
)
def test_read_scores_names_its_own_column_parameter(tmp_path, name, content, problem):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=problem) as e:
        read_scores(path)
    assert str(e.value).endswith("; name the " + ("column" if name.endswith("tsv") else "field") + " with column=")
    assert "human_col" not in str(e.value)
    assert worded(e.value).endswith(" with --human-col")  # the command line's wording is kept
    with pytest.raises(InputError) as e:
        read_score_file(path)
    assert str(e.value).endswith(" with column=")


def test_a_caller_that_names_its_setting_keeps_it(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("id\tval\n1\t0.5\n")
    with pytest.raises(InputError) as e:
        read_scores(path, column_setting="ratings_col")
    assert str(e.value).endswith(" with ratings_col") and worded(e.value).endswith(" with --ratings-col")
    assert read_scores(path, "val") == {"1": 0.5}


def test_scores_given_as_a_dict_are_not_called_a_file():
    with pytest.raises(InputError) as e:
        join_by_id({"a": 1, "b": 2}, {"a": 1})
    assert str(e.value) == (
        "the human scores have no entry for 1 of the 2 items in metric: 'b'; add it, "
        "or use allow_partial=True to use the 1 in common"
    )
    with pytest.raises(InputError, match="^the human scores have 1 id that is not among the items in metric: 'z'"):
        join_by_id({"a": 1}, {"a": 1, "z": 2})
    with pytest.raises(InputError, match="^h.tsv has no entry for 1 of the 2 items"):
        join_by_id({"a": 1, "b": 2}, {"a": 1}, right_name="h.tsv")


def test_the_caller_words_the_partial_setting():
    with pytest.raises(InputError) as e:
        join_by_id(
            {"u1": 1, "u2": 2},
            {"u1": 1},
            left_name="the run",
            what="utterances",
            partial_setting="LaserOptions(allow_partial=True)",
        )
    assert str(e.value).endswith("add it, or use LaserOptions(allow_partial=True) to use the 1 in common")
    assert worded(e.value).endswith("add it, or use --allow-partial to use the 1 in common")
