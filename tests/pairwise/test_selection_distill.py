"""Tournaments, Hit@k, confidence filters, curriculum, SFT export, rewards, bootstrap, weights."""

from __future__ import annotations

import asyncio
import os

import numpy as np
import pytest

from voxjudge.errors import InputError
from voxjudge.pairwise import (
    CandidateSet,
    Pair,
    Rubric,
    build_sft,
    compare_judges,
    confident_winner,
    dimension_rewards,
    group_advantages,
    hit_rates,
    select_best,
    select_weights,
    span_local_advantages,
    verdict_reward,
)
from voxjudge.pairwise.judges import SlotJudgment
from voxjudge.stats import resample_chunks

CORE = Rubric.default().select(["C1", "C2", "C3", "C4"])


class QualityJudge:
    """Scores each clip by a fixed quality table (per clip path), identical in every sample."""

    name, mode = "quality", "coupled"

    def __init__(self, quality):
        self.quality = quality

    async def judge(self, pair, first, samples):
        qa, qb = self.quality[str(pair.audio_a)], self.quality[str(pair.audio_b)]
        s1, s2 = (qa, qb) if first == "A" else (qb, qa)
        return [SlotJudgment({d: s1 for d in CORE.ids}, {d: s2 for d in CORE.ids}) for _ in range(samples)]


def test_round_robin_winner_and_hit_at_k():
    q = {"c0": 5.0, "c1": 9.0, "c2": 7.0, "c3": 1.0}
    sets = [
        CandidateSet("s1", "t", ("c0", "c1", "c2", "c3"), human_topk=(1, 2, 0)),
        CandidateSet("s2", "t", ("c0", "c1", "c2", "c3"), human_topk=(2, 1, 0)),
        CandidateSet("s3", "t", ("c0", "c2", "c3")),
    ]
    selections, records = asyncio.run(select_best(sets, QualityJudge(q), CORE, samples=2))
    assert [s.winner for s in selections] == [1, 1, 1]
    assert selections[0].wins == [1, 3, 2, 0] and selections[0].comparisons == 6
    assert len(records) == (6 + 6 + 3) * 2
    rates = hit_rates(selections, sets)
    assert rates["n_rated"] == 2 and rates["hit@1"] == 0.5 and rates["hit@2"] == 1.0
    assert rates["random@1"] == 0.25 and rates["random@3"] == 0.75


def test_tournament_ties_break_by_margin_then_order():
    q = {"a": 5.0, "b": 5.0, "c": 5.0}
    selections, _ = asyncio.run(select_best([CandidateSet("s", "t", ("a", "b", "c"))], QualityJudge(q), CORE, 2))
    assert selections[0].winner == 0 and selections[0].wins == [0, 0, 0]


@pytest.mark.parametrize(
    "votes, rule, expected",
    [
        (["A", "A", "A", "A"], "4-0", "A"),
        (["A", "A", "A", "B"], "4-0", None),
        (["A", "A", "A", "B"], "3-1", "A"),
        (["B", "B", "tie", "B"], "3-1", "B"),
        (["A", "A", "A", None], "3-1", None),
        (["A", "A", "A", None], "3+abstain", "A"),
        (["A", "A", "B", "B"], "3+abstain", None),
        (["tie", "tie", "tie", "tie"], "3+abstain", None),
        ([None, None, None, None], "3+abstain", None),
    ],
)
def test_confidence_filters(votes, rule, expected):
    assert confident_winner(votes, rule) == expected


def test_unknown_filter():
    with pytest.raises(InputError):
        confident_winner(["A"], "5-0")


def _records(pid, votes_by_dim):
    """Teacher records whose per-dimension verdicts are given (one entry per judgment)."""
    n = len(next(iter(votes_by_dim.values())))
    out = []
    for k in range(n):
        scores = {}
        for d, votes in votes_by_dim.items():
            v = votes[k]
            if v is not None:
                scores[d] = {"A": 8.0 if v == "A" else 4.0, "B": 8.0 if v == "B" else 4.0}
        out.append(
            {
                "pair_id": pid,
                "first": "A" if k % 2 == 0 else "B",
                "sample": k // 2,
                "scores": scores,
                "raw": {},
                "abstained": [d for d in CORE.ids if d not in scores],
                "rationale": {d: f"{d} why" for d in CORE.ids},
                "verdict": None,
            }
        )
    return out


