from __future__ import annotations

import numpy as np
import pytest

from voxjudge.breaks import LabelSet, Similarity, parse_inline
from voxjudge.breaks.similarity import levels
from voxjudge.errors import InputError

LS = LabelSet()


def lv(text):
    return levels(parse_inline(text), LS)


REF = "a b <AP> c d <IP> e f <SB>"


@pytest.mark.parametrize(
    "hyp, metric, mode, hierarchy, expected",
    [
        (REF, "em", "typed", False, 1.0),
        ("a b <AP> c d <IP> e f", "em", "typed", False, 1.0),  # the final juncture is ignored
        ("a b <IP> c d <IP> e f <SB>", "em", "typed", False, 0.0),
        # typed: hyp {b:AP, d:IP} vs ref {b:AP, d:IP} -> 1; a wrong type is no hit
        (REF, "f1", "typed", False, 1.0),
        ("a b <IP> c d <IP> e f <SB>", "f1", "typed", False, 0.5),  # 1 hit, 2 predicted, 2 gold
        ("a b c d <IP> e f <SB>", "f1", "typed", False, 2 / 3),
        ("a <AP> b <AP> c d <IP> e f <SB>", "f1", "typed", False, 0.8),  # 2 hits of 3 predicted, 2 gold
        ("a b <IP> c d <IP> e f <SB>", "f1", "untyped", False, 1.0),
        ("a b c d e f <SB>", "f1", "untyped", False, 0.0),
        # hierarchy: IP at b against AP: levels min(2,1)=1 shared; predicted 2+2, gold 1+2 -> 2*3/7
        ("a b <IP> c d <IP> e f <SB>", "f1", "typed", True, 6 / 7),
        # per-label: AP F1 = 0 (pred none... hyp has no AP, ref has one) ; IP: 1 hit of 2 pred, 1 gold -> 2/3
        ("a b <IP> c d <IP> e f <SB>", "f1", "per-label", False, (0 + 2 / 3) / 2),
        ("a b <IP> c d <IP> e f <SB>", "f1", "per-label", True, (1.0 + 2 / 3) / 2),
    ],
)
def test_hand_computed(hyp, metric, mode, hierarchy, expected):
    sim = Similarity(metric, mode, hierarchy)
    assert sim.scores(lv(hyp), lv(REF)[None, :])[0] == pytest.approx(expected)


def test_no_boundaries_on_either_side_is_a_perfect_f1():
    for mode in ("typed", "untyped", "per-label"):
        assert Similarity("f1", mode).scores(lv("a b c <SB>"), lv("a b c <SB>")[None, :])[0] == 1.0
        assert Similarity("f1", mode).scores(lv("a b c <SB>"), lv("a <AP> b c <SB>")[None, :])[0] == 0.0


def test_matrix_against_many_references_and_names():
    refs = np.stack([lv(REF), lv("a b c d <IP> e f <SB>"), lv("a b c d e f <SB>")])
    hyps = np.stack([lv(REF), lv("a b c d e f <SB>")])
    m = Similarity("f1").matrix(hyps, refs)
    assert m.shape == (2, 3)
    assert m[0].tolist() == pytest.approx([1.0, 2 / 3, 0.0]) and m[1].tolist() == [0.0, 0.0, 1.0]
    assert Similarity("f1", "per-label", True).name == "f1-per-label-hierarchy" and Similarity("em").name == "em"


def test_per_label_breakdown():
    sim = Similarity("f1")
    out = sim.per_label(lv("a b <IP> c d <IP> e f"), lv(REF), LS)
    assert out == {"AP": 0.0, "IP": pytest.approx(2 / 3), "SB": 1.0}


def test_bad_options():
    with pytest.raises(InputError):
        Similarity("bleu")
    with pytest.raises(InputError):
        Similarity("f1", "macro")
