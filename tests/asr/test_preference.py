"""Agreement with human preferences: hand-computed cases, the certitude edges, the grouped bootstrap
against a brute-force oracle, and the readers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from voxjudge.asr.preference import Preference, preference_agreement, read_preferences
from voxjudge.errors import InputError

SHARED = Path("/work/shared/data")

# (reference, votes A, votes B, metric A, metric B) with an error rate (lower is better); the comment
# says what the metric does and at which certitude the triplet counts.
CASES = [
    ("r1", 7, 0, 0.1, 0.2),  # unanimous A, metric prefers A: agree
    ("r1", 0, 8, 0.3, 0.3),  # unanimous B, metric tie: disagree
    ("r2", 7, 3, 0.1, 0.5),  # exactly 70% A, metric A: agree (counts at 70%)
    ("r2", 6, 4, 0.1, 0.2),  # 60% A, metric A: agree (only in "all")
    ("r3", 4, 4, 0.1, 0.2),  # people split evenly: disagree (only in "all")
    ("r3", 2, 5, 0.4, 0.1),  # 71% B, metric B: agree
    ("r4", 5, 2, None, 0.1),  # 71% A, metric could not score A: unscored
    ("r5", 69, 31, 0.1, 0.2),  # 69% A, just under 70%: agree (only in "all")
]


def _prefs():
    return [Preference(r, f"{r}a{k}", f"{r}b{k}", va, vb) for k, (r, va, vb, _, _) in enumerate(CASES)]


def _levels(result):
    return {lv.level: lv for lv in result}


def test_hand_computed_agreement_at_each_certitude():
    got = _levels(preference_agreement(_prefs(), [c[3] for c in CASES], [c[4] for c in CASES], higher_is_better=False))
    assert (got["100%"].n, got["100%"].judged, got["100%"].agree, got["100%"].agreement) == (2, 2, 1, 0.5)
    assert got["100%"].metric_ties == 1 and got["100%"].human_ties == 0
    # 70%: rows 1, 2, 3 (exactly 70%), 6 and 7 (5 of 7); row 7 is unscored, not a disagreement
    assert (got["70%"].n, got["70%"].judged, got["70%"].agree, got["70%"].agreement) == (5, 4, 3, 0.75)
    assert got["70%"].unscored == 1
    assert (got["all"].n, got["all"].judged, got["all"].agree) == (8, 7, 5)
    assert got["all"].agreement == pytest.approx(5 / 7)
    assert got["all"].human_ties == 1 and got["all"].metric_ties == 1


def test_higher_is_better_flips_every_untied_decision():
    a, b = [c[3] for c in CASES], [c[4] for c in CASES]
    lower = _levels(preference_agreement(_prefs(), a, b, higher_is_better=False))
    higher = _levels(preference_agreement(_prefs(), a, b, higher_is_better=True))
    # untied, judged, human-decided triplets: all flip; ties stay disagreements either way
    assert higher["all"].agree == 7 - 5 - 2  # 7 judged, 5 agreed, 2 ties (one metric, one human)
    negated = [None if x is None else -x for x in a], [-x for x in b]
    same = _levels(preference_agreement(_prefs(), *negated, higher_is_better=True))
    assert [lv.as_dict() for lv in same.values()] == [lv.as_dict() for lv in lower.values()]


def test_a_single_choice_is_unanimous():
    prefs = [Preference("r", "x", "y", 1, 0), Preference("s", "x", "y", 0, 1)]
    got = _levels(preference_agreement(prefs, [1, 1], [0, 0], higher_is_better=True))
    assert got["100%"].n == got["all"].n == 2 and got["100%"].agree == 1


def test_nothing_judged_has_no_agreement_and_no_interval():
    prefs = [Preference("r", "x", "y", 3, 0)]
    (lv, *_) = preference_agreement(prefs, [None], [0.5], higher_is_better=False)
    assert lv.agreement is None and lv.ci_low is None and lv.unscored == 1


def _oracle_ci(prefs, a, b, lowest, n_resamples, seed, confidence=0.95):
    """Brute force: draw reference groups with replacement, recount every drawn triplet. Triplets
    of fewer than two references at the level have no interval: every resample redraws them."""
    groups = list(dict.fromkeys(p.reference for p in prefs))
    at_level = {p.reference for p, x, y in zip(prefs, a, b) if p.certitude >= lowest and None not in (x, y)}
    if len(at_level) < 2:
        return (None, None)
    draws = np.random.default_rng(seed).integers(0, len(groups), size=(n_resamples, len(groups)))
    stats = []
    for row in draws:
        hits = judged = 0
        for g in row:
            for p, x, y in zip(prefs, a, b):
                if p.reference != groups[g] or p.certitude < lowest or x is None or y is None:
                    continue
                judged += 1
                metric = (x < y) - (x > y)  # lower is better: +1 prefers A
                hits += p.human != 0 and metric == p.human
        if judged:
            stats.append(hits / judged)
    alpha = (1 - confidence) / 2
    return tuple(np.quantile(stats, [alpha, 1 - alpha]))


def test_bootstrap_resamples_reference_groups():
    prefs = _prefs()
    a, b = [c[3] for c in CASES], [c[4] for c in CASES]
    got = _levels(preference_agreement(prefs, a, b, higher_is_better=False, n_resamples=300, seed=7))
    from fractions import Fraction

    for name, lowest in (("100%", Fraction(1)), ("70%", Fraction(7, 10)), ("all", Fraction(0))):
        low, high = _oracle_ci(prefs, a, b, lowest, 300, 7)
        if low is None:
            assert (got[name].ci_low, got[name].ci_high, got[name].groups) == (None, None, 1)
        else:
            assert (got[name].ci_low, got[name].ci_high) == pytest.approx((low, high), abs=1e-12)


def test_one_reference_group_has_no_interval():
    # every triplet shares one reference: each resample draws that group, so the percentiles would be
    # the point itself, a zero-width "interval" that says nothing: there is none
    prefs = [Preference("same", f"a{k}", f"b{k}", 5, 0) for k in range(6)]
    (lv, *_) = preference_agreement(prefs, [0, 0, 0, 1, 1, 1], [1] * 6, higher_is_better=False, n_resamples=200)
    assert lv.agreement == 0.5 and (lv.ci_low, lv.ci_high, lv.groups) == (None, None, 1)


def test_same_seed_same_interval_and_lengths_checked():
    prefs = _prefs()
    a, b = [c[3] for c in CASES], [c[4] for c in CASES]
    one = preference_agreement(prefs, a, b, higher_is_better=False, n_resamples=500, seed=3)
    two = preference_agreement(prefs, a, b, higher_is_better=False, n_resamples=500, seed=3)
    assert one == two
    with pytest.raises(ValueError, match="metric values"):
        preference_agreement(prefs, a[:-1], b, higher_is_better=False)


# ---- readers ----


def test_reads_the_hats_layout_with_and_without_header(tmp_path):
    rows = "le chat\tle chas\t3\tle cha\t4\nun deux\tun de\t0\tun deu\t7\n"
    with_header = tmp_path / "h.tsv"
    with_header.write_text("reference\thyp_a\tvotes_a\thyp_b\tvotes_b\n" + rows, encoding="utf-8")
    bare = tmp_path / "bare.tsv"
    bare.write_text(rows, encoding="utf-8")
    for path in (with_header, bare):
        prefs = read_preferences(path)
        assert [(p.reference, p.hyp_a, p.votes_a, p.hyp_b, p.votes_b) for p in prefs] == [
            ("le chat", "le chas", 3, "le cha", 4),
            ("un deux", "un de", 0, "un deu", 7),
        ]
        assert prefs[1].certitude == 1 and prefs[0].human == -1


def test_choice_rows_pool_into_votes_in_either_order(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(
        "ref,hyp_a,hyp_b,choice\nr,x,y,A\nr,x,y,a\nr,y,x,B\nr,y,x,a\ns,p,q,b\n",
        encoding="utf-8",
    )
    prefs = read_preferences(path)
    # r: A(x) twice, B in the swapped row is x again, "a" in the swapped row is y: 3 for x, 1 for y
    assert [(p.reference, p.hyp_a, p.hyp_b, p.votes_a, p.votes_b) for p in prefs] == [
        ("r", "x", "y", 3, 1),
        ("s", "p", "q", 0, 1),
    ]


def test_jsonl_and_group_column(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"reference": "r1", "hyp_a": "a", "hyp_b": "b", "votes_a": 2, "votes_b": 1, "utt": "u1"}\n'
        '{"reference": "r2", "hyp_a": "a", "hyp_b": "b", "votes_a": 0, "votes_b": 3, "utt": "u1"}\n',
        encoding="utf-8",
    )
    prefs = read_preferences(path, group_column="utt")
    assert [p.group for p in prefs] == ["u1", "u1"]
    assert [p.group for p in read_preferences(path)] == ["r1", "r2"]


@pytest.mark.parametrize(
    "content, message",
    [
        ("ref,hyp_a,hyp_b,choice\nr,x,y,tie\n", "c.csv:2: choice must be a or b (got 'tie')"),
        ("ref,hyp_a,hyp_b\nr,x,y\n", "need columns votes_a and votes_b, or choice"),
        ("reference,hyp_a,votes_a,hyp_b,votes_b\nr,x,0,y,0\n", "c.csv:2: no votes for either hypothesis"),
        ("reference,hyp_a,votes_a,hyp_b,votes_b\nr,x,2.5,y,1\n", "c.csv:2: votes_a must be a whole number"),
        ("reference,hyp_a,votes_a,hyp_b,votes_b\n", "no preferences found"),
    ],
)
def test_bad_files_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "c.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_preferences(path)


@pytest.mark.skipif(not (SHARED / "hats_pairs_train.tsv").exists(), reason="shared data not on this machine")
def test_reads_the_hats_training_file():
    prefs = read_preferences(SHARED / "hats_pairs_train.tsv")
    # counted independently with awk over the file: 178 unanimous, 417 at >= 70%, 3 even splits
    assert len(prefs) == 499 and len({p.group for p in prefs}) == 357
    assert sum(p.certitude == 1 for p in prefs) == 178
    assert sum(p.certitude >= 0.7 for p in prefs) == 417
    assert sum(p.human == 0 for p in prefs) == 3


def test_agreement_difference_by_hand():
    from voxjudge.asr.preference import agreement_differences

    # reference r1: people unanimous for A; metric "good" prefers A (agrees), "bad" ties (disagrees).
    # reference r2: people for B 6 to 1; both metrics prefer B. Point: 1 - 1/2 = 1/2 over all;
    # unanimous only r1: 1 - 0. A resample draws two references: r1 r1 -> 1, r2 r2 -> 0, mixed -> 1/2,
    # so the 95% interval over all triplets is [0, 1] and a quarter of the resamples sit at 0.
    prefs = [Preference("r1", "a", "b", 7, 0), Preference("r2", "c", "d", 1, 6)]
    good = ([0.1, 0.9], [0.5, 0.2], False)  # error rates: lower is better
    bad = ([0.3, 0.9], [0.3, 0.2], False)
    levels = agreement_differences(prefs, ("good", good), ("bad", bad), n_resamples=4000, seed=0)
    unanimous, seventy, everything = levels
    assert (unanimous.judged, unanimous.a_agreement, unanimous.b_agreement, unanimous.difference) == (1, 1.0, 0.0, 1.0)
    # only r1 is unanimous: one group, so no interval and no p-value (resampling it redraws it)
    assert (unanimous.ci_low, unanimous.ci_high, unanimous.p_value, unanimous.groups) == (None, None, None, 1)
    assert (seventy.judged, seventy.difference) == (2, 0.5)
    assert (everything.a, everything.b, everything.level) == ("good", "bad", "all")
    assert (everything.ci_low, everything.ci_high) == (0.0, 1.0)
    assert everything.p_value == pytest.approx(0.5, abs=0.05)  # 2 x P(r2 drawn twice) = 2 x 1/4


def test_agreement_difference_uses_the_triplets_both_metrics_scored():
    from voxjudge.asr.preference import agreement_differences

    prefs = [Preference("r1", "a", "b", 7, 0), Preference("r2", "c", "d", 0, 7), Preference("r3", "e", "f", 5, 2)]
    full = ([0.0, 1.0, 0.0], [1.0, 0.0, 1.0], False)  # agrees on all three
    holes = ([0.0, None, 1.0], [1.0, 0.0, 0.0], False)  # r2 unscored; disagrees on r3
    (_, _, everything) = agreement_differences(prefs, ("full", full), ("holes", holes), n_resamples=200)
    assert (everything.judged, everything.a_agreement, everything.b_agreement) == (2, 1.0, 0.5)
    assert everything.difference == 0.5 and everything.ci_low <= 0.5 <= everything.ci_high
