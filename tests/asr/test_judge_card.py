"""The judge card library: WER/CER against jiwer, every metric on the same triplets, coverage of
hypotheses a judge could not score, correlations as ``asr score --human`` computes them."""

from __future__ import annotations

import dataclasses

import jiwer
import pytest

from voxjudge.asr.judge_card import judge_card, unique_texts
from voxjudge.asr.judge_card_laser import laser_scorer
from voxjudge.asr.preference import Preference, preference_agreement
from voxjudge.asr.ratings import Rating
from voxjudge.stats import agreement

PREFS = [
    Preference("the cat sat on the mat", "the cat sat on a mat", "the bat sat on the hat", 6, 1),
    Preference("the cat sat on the mat", "a cat sat on the mat", "the cat sat on the mat mat", 0, 7),
    Preference("i like green tea", "i like green tee", "i liked green tea", 3, 3),
    Preference("we meet at noon", "we met at noon", "we meet at new", 5, 0),
]
RATINGS = [
    Rating("1", "good morning everyone", "good morning everyone", 5.0, "en", (5.0, 5.0, 5.0, 5.0)),
    Rating("2", "good morning everyone", "good mourning everyone", 3.5, "en", (3.0, 4.0, 3.0, 4.0)),
    Rating("3", "see you tomorrow", "see you", 2.0, "en", (2.0, 2.0, 1.0, 3.0)),
    Rating("4", "see you tomorrow", "sea ewe tomorrow", 1.5, "en", (1.0, 2.0, 2.0, 1.0)),
    Rating("5", "thank you very much", "thank you very much", 4.5, "en", (4.0, 5.0, 5.0, 4.0)),
]


def _fake_laser(unscored=frozenset()):
    """A LASER stand-in: 1 - jiwer WER, and None for hypotheses listed as unscored."""

    def run(spec, refs, hyps, langs=None):
        return [None if h in unscored else 1 - jiwer.wer(r, h) for r, h in zip(refs, hyps)], {"spec": spec}

    return run


def test_wer_and_cer_beside_each_judge_match_jiwer():
    card = judge_card(preferences=PREFS, judges=["x"], laser=_fake_laser(), n_resamples=200)
    got = card.summary["preferences"]["by_metric"]
    assert list(got) == ["WER", "CER", "LASER x"]
    for name, measure in (("WER", jiwer.wer), ("CER", jiwer.cer)):
        a = [measure(p.reference, p.hyp_a) for p in PREFS]
        b = [measure(p.reference, p.hyp_b) for p in PREFS]
        want = preference_agreement(PREFS, a, b, higher_is_better=False, n_resamples=200)
        # each cell gives its reference groups (what its bootstrap resampled)
        assert got[name] == [lv.as_dict() for lv in want]
        assert all(cell["groups"] >= 2 for cell in got[name])
    # 1 - WER with higher-is-better agrees exactly as WER does
    assert [lv["agree"] for lv in got["LASER x"]] == [lv["agree"] for lv in got["WER"]]
    assert card.summary["preferences"]["levels"] == {"100%": 2, "70%": 3, "all": 4}
    assert card.summary["preferences"]["human_ties"] == 1
    assert card.summary["coverage"]["LASER x"] == {"scored": 8, "total": 8}


def test_an_unscored_hypothesis_is_coverage_not_a_disagreement():
    card = judge_card(preferences=PREFS, judges=["llm"], laser=_fake_laser({"we met at noon"}), n_resamples=100)
    assert card.summary["coverage"]["LASER llm"] == {"scored": 7, "total": 8}
    assert card.unscored == 1 and card.total == 3 * 8
    unanimous = card.summary["preferences"]["by_metric"]["LASER llm"][0]
    assert (unanimous["n"], unanimous["judged"], unanimous["unscored"]) == (2, 1, 1)


def test_ratings_with_one_hypothesis_per_group_correlate_as_asr_score_human_does_with_the_raters_ceiling():
    # each rating its own group: resampling groups is resampling items, as 'asr score --human' does
    alone = [dataclasses.replace(r, group=r.id) for r in RATINGS]
    card = judge_card(
        ratings=alone,
        judges=["x"],
        laser=_fake_laser(),
        n_resamples=300,
        split_halves=50,
        methods=("pearson", "spearman", "kendall"),
    )
    cell = card.summary["ratings"]["by_subset"]["all"]
    human = [r.score for r in RATINGS]
    wer = [jiwer.wer(r.reference, r.hypothesis) for r in RATINGS]
    want = agreement([1 - w for w in wer], human, n_resamples=300)
    for m, c in zip(("pearson", "spearman", "kendall"), want):
        got = cell["by_metric"]["WER"][m]
        assert {k: got[k] for k in ("estimate", "p_value", "n")} == {
            k: c.as_dict()[k] for k in ("estimate", "p_value", "n")
        }
        assert (got["ci_low"], got["ci_high"]) == pytest.approx((c.ci_low, c.ci_high), abs=1e-12)
    assert cell["groups"] == 5
    assert cell["raters"]["splits"] == 50 and 0 < cell["raters"]["ceiling"] <= 1
    assert card.summary["ratings"]["langs"] == ["en"] and list(card.summary["ratings"]["by_subset"]) == ["all"]


