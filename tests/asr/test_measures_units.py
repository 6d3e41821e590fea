"""Only the units asked for are counted, and corpus totals without per-utterance rows are the
same numbers: differential against jiwer 4.0 (the oracle) and against the per-utterance path."""

from __future__ import annotations

import jiwer
import pytest
from hypothesis import given
from hypothesis import strategies as st

import voxjudge
from voxjudge.asr import compute_metrics, total

WORDS = ["a", "b", "c", "the", "cat", "सफ़र", "सफर", "e\u0301", "é", "猫"]
sentence = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
corpus = st.integers(min_value=1, max_value=8).flatmap(
    lambda n: st.tuples(st.lists(sentence, min_size=n, max_size=n), st.lists(sentence, min_size=n, max_size=n))
)


def _same(counts, oracle) -> None:
    assert counts.counts() == {
        "hits": oracle.hits,
        "substitutions": oracle.substitutions,
        "deletions": oracle.deletions,
        "insertions": oracle.insertions,
    }


@given(corpus)
def test_corpus_totals_without_rows_equal_jiwer_and_the_rows(pair):
    refs, hyps = pair
    rows = compute_metrics(refs, hyps)
    totals = compute_metrics(refs, hyps, per_utterance=False)
    assert totals.word is None and totals.char is None
    _same(totals.corpus_word, jiwer.process_words(refs, hyps))
    _same(totals.corpus_char, jiwer.process_characters(refs, hyps))
    assert totals.corpus_word == total(rows.word) and totals.corpus_char == total(rows.char)
    assert totals.summary() == rows.summary()


@given(corpus)
def test_cer_from_the_edit_distance_alone_equals_jiwer(pair):
    refs, hyps = pair
    result = compute_metrics(refs, hyps, per_utterance=False, char_counts=False)
    assert result.cer == jiwer.cer(refs, hyps)
    assert result.wer == jiwer.wer(refs, hyps)
    summary = result.summary()
    assert "char_counts" not in summary and summary["ref_chars"] == sum(map(len, refs))
    with pytest.raises(ValueError, match="not split"):
        result.corpus_char  # noqa: B018 - the counts were not computed, so asking for them is an error


def test_words_only_count_no_characters_and_say_so():
    result = compute_metrics(["a b c", "d e"], ["a x c", "d"], units=("word",))
    assert result.char is None and not result.has_chars
    summary = result.summary()
    assert "cer" not in summary and "char_counts" not in summary and "cer_unit" not in summary
    assert summary["wer"] == jiwer.wer(["a b c", "d e"], ["a x c", "d"])
    assert set(result.per_utterance()[0]) == {
        "id", "wer", "mer", "wil", "wip", "hits", "substitutions", "deletions", "insertions", "ref_words"
    }  # fmt: skip
    with pytest.raises(ValueError, match="char units were not counted"):
        result.corpus_char  # noqa: B018


def test_characters_only_by_grapheme():
    result = compute_metrics(["सफ़र अच्छा"], ["सफर अच्छा"], units=("char",), char_unit="grapheme")
    summary = result.summary()
    assert "wer" not in summary and summary["cer_unit"] == "grapheme"
    assert summary["char_counts"] == {"hits": 5, "substitutions": 1, "deletions": 0, "insertions": 0}
    row = result.per_utterance()[0]
    assert row["cer"] == summary["cer"] == voxjudge.cer(["सफ़र अच्छा"], ["सफर अच्छा"], unit="grapheme")
    assert (row["ref_chars"], row["char_substitutions"]) == (6, 1)
    assert result.by_group(["s"])["s"]["char_hits"] == 5


def test_unknown_units_are_refused():
    with pytest.raises(ValueError, match="units must be"):
        compute_metrics(["a"], ["a"], units=("grapheme",))
    with pytest.raises(ValueError, match="units must be"):
        compute_metrics(["a"], ["a"], units=())


def test_rows_are_refused_when_only_totals_were_kept():
    result = compute_metrics(["a"], ["b"], per_utterance=False)
    with pytest.raises(ValueError, match="per_utterance=True"):
        result.per_utterance()


def test_the_other_whitespace_is_every_separator_of_str_split_but_the_space():
    import sys

    from voxjudge.asr.units import OTHER_WHITESPACE

    separators = [c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace()]
    assert sorted(OTHER_WHITESPACE) == [c for c in separators if c != " "]


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["a b", "", "c"], True),
        (["a  b"], False),
        (["a b "], False),
        ([" a"], False),
        (["a", " b"], False),
        (["a\tb"], False),
        (["a\u3000b"], False),
        (["a\xa0b"], False),
        (["सफ़र e\u0301"], True),
    ],
)
def test_single_spaced_texts_are_their_own_character_strings(texts, expected):
    from voxjudge.asr.units import single_spaced

    assert single_spaced(texts) is expected
    assert all(" ".join(t.split()) == t for t in texts) is expected


def test_chunks_taken_as_they_are_and_chunks_joined_give_jiwers_numbers():
    # 1,200 pairs: the first chunk single-spaced (its texts are their own character strings), a
    # tab and a doubled space in the others (their words are joined again).
    import random

    rng = random.Random(3)
    refs = [" ".join(rng.choices(WORDS, k=rng.randint(0, 9))) for _ in range(1200)]
    hyps = [" ".join(rng.choices(WORDS, k=rng.randint(0, 9))) for _ in range(1200)]
    refs[700], hyps[1100] = refs[700] + "\ta", "a  " + hyps[1100]
    collapse = [" ".join(t.split()) for t in refs], [" ".join(t.split()) for t in hyps]
    for per_utterance in (True, False):
        result = compute_metrics(refs, hyps, per_utterance=per_utterance)
        _same(result.corpus_word, jiwer.process_words(*collapse))
        _same(result.corpus_char, jiwer.process_characters(*collapse))
        assert result.cer == jiwer.cer(*collapse)
    totals = compute_metrics(refs, hyps, per_utterance=False, char_counts=False)
    assert totals.cer == jiwer.cer(*collapse)
