"""Pairs identical after normalization are counted without an alignment: every number must be the
one jiwer 4.0 (the oracle) gives when it aligns them, per utterance and in corpus totals, in input
order, for every unit and splitting."""

from __future__ import annotations

import jiwer
from hypothesis import given
from hypothesis import strategies as st

from voxjudge.asr import Tokenizer, align, compute_metrics, count_errors, total
from voxjudge.asr.counting import CHUNK

WORDS = ["a", "b", "the", "cat", "सफ़र", "सफर", "e\u0301", "é", "猫", "A"]
SEPARATORS = [" ", "  ", "\t", "\u00a0"]
text = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=8).map(
    lambda parts: "".join(w + s for w, s in parts).strip(" ")
)
# Each pair is identical, identical up to case (identical after the lower-casing normalizer), or free.
pair = st.tuples(text, text, st.sampled_from(["same", "case", "free"])).map(
    lambda t: (t[0], t[0] if t[2] == "same" else (t[0].upper() if t[2] == "case" else t[1]))
)
corpus = st.lists(pair, min_size=1, max_size=10).map(lambda ps: ([r for r, _ in ps], [h for _, h in ps]))


def _counts(oracle) -> tuple[int, int, int, int]:
    return oracle.hits, oracle.substitutions, oracle.deletions, oracle.insertions


@given(corpus, st.sampled_from([None, str.lower]))
def test_identical_pairs_count_as_jiwer_counts_them(pair, norm):
    refs, hyps = pair
    n_refs = [norm(r) for r in refs] if norm else refs
    n_hyps = [norm(h) for h in hyps] if norm else hyps
    collapse = lambda t: " ".join(t.split())  # noqa: E731 - the unicode splitting's character string
    result = compute_metrics(refs, hyps, normalizer=norm)
    totals = compute_metrics(refs, hyps, normalizer=norm, per_utterance=False)
    for k, (r, h) in enumerate(zip(n_refs, n_hyps)):
        assert tuple(result.word[k]) == _counts(jiwer.process_words(collapse(r), collapse(h)))
        assert tuple(result.char[k]) == _counts(jiwer.process_characters(collapse(r), collapse(h)))
    assert totals.corpus_word == total(result.word)
    assert totals.corpus_char == total(result.char)


@given(corpus, st.sampled_from([None, str.lower]), st.sampled_from(["word", "char", "grapheme"]))
def test_identical_pairs_count_as_their_alignment_in_every_unit_and_split(pair, norm, unit):
    # The oracle aligns every pair on its own (align(): no shortcut, integer-keyed tokens).
    refs, hyps = pair
    for split in ("unicode", "jiwer"):
        rows = count_errors(refs, hyps, Tokenizer(unit, split), norm)
        expected = [align(r, h, unit=unit, split=split, normalizer=norm).counts for r, h in zip(refs, hyps)]
        assert rows == expected


def test_identical_pairs_keep_their_place_across_chunks():
    # Identical and differing pairs interleaved over several chunks: each row is its own pair's.
    refs = [f"w{k} x y" for k in range(2 * CHUNK + 11)]
    hyps = [r if k % 3 else r + " z" for k, r in enumerate(refs)]
    rows = compute_metrics(refs, hyps).word
    assert [tuple(c) for c in rows] == [(3, 0, 0, 0) if k % 3 else (3, 0, 0, 1) for k in range(len(refs))]
    assert compute_metrics(refs, hyps, per_utterance=False).corpus_word == total(rows)


def test_all_pairs_identical_and_empty_ones():
    refs = ["a b", "", "c"]
    result = compute_metrics(refs, list(refs))
    assert [tuple(c) for c in result.word] == [(2, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)]
    assert [tuple(c) for c in result.char] == [(3, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)]
    assert result.summary()["wer"] == 0.0 == jiwer.wer(["a b", "c"], ["a b", "c"])
