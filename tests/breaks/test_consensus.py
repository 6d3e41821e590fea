"""The consensus metric: hand-computed cases, an independent plain-Python oracle, invariance to
the order of references, and equality with F1 where the two definitions coincide."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxjudge.breaks import Annotation, LabelSet, ReferenceTable, Similarity, parse_inline, score_hypotheses
from voxjudge.errors import InputError

LS = LabelSet()


def table_of(*refs: tuple[str, int]) -> ReferenceTable:
    t = ReferenceTable()
    for text, count in refs:
        t.add(parse_inline(text), count=count)
    return t


def consensus(table, hyp: str, mode="typed", hierarchy=False):
    rec = score_hypotheses(table, [("h", parse_inline(hyp))], Similarity("consensus", mode, hierarchy))[0]
    assert rec.error is None
    return rec.score, rec.scores[0].agreement.tolist()


def test_unanimous_references():
    t = table_of(("a b <IP> c d <SB>", 3))
    assert consensus(t, "a b <IP> c d <SB>") == (1.0, [1.0, 1.0, 1.0])
    score, agreement = consensus(t, "a b c d <SB>")  # misses the IP every reference has
    assert agreement == [1.0, 0.0, 1.0] and score == pytest.approx(2 / 3)


def test_split_references_give_half_credit():
    t = table_of(("a b <IP> c d <SB>", 1), ("a <AP> b c d <SB>", 1))
    score, agreement = consensus(t, "a b <IP> c d <SB>")
    assert agreement == [0.5, 0.5, 1.0] and score == pytest.approx(2 / 3)
    # a phrasing no reference gives, but each of its decisions is backed by one of them
    score, agreement = consensus(t, "a <AP> b <IP> c d <SB>")
    assert agreement == [0.5, 0.5, 1.0]


def test_counts_weight_the_references():
    t = table_of(("a b <IP> c d <SB>", 3), ("a <AP> b c d <SB>", 1))
    score, agreement = consensus(t, "a b <IP> c d <SB>")
    assert agreement == [0.75, 0.75, 1.0] and score == pytest.approx(2.5 / 3)
    assert consensus(t, "a <AP> b c d <SB>")[1] == [0.25, 0.25, 1.0]
    # three separate adds of one phrasing are the same as one add with count 3
    split = table_of(*[("a b <IP> c d <SB>", 1)] * 3, ("a <AP> b c d <SB>", 1))
    assert consensus(split, "a b <IP> c d <SB>") == (score, agreement)


CONTESTED = table_of(("a b <IP> c d <SB>", 2), ("a b <AP> c d <SB>", 1), ("a b c d <SB>", 1))


@pytest.mark.parametrize(
    "hyp, mode, hierarchy, at_b",
    [
        ("a b <IP> c d", "typed", False, 2 / 4),
        ("a b <AP> c d", "typed", False, 1 / 4),
        ("a b c d", "typed", False, 1 / 4),
        # untyped: any boundary agrees with IP and AP
        ("a b <AP> c d", "untyped", False, 3 / 4),
        ("a b c d", "untyped", False, 1 / 4),
        # hierarchy: AP against IP is 2*min(1,2)/(1+2) = 2/3, against AP 1, against none 0
        ("a b <AP> c d", "typed", True, (2 * 2 / 3 + 1 + 0) / 4),
        ("a b <IP> c d", "typed", True, (2 * 1 + 2 / 3 + 0) / 4),
    ],
)
def test_contested_juncture(hyp, mode, hierarchy, at_b):
    score, agreement = consensus(CONTESTED, hyp, mode, hierarchy)
    assert agreement[0] == 1.0 and agreement[2] == 1.0
    assert agreement[1] == pytest.approx(at_b)
    assert score == pytest.approx((2 + at_b) / 3)
    assert Similarity("consensus", mode, hierarchy).name == "consensus-" + mode + ("-hierarchy" if hierarchy else "")


def test_final_juncture_is_ignored_and_single_words_score_one():
    t = table_of(("a b <IP> c <SB>", 1), ("x <SB>", 1))
    assert consensus(t, "a b <IP> c <IP>") == consensus(t, "a b <IP> c <SB>") == (1.0, [1.0, 1.0])
    assert consensus(t, "x") == (1.0, [])


def test_consensus_is_not_a_pairwise_similarity_and_has_no_per_label_variant():
    with pytest.raises(InputError, match="per-label is an F1 variant only"):
        Similarity("consensus", "per-label")
    with pytest.raises(ValueError, match="reference distribution"):
        Similarity("consensus").pairwise(np.zeros((1, 2)), np.zeros((1, 2)))


# ---- independent oracle and properties ---------------------------------------------------------

MODES = [("typed", False), ("untyped", False), ("typed", True)]


def one_juncture(h: int, r: int, mode: str, hierarchy: bool) -> float:
    """Agreement at one juncture, written out case by case (not from the library's kernel)."""
    if mode == "untyped":
        return 1.0 if (h > 0) == (r > 0) else 0.0
    if hierarchy:
        return 1.0 if h == r == 0 else 2 * min(h, r) / (h + r)
    return 1.0 if h == r else 0.0


def oracle(hyp: list[int], refs: list[tuple[list[int], int]], mode: str, hierarchy: bool) -> float:
    """Count-weighted mean over references of the mean per-juncture agreement with each."""
    if not hyp:
        return 1.0
    total = sum(c for _, c in refs)
    per_ref = [sum(one_juncture(h, r, mode, hierarchy) for h, r in zip(hyp, ref)) / len(hyp) for ref, _ in refs]
    return sum(c * a for (_, c), a in zip(refs, per_ref)) / total


def annotation(words, levels):
    return Annotation(tuple(words), tuple(LS.labels[v] for v in levels) + ("SB",))


texts = st.integers(1, 7).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 2), min_size=n - 1, max_size=n - 1),  # hypothesis levels
        st.lists(
            st.tuples(st.lists(st.integers(0, 2), min_size=n - 1, max_size=n - 1), st.integers(1, 5)),
            min_size=1,
            max_size=6,
        ),
        st.sampled_from(MODES),
        st.randoms(use_true_random=False),
    )
)