def test_sft_export_filters_balances_and_orders():
    pairs = [
        Pair("p1", "t1", "a1.wav", "b1.wav", system_a="human", system_b="tts1"),
        Pair("p2", "t2", "a2.wav", "b2.wav", system_a="tts1", system_b="tts2"),
        Pair("p3", "t3", "a3.wav", "b3.wav", system_a="tts1", system_b="tts1"),
        Pair("p4", "t4", "a4.wav", "b4.wav", system_a="tts2", system_b="tts1"),
    ]
    unanimous = {d: ["A"] * 4 for d in CORE.ids}
    records = (
        _records("p1", unanimous)
        + _records("p2", {d: ["B"] * 4 for d in CORE.ids})
        + _records("p3", unanimous)
        + _records("p4", {d: ["A", "B", "A", "B"] for d in CORE.ids})
    )
    examples, report = build_sft(records, pairs, CORE, "4-0")
    assert [e["id"] for e in examples] == ["p1", "p2", "p3"]  # p4 split 2-2: dropped; curriculum order
    assert [e["curriculum"] for e in examples] == ["human-vs-tts", "cross-model", "same-model"]
    assert report["pairs_dropped"] == 1 and report["winner_first"] in (1, 2)
    e = next(x for x in examples if x["id"] == "p2")
    first_is_winner = e["winner_slot"] == "first"
    assert e["audios"][0] == os.path.abspath("b2.wav" if first_is_winner else "a2.wav")  # no base: absolute
    weights = {s["name"]: s["loss_weight"] for s in e["sections"]}
    assert weights == {"C1": 1.5, "C2": 1.5, "C3": 1.5, "C4": 1.5, "summary": 1.0, "conclusion": 2.0}
    assert e["messages"][-1]["content"].endswith(f"the {e['winner_slot']} clip has better prosody.")
    assert e["messages"][1]["content"].count("<audio>") == 2


def test_winner_balancing_puts_half_the_winners_first():
    pairs = [Pair(f"p{k}", "t", f"a{k}", f"b{k}") for k in range(10)]
    records = [r for k in range(10) for r in _records(f"p{k}", {d: ["A"] * 4 for d in CORE.ids})]
    examples, report = build_sft(records, pairs, CORE, "4-0", seed=3)
    assert report["winner_first"] == 5 and len(examples) == 10


def test_per_dimension_masking_keeps_confident_dimensions():
    pairs = [Pair("p", "t", "a.wav", "b.wav")]
    votes = {"C1": ["A"] * 4, "C2": ["A", "A", "A", None], "C3": ["A", "B", "A", "B"], "C4": ["B", "B", "B", "tie"]}
    examples, report = build_sft(_records("p", votes), pairs, CORE, "3+abstain", per_dimension=True)
    e = examples[0]
    assert e["confident_dimensions"] == ["C1", "C2", "C4"]
    weights = {s["name"]: s["loss_weight"] for s in e["sections"]}
    assert weights == {"C1": 1.5, "C2": 1.5, "C3": 0.0, "C4": 1.5}  # no summary or conclusion per dimension
    assert report["pair_dimensions_kept"] == 3 and report["pair_dimensions_masked"] == 1


def test_rewards():
    assert verdict_reward("A", "A") == 1.0 and verdict_reward("B", "A") == -1.0 and verdict_reward(None, "A") == -1.0
    assert dimension_rewards({"C1": "A", "C2": None}, {"C1": "A", "C2": "B"}) == {"C1": 1.0, "C2": -1.0}
    assert group_advantages([1, 1, 1]).tolist() == [0.0, 0.0, 0.0]
    assert group_advantages([1, -1]).tolist() == [1.0, -1.0]
    r = np.array([[1, 1, -1], [1, -1, -1], [1, 1, 1], [1, -1, -1]], dtype=float)
    adv = span_local_advantages(r, mask=[True, True, False])
    assert adv[:, 0].tolist() == [0.0] * 4  # every rollout agreed on C1: no gradient for that span
    assert adv[:, 1].tolist() == [1.0, -1.0, 1.0, -1.0]  # normalised within the dimension
    assert adv[:, 2].tolist() == [0.0] * 4  # masked
    with pytest.raises(ValueError):
        span_local_advantages(np.ones(3))