def test_ratings_resample_whole_utterances_and_pair_every_metric_with_the_earlier_ones():
    from voxjudge.stats.grouped import grouped_correlations

    card = judge_card(ratings=RATINGS, judges=["x"], laser=_fake_laser(), n_resamples=300, methods=("pearson",))
    cell = card.summary["ratings"]["by_subset"]["all"]
    assert cell["groups"] == 3 and card.summary["ratings"]["bootstrap_unit"].startswith("utterance")
    pairs = [("CER", "WER"), ("LASER x", "WER"), ("LASER x", "CER")]
    assert [(d["a"], d["b"]) for d in cell["differences"]] == pairs
    # the same numbers as the stats call on the card's values, grouped by reference
    values = {m.name: [m.goodness((r.reference, r.hypothesis)) for r in RATINGS] for m in card.metrics}
    want = grouped_correlations(
        values, [r.score for r in RATINGS], [r.reference for r in RATINGS], ("pearson",), pairs=pairs, n_resamples=300
    )
    assert cell["differences"] == [d.as_dict() for d in want.differences]
    assert cell["by_metric"]["CER"]["pearson"] == want.by_metric["CER"]["pearson"].as_dict()
    # LASER here is 1 - WER: the same correlation on every resample, a difference of exactly 0
    same = cell["differences"][1]
    assert (same["difference"], same["ci_low"], same["ci_high"], same["p_value"]) == (0.0, 0.0, 0.0, 1.0)


def test_constant_scores_give_a_note_not_nan():
    flat = [Rating(str(k), "a b", "a b", float(k), None) for k in range(4)]
    card = judge_card(ratings=flat, judges=[], laser=_fake_laser(), n_resamples=50)
    note = card.summary["ratings"]["by_subset"]["all"]["by_metric"]["WER"]["note"]
    assert "all equal" in note


def test_each_unique_hypothesis_is_scored_once():
    assert len(unique_texts(PREFS, RATINGS)) == 8 + 5
    calls = []

    def counting(spec, refs, hyps):
        calls.append(len(refs))
        return [0.5] * len(refs), {}

    judge_card(preferences=PREFS + PREFS, judges=["a", "b"], laser=counting, n_resamples=10)
    assert calls == [8, 8]


def test_offline_judges_score_through_laser():
    from voxjudge.asr.laser import LaserRubric
    from voxjudge.asr.laser.judges import rules_labeler_for
    from voxjudge.asr.laser.scoring import score

    card = judge_card(preferences=PREFS, judges=["rules"], laser=laser_scorer(), n_resamples=50)
    keys = unique_texts(PREFS)
    rubric = LaserRubric.load()
    direct = score([k[0] for k in keys], [k[1] for k in keys], rubric=rubric, labeler=rules_labeler_for(rubric))
    assert [card.metrics[2].values[k] for k in keys] == [u.laser for u in direct]


def test_needs_some_human_data():
    with pytest.raises(ValueError, match="preferences, ratings, or both"):
        judge_card(judges=["x"], laser=_fake_laser())


def test_only_known_correlations():
    with pytest.raises(ValueError, match="methods must be some of"):
        judge_card(ratings=RATINGS, judges=[], laser=_fake_laser(), methods=("pearson", "tau"))


def test_records_and_coverage_keep_every_rated_hypothesis_while_the_work_is_done_once():
    """Two systems with the same output for one reference are two rated hypotheses: two records (each
    with its id, system and lang) and two in coverage, though every metric scores the texts once."""
    ratings = [*RATINGS, Rating("6", "good morning everyone", "good morning everyone", 4.0, "en")]
    sent = []

    def laser(spec, refs, hyps, langs=None):
        sent.append(len(refs))
        return _fake_laser()(spec, refs, hyps)

    systems = {"1": "a", "6": "b"}
    card = judge_card(ratings=ratings, judges=["x"], laser=laser, n_resamples=50, split_halves=10, systems=systems)
    assert sent == [len(unique_texts(ratings=ratings))] == [5]  # the work: unique texts
    records = card.records
    assert [r["id"] for r in records] == [r.id for r in ratings]
    assert {r["source"] for r in records} == {"ratings"} and [r["lang"] for r in records] == ["en"] * 6
    assert [r["system"] for r in records] == ["a", None, None, None, None, "b"]
    assert set(records[0]) == {
        "source",
        "id",
        "system",
        "lang",
        "reference",
        "hypothesis",
        "human",
        "WER",
        "CER",
        "LASER x",
    }
    assert [r["human"] for r in records] == [r.score for r in ratings]  # what the card compared with
    assert all(c == {"scored": 6, "total": 6} for c in card.summary["coverage"].values())
    assert card.summary["ratings"]["items"] == card.total // len(card.metrics) == 6


def test_preference_records_are_each_side_of_each_triplet():
    card = judge_card(preferences=PREFS, judges=["x"], laser=_fake_laser(), n_resamples=50)
    records = card.records
    assert len(records) == 2 * len(PREFS) == card.summary["coverage"]["WER"]["total"]
    assert [(r["triplet"], r["side"]) for r in records[:2]] == [(1, "a"), (1, "b")]
    p = PREFS[0]
    assert [(r["votes"], r["votes_other"]) for r in records[:2]] == [(p.votes_a, p.votes_b), (p.votes_b, p.votes_a)]
    assert "id" not in records[0]  # no column nobody has


def test_metrics_name_the_figure_the_card_shows():
    """The card correlates 1 - WER (Metric.goodness): its label says so, as asr score --human does."""
    card = judge_card(ratings=RATINGS, judges=["x"], laser=_fake_laser(), n_resamples=50, split_halves=10)
    labels = {m["name"]: m["label"] for m in card.summary["metrics"]}
    assert labels == {"WER": "1 - WER", "CER": "1 - CER", "LASER x": "LASER x"}