@given(texts)
def test_matches_oracle_and_does_not_depend_on_reference_order(case):
    hyp, refs, (mode, hierarchy), rnd = case
    words = [f"w{k}" for k in range(len(hyp) + 1)]
    sim = Similarity("consensus", mode, hierarchy)
    scores = []
    for _ in range(2):
        t = ReferenceTable()
        for levels, count in refs:
            t.add(annotation(words, levels), count=count)
        rec = score_hypotheses(t, [("h", annotation(words, hyp))], sim)[0]
        scores.append((rec.score, rec.scores[0].agreement.tolist()))
        rnd.shuffle(refs)
    assert scores[0][0] == pytest.approx(oracle(hyp, refs, mode, hierarchy), abs=1e-12)
    assert 0.0 <= scores[0][0] <= 1.0
    assert scores[0][1] == pytest.approx(scores[1][1], abs=1e-12) and scores[0][0] == pytest.approx(scores[1][0])


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=8), st.sampled_from(MODES))
def test_one_reference_of_count_one_is_the_mean_of_per_juncture_f1(pairs, mode_h):
    """With one reference, the agreement at a juncture is F1 on that juncture alone; on a text with
    one compared juncture (two words) the consensus score *is* the F1 score."""
    mode, hierarchy = mode_h
    hyp, ref = [h for h, _ in pairs], [r for _, r in pairs]
    f1 = Similarity("f1", mode, hierarchy)
    per_juncture = [f1.scores(np.array([h]), np.array([[r]]))[0] for h, r in pairs]
    words = [f"w{k}" for k in range(len(pairs) + 1)]
    t = ReferenceTable()
    t.add(annotation(words, ref))
    rec = score_hypotheses(t, [("h", annotation(words, hyp))], [Similarity("consensus", mode, hierarchy), f1])[0]
    assert rec.scores[0].agreement.tolist() == pytest.approx(per_juncture)
    assert rec.score == pytest.approx(np.mean(per_juncture))
    if len(pairs) == 1:
        assert rec.score == pytest.approx(rec.scores[1].score)


def test_many_texts_at_once_equal_one_at_a_time():
    """Padding to a common width (texts of different lengths scored together) changes nothing."""
    rng = random.Random(3)
    t, hyps = ReferenceTable(), []
    for k in range(30):
        words = [f"t{k}w{i}" for i in range(rng.randint(1, 9))]
        for _ in range(rng.randint(1, 4)):
            t.add(annotation(words, [rng.choice([0, 0, 1, 2]) for _ in words[1:]]), count=rng.randint(1, 3))
        hyps.append((f"h{k}", annotation(words, [rng.choice([0, 0, 1, 2]) for _ in words[1:]])))
    sim = Similarity("consensus", "typed", True)
    together = score_hypotheses(t, hyps, sim)
    for rec, hyp in zip(together, hyps):
        alone = score_hypotheses(t, [hyp], sim)[0]
        assert rec.score == pytest.approx(alone.score, abs=1e-12)
        assert rec.scores[0].agreement.tolist() == pytest.approx(alone.scores[0].agreement.tolist())