def test_paired_bootstrap_matches_a_direct_computation():
    rng = np.random.default_rng(5)
    n = 40
    pairs = [Pair(f"p{k}", "t", "a", "b", {"overall": "A"}) for k in range(n)]
    correct_a = rng.random(n) < 0.8
    correct_b = rng.random(n) < 0.6

    def records_for(correct):
        return [
            r
            for k, ok in enumerate(correct)
            for r in _records(f"p{k}", {d: ["A" if ok else "B"] * 2 for d in CORE.ids})
        ]

    res = compare_judges(records_for(correct_a), records_for(correct_b), pairs, CORE, n_resamples=2000, seed=11)
    idx = np.concatenate(list(resample_chunks(n, 2000, 11)))
    diffs = correct_a[idx].mean(axis=1) - correct_b[idx].mean(axis=1)
    assert res["difference"] == pytest.approx(correct_a.mean() - correct_b.mean())
    assert res["ci_low"] == pytest.approx(np.quantile(diffs, 0.025)) and res["ci_high"] == pytest.approx(
        np.quantile(diffs, 0.975)
    )


def test_weight_selection_finds_the_informative_dimension():
    rng = np.random.default_rng(0)
    pairs, records = [], []
    for k in range(60):
        truth = "A" if rng.random() < 0.5 else "B"
        other = "B" if truth == "A" else "A"
        # C1 always agrees with people; C2-C4 usually disagree
        votes = {"C1": [truth] * 2, **{d: [other if rng.random() < 0.7 else truth] * 2 for d in ("C2", "C3", "C4")}}
        pairs.append(Pair(f"p{k}", "t", "a", "b", {"overall": truth}))
        records += _records(f"p{k}", votes)
    res = select_weights(records, pairs, CORE, val_fraction=0.5, seed=1)
    assert res["weights"]["C1"] == max(res["weights"].values())
    assert res["test_accuracy"] > res["test_accuracy_uniform"]
    assert res["validation_pairs"] == 30 and res["test_pairs"] == 30


def _acoustic_records(pid, stands_for=2, orders=("A", "B")):
    """A deterministic teacher's records: clip A wins C1, C2 is a tie, C3 and C4 never measured;
    the rationale names the physical clips, as the acoustic judge's measurements do."""
    scores = {"C1": {"A": 10.0, "B": 1.0}, "C2": {"A": 7.0, "B": 7.0}}
    return [
        {
            "pair_id": pid,
            "first": first,
            "sample": 0,
            "scores": scores,
            "raw": {},
            "abstained": [],
            "rationale": {"C1": "A: good pauses; B: bad pauses", "C2": "A: lively; B: lively"},
            "verdict": "A",
            "stands_for": stands_for,
            "judge": "acoustic",
        }
        for first in orders
    ]


def test_acoustic_rationale_is_written_in_the_presented_order():
    pairs = [Pair(f"p{k}", "t", f"a{k}.wav", f"b{k}.wav") for k in range(6)]
    records = [r for p in pairs for r in _acoustic_records(p.pair_id)]
    examples, report = build_sft(records, pairs, CORE, "4-0")
    assert {e["winner_slot"] for e in examples} == {"first", "second"}
    for e in examples:
        c1 = next(s["text"] for s in e["sections"] if s["name"] == "C1")
        if e["winner_slot"] == "first":  # clip A shown first
            assert "first clip: good pauses; second clip: bad pauses" in c1 and "first 10, second 1" in c1
        else:
            assert "second clip: good pauses; first clip: bad pauses" in c1 and "first 1, second 10" in c1
        assert "A:" not in e["messages"][-1]["content"]
    assert report["deterministic"] is True


def test_slot_rewriting_leaves_clip_paths_as_written():
    from voxjudge.pairwise.distill import _in_slots

    note = "clip A wins: clip B (runs/clip B/s.wav): no speech: digital silence; clip A: 5.0 syllables/s"
    assert _in_slots(note, "B") == (
        "the second clip wins: the first clip (runs/clip B/s.wav): no speech: digital silence; "
        "the second clip: 5.0 syllables/s"
    )


