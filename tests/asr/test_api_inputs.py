"""The Python API's entry points check what they are given, in the library's own words: a list of
strings of one length, never a string read character by character or lists cut to the shortest."""

from __future__ import annotations

import pytest

import voxjudge
from voxjudge.asr import align, compute_metrics, count_errors
from voxjudge.asr.laser import LaserOptions, run_laser
from voxjudge.errors import InputError


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: run_laser(["the cat sat", "a dog"], ["the bat sat"]), "2 references but 1 hypotheses"),
        (lambda: run_laser(["a", "b"], ["a", "b"], ["x", "y", "z"]), "3 ids for 2 utterances"),
        (lambda: run_laser(["a", "b"], ["a", "b"], ["x"]), "1 ids for 2 utterances"),
        # a repeated id: records, human scores and semantic distances are found by id
        (lambda: run_laser(["a", "b", "c"], ["a", "b", "c"], ["x", "y", "x"]), "ids\\[2\\] repeats the id 'x'"),
        (lambda: run_laser(["a", "b"], ["a", "b"], [7, "7"]), "ids\\[1\\] repeats the id '7'"),
        (lambda: run_laser(paired=[("x", "a b", "a b"), ("x", "c", "d")]), "ids\\[1\\] repeats the id 'x'"),
        (lambda: compute_metrics(["a", "b"], ["a"]), "2 references but 1 hypotheses"),
        (lambda: compute_metrics(["a", "b"], ["a", "b"], ["x"]), "1 ids for 2 utterances"),
        (lambda: count_errors(["a"], []), "1 references but 0 hypotheses"),
    ],
)
def test_lists_of_other_lengths_are_refused_not_cut(call, words):
    with pytest.raises(InputError, match=words):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: compute_metrics("the cat", "the bat"),
        lambda: count_errors("the cat", "the bat"),
        lambda: run_laser("the cat", "the bat"),
    ],
)
def test_a_string_where_a_list_belongs_is_refused(call):
    with pytest.raises(InputError, match="references is one string: give a list of texts"):
        call()


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: compute_metrics([None], ["a"]), r"references\[0\] is None, not a text"),
        (lambda: run_laser(["a", 3.5], ["a", "b"]), r"references\[1\] is float 3.5, not a text"),
        (lambda: voxjudge.wer(None, "a"), "the texts is None"),
        (lambda: align(None, "a"), "the reference is None, not a text"),
        (lambda: run_laser(["hello \ud800 world"], ["hello world"]), r"references\[0\] has a lone surrogate"),
        (lambda: run_laser(["a"], ["a"], [None]), r"ids\[0\] is None: an id is a str"),
    ],
)
def test_values_that_are_not_texts_are_named(call, words):
    with pytest.raises(InputError, match=words):
        call()


def test_generators_are_read_once_as_lists():
    refs, hyps = ["the cat sat", "a dog"], ["the bat sat", "a dog"]
    expected = compute_metrics(refs, hyps).summary()
    assert compute_metrics(iter(refs), (h for h in hyps)).summary() == expected
    assert voxjudge.wer(iter(refs), iter(hyps)) == expected["wer"]
    assert run_laser(iter(refs), iter(hyps)).summary["n"] == 2


def test_int_ids_are_their_decimal_strings_in_records_written_or_not(tmp_path):
    out = tmp_path / "r.jsonl"
    result = run_laser(["the cat sat", "a dog"], ["the bat sat", "a dog"], [7, 8], out=out)
    assert [u.id for u in result.utterances] == ["7", "8"]
    assert out.read_text(encoding="utf-8").startswith('{"id": "7"')


def test_cer_takes_only_character_units():
    with pytest.raises(InputError, match="unit must be 'char' or 'grapheme', not 'word'"):
        voxjudge.cer("the cat", "the bat", unit="word")


def test_by_group_needs_one_label_per_utterance():
    result = compute_metrics(["a b", "c d"], ["a b", "c x"])
    with pytest.raises(InputError, match="1 labels for 2 utterances"):
        result.by_group(["x"])
    with pytest.raises(InputError, match="3 labels for 2 utterances"):
        result.by_group(["x", "y", "z"])
    assert result.by_group(["x", "y"])["y"]["wer"] == 0.5


def test_compute_metrics_settings_of_the_wrong_kind_say_what_to_give():
    with pytest.raises(InputError, match=r"normalizer is a function of a text \(e.g. get_normalizer\('basic'\)\)"):
        compute_metrics(["a"], ["a"], normalizer="basic")
    assert compute_metrics(["a b"], ["a c"], units="word").summary()["wer"] == 0.5


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: LaserOptions(lang=5), "language 5 is not a BCP-47"),
        (lambda: LaserOptions(mode="bogus"), "mode is 'pairs' or 'sentence'"),
        (lambda: LaserOptions(jobs=0), "jobs must be a whole number of at least 1, not 0"),
        (lambda: LaserOptions(jobs=-1), "jobs must be a whole number of at least 1"),
        (lambda: LaserOptions(n_resamples=0), "n_resamples must be a whole number of at least 1"),
        (lambda: LaserOptions(confidence=2), "confidence must be between 0 and 1"),
        (lambda: run_laser(["a"], ["a"], judge=None), "judge is a spec such as 'default'"),
        (lambda: run_laser(["a"], ["a"], options={"lang": "en"}), r"options is a LaserOptions\(...\), not a dict"),
        (lambda: run_laser(["a"], ["a"], human=[0.5]), "human is a dict of scores by id"),
        (lambda: run_laser(["a"], ["a"], human={"1": "0.9"}), r"human\['1'\] is '0.9': a human score is a number"),
        (lambda: run_laser(["a"], ["b"], paired=[("1", "a", "a")]), "give the utterances once"),
    ],
)
def test_laser_settings_of_the_wrong_kind_are_refused(make, words):
    with pytest.raises(InputError, match=words):
        make()