def test_unmeasured_and_tied_dimensions_are_not_confident():
    pairs = [Pair("p", "t", "a.wav", "b.wav")]
    examples, _ = build_sft(_acoustic_records("p"), pairs, CORE, "4-0")
    e = examples[0]
    assert e["confident_dimensions"] == ["C1"]  # C2 a tie, C3 and C4 never measured
    assert [s["name"] for s in e["sections"]] == ["C1", "C2", "summary", "conclusion"]
    _, report = build_sft(_acoustic_records("p"), pairs, CORE, "4-0", per_dimension=True)
    assert report["pair_dimensions_kept"] == 1 and report["pair_dimensions_masked"] == 1


def test_a_pair_judged_in_one_order_is_refused():
    pairs = [Pair("p", "t", "a.wav", "b.wav")]
    with pytest.raises(InputError, match="'p' has 5 with clip A first and 0 with clip B first"):
        build_sft(_acoustic_records("p", stands_for=5, orders=("A",)), pairs, CORE, "4-0")


def test_a_set_whose_comparisons_all_abstained_has_no_winner():
    class MuteOnSet(QualityJudge):
        async def judge(self, pair, first, samples):
            if pair.pair_id.startswith("mute:"):
                return [SlotJudgment(error="no answer") for _ in range(samples)]
            return await super().judge(pair, first, samples)

    q = {"c0": 5.0, "c1": 9.0}
    sets = [CandidateSet("mute", "t", ("c0", "c1"), human_topk=(1,)), CandidateSet("ok", "t", ("c0", "c1"), (0,))]
    selections, _ = asyncio.run(select_best(sets, MuteOnSet(q), CORE, samples=2))
    assert selections[0].winner is None and selections[0].hits[1] is None
    rates = hit_rates(selections, sets)
    assert rates["n_rated"] == 1 and rates["n_rated@1"] == 1 and rates["hit@1"] == 0.0 and rates["n_no_winner"] == 1
    # the terminal and the HTML report say so before the winners, and name no candidate for the set
    from voxjudge.cli.views.pairwise import render_selection
    from voxjudge.pairwise.result import selected
    from voxjudge.report.pairwise import selection_report

    result = selected(selections, sets, CORE, {}, [])
    lines = render_selection(result).splitlines()
    assert lines[0] == "1 set without a winner: every comparison abstained; left out of Hit@k"
    assert lines[1] == "mute: no winner (every comparison abstained)"
    assert "over 1 set with a top 1 and a winner" in lines[-1]
    page = selection_report(result, {}).html
    assert "no winner" in page and "None" not in page and page.index("without a winner") < page.index("Winners")


def test_weight_selection_weighs_the_measured_dimensions_only():
    pairs = [Pair(f"p{k}", "t", "a", "b", {"overall": "AB"[k % 2]}) for k in range(8)]
    # C3 never measured: the core dimensions measured are weighed (C1), C3 is not
    records = [
        r for k, p in enumerate(pairs) for r in _records(p.pair_id, {d: ["AB"[k % 2]] * 2 for d in ("C1", "L2")})
    ]
    for r in records:
        r["abstained"] = []
    res = select_weights(records, pairs, Rubric.default().select(["C1", "C3", "L2"]), val_fraction=0.5)
    assert res["dimensions"] == ["C1"] and set(res["weights"]) == {"C1"}
    # no core dimension measured: every measured one
    res = select_weights(records, pairs, Rubric.default().select(["C3", "L2"]), val_fraction=0.5)
    assert res["dimensions"] == ["L2"]


def test_distill_says_a_deterministic_teacher_makes_the_filter_vacuous(tmp_path, capsys):
    import json

    from voxjudge.cli.main import main

    teacher, pairs, sft = tmp_path / "t.jsonl", tmp_path / "p.jsonl", tmp_path / "sft.jsonl"
    teacher.write_text("".join(json.dumps(r) + "\n" for r in _acoustic_records("p")))
    pairs.write_text(json.dumps({"pair_id": "p", "text": "t", "audio_a": "a.wav", "audio_b": "b.wav"}) + "\n")
    assert main(["pairwise", "distill", str(teacher), "--pairs", str(pairs), "--out", str(sft)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("voxjudge: note: the teacher is deterministic") and "the 4-0 filter only" in err[0]
    assert err[1].startswith("1 SFT examples")