@pytest.mark.parametrize("code", ["en", "EN", "en-US", "en_US"])
def test_a_regional_or_upper_case_code_gets_its_language_rules(code):
    refs = ["the colour is red", "it costs five dollars", "we can't go"]
    hyps = ["the color is red", "it costs $5", "we cannot go"]
    result = run_laser(refs, hyps, options=LaserOptions(lang=code))
    assert result.summary["lang"] == "en"
    assert result.summary["laser_micro"] == 1.0


def test_judge_card_groups_lang_cells_by_their_language():
    from voxjudge.asr.judge_card_laser import laser_scorer

    refs, hyps = ["the colour is red", "we can't go"], ["the color is red", "we cannot go"]
    scored, details = laser_scorer()("default", refs, hyps, langs=["en-US", "EN"])
    assert scored == [1.0, 1.0]
    assert details["lang"] == "en"


def test_compute_semdist_refuses_a_system_given_without_its_list():
    from voxjudge.asr.semdist import compute_semdist

    with pytest.raises(InputError, match="systems is a list of hypothesis lists"):
        compute_semdist("fake/hash", ["abc", "xyz", "hel"], ["abc", "xyz", "hel"], ["1", "2", "3"])
    with pytest.raises(InputError, match="2 ids for 3 utterances"):
        compute_semdist("fake/hash", ["abc", "xyz", "hel"], [["abc", "xyz", "hel"]], ["1", "2"])
    with pytest.raises(InputError, match="the embedder is a spec"):
        compute_semdist(None, ["a"], [["a"]], ["1"])


def test_a_dry_run_result_has_no_unscored_utterances():
    result = run_laser(["the cat"], ["the bat"], options=LaserOptions(dry_run=True))
    assert result.estimate is not None and result.unscored == 0


def test_compute_semdist_reads_a_generator_of_references_once():
    from voxjudge.asr.semdist import compute_semdist

    refs = (r for r in ["hello world", "good morning"])
    (sd,) = compute_semdist("fake/hash", refs, [["hello word", "good morning"]], None)
    assert sd.value(1) == 0.0 and sd.value(0) is not None


def test_numpy_int_ids_are_decimal_strings():
    np = pytest.importorskip("numpy")
    result = run_laser(["a b", "c d"], ["a b", "c x"], list(np.arange(2)))
    assert [u.id for u in result.utterances] == ["0", "1"]


def test_a_text_that_is_not_a_string_in_semdist_is_named():
    from voxjudge.asr.semdist import compute_semdist

    with pytest.raises(InputError, match=r"systems\[0\]\[1\] is None, not a text"):
        compute_semdist("fake/hash", ["a", "b"], [["a", None]], None)


def test_the_command_line_names_its_flag_for_a_setting_laser_options_refuses(capsys):
    from pathlib import Path

    from voxjudge.cli.main import main

    en = Path(__file__).resolve().parents[2] / "examples" / "asr" / "en"
    code = main(["asr", "score", "--ref", str(en / "ref.txt"), "--hyp", str(en / "sys_b.txt"), "--ids",
                 "--judge", "fake/schema", "--batch-size", "0"])  # fmt: skip
    assert code == 2
    assert "--batch-size must be a whole number of at least 1, not 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "given",
    [
        {"u1": "hello world"},  # read as its keys
        {"hello world"},  # a set: no order to pair by
    ],
)
def test_a_dict_or_a_set_is_not_a_list_of_texts(given):
    with pytest.raises(InputError, match="give a list of texts, one per utterance"):
        voxjudge.wer(given, ["hello word"])


def test_a_table_is_not_a_list_of_texts():
    np = pytest.importorskip("numpy")
    with pytest.raises(InputError, match="references is a ndarray: give a list of texts"):
        compute_metrics(np.array([["a b"], ["c d"]]), ["a b", "c d"])
    assert compute_metrics(np.array(["a b", "c d"]), ["a b", "c x"]).summary()["wer"] == 0.25


def test_compute_metrics_ids_are_strings_as_run_laser_makes_them():
    np = pytest.importorskip("numpy")
    result = compute_metrics(["a b", "c d"], ["a b", "c x"], ids=np.arange(2))
    assert [u["id"] for u in result.per_utterance()] == ["0", "1"]
    with pytest.raises(InputError, match=r"ids\[0\] is None"):
        compute_metrics(["a"], ["a"], ids=[None])


@pytest.mark.parametrize("code", ["xx", "zz-ZZ", "qq_QQ"])
def test_a_code_no_registry_has_is_refused(code):
    """--lang xx used to get the generic profile as a 'given' language; it is no language."""
    with pytest.raises(InputError, match="is not a BCP-47/ISO 639 code"):
        LaserOptions(lang=code)


@pytest.mark.parametrize(
    "code, canonical", [("sw", "sw"), ("sw-KE", "sw"), ("EN_us", "en"), ("und", "und"), ("ckb", "ckb")]
)
def test_registered_codes_pass_as_their_primary_subtag(code, canonical):
    assert LaserOptions(lang=code).lang == canonical
