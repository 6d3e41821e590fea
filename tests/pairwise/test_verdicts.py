"""Verdicts where people look: V_w on every record and per pair, the per-pair table of `pairwise
judge`, win rates without human labels, never-measured dimensions absent, honest rationales."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

from voxjudge.cli.main import main
from voxjudge.pairwise import Pair, Rubric, aggregate, run_judgments
from voxjudge.pairwise.pairtable import pair_rows, verdict_counts
from voxjudge.pairwise.slots import SlotJudgment
from voxjudge.pairwise.winrates import win_rates

RUBRIC = Rubric.default()
CORE = RUBRIC.select(["C1", "C2", "C3", "C4"])


class ScriptedJudge:
    """Scores per physical clip from a table (pair id -> clip -> dim -> score), plus ``bias`` points
    for the second slot; the judge's own verdict is always "first" (to tell it from V_w)."""

    name, mode = "scripted", "coupled"
    measures = ("C1", "C2")  # C3, C4 it never measures

    def __init__(self, table, bias=0.0):
        self.table, self.bias = table, bias

    async def judge(self, pair, first, samples):
        second = "B" if first == "A" else "A"
        s1, s2 = self.table[pair.pair_id][first], self.table[pair.pair_id][second]
        return [
            SlotJudgment(dict(s1), {d: v + self.bias for d, v in s2.items()}, verdict="first") for _ in range(samples)
        ]


def _pair(pid, system_a=None, system_b=None):
    return Pair(pid, "t", "a.wav", "b.wav", {}, (), system_a, system_b)


def test_every_record_carries_the_weighted_verdict_tie_on_zero():
    table = {
        "b-wins": {"A": {"C1": 7, "C2": 4}, "B": {"C1": 4, "C2": 8}},  # 1.5*3 + 1.5*(-4) = -1.5
        "even": {"A": {"C1": 6, "C2": 4}, "B": {"C1": 4, "C2": 6}},  # 1.5*2 - 1.5*2 = 0: a tie
    }
    records = asyncio.run(run_judgments([_pair("b-wins"), _pair("even")], ScriptedJudge(table), CORE, samples=2))
    by = {(r["pair_id"], r["first"]): r for r in records}
    for first in ("A", "B"):
        assert by[("b-wins", first)]["verdict"] == "B" and by[("b-wins", first)]["margin"] == pytest.approx(-1.5)
        assert by[("even", first)]["verdict"] == "tie" and by[("even", first)]["margin"] == 0.0
    # the judge's own verdict ("first") is kept apart, mapped back to the clip in the first slot
    assert by[("b-wins", "A")]["judge_verdict"] == "A" and by[("b-wins", "B")]["judge_verdict"] == "B"


def test_a_judgment_without_scores_abstains():
    class Failing:
        name, mode = "failing", "coupled"

        async def judge(self, pair, first, samples):
            return [SlotJudgment(error="no valid answer") for _ in range(samples)]

    (rec,) = asyncio.run(run_judgments([_pair("p")], Failing(), CORE, samples=1))
    assert rec["verdict"] == "abstain" and rec["margin"] is None and rec["abstained"] == CORE.ids


def test_pair_rows_compare_the_two_orders():
    table = {"p": {"A": {"C1": 6, "C2": 6}, "B": {"C1": 5, "C2": 5}}}
    fair = asyncio.run(run_judgments([_pair("p")], ScriptedJudge(table), CORE, samples=4))
    (row,) = pair_rows(fair, CORE)
    assert row["dimensions"] == {"C1": "A", "C2": "A"}  # C3, C4 never measured: absent, not lost
    assert row["verdict"] == "A" and row["margin"] == pytest.approx(3.0)
    assert row["orders"] == {"A": "A", "B": "A"} and row["orders_agree"] is True
    # +3 for the second slot: A-first, B gets 8 > 6; B-first, A gets 9 > 5. Means: A 7.5, B 6.5
    biased = asyncio.run(run_judgments([_pair("p")], ScriptedJudge(table, bias=3.0), CORE, samples=4))
    (row,) = pair_rows(biased, CORE)
    assert row["orders"] == {"A": "B", "B": "A"} and row["orders_agree"] is False and row["verdict"] == "A"
    counts = verdict_counts([row])
    assert counts["verdicts"] == {"A": 1, "B": 0, "tie": 0, "abstain": 0} and counts["orders_agree_rate"] == 0.0
    one_order = asyncio.run(run_judgments([_pair("p")], ScriptedJudge(table), CORE, samples=1))
    assert pair_rows(one_order, CORE)[0]["orders_agree"] is None


def test_win_rates_against_a_direct_count_and_bootstrap():
    # x beats y in 3 pairs, ties 1, loses 1; x meets z twice (a win, an abstention); y beats z once
    rows = [
        ("p1", "x", "y", "A"),
        ("p2", "y", "x", "B"),
        ("p3", "x", "y", "A"),
        ("p4", "x", "y", "tie"),
        ("p5", "y", "x", "A"),
        ("p6", "z", "x", "B"),
        ("p7", "x", "z", "abstain"),
        ("p8", "y", "z", "A"),
        ("p9", "x", "x", "A"),  # a system against itself: no match
    ]
    pairs = [_pair(pid, a, b) for pid, a, b, _ in rows]
    verdicts = {pid: v for pid, _, _, v in rows}
    res = win_rates(verdicts, pairs, n_resamples=400, seed=3)
    by = {r["system"]: r for r in res["systems"]}
    assert (by["x"]["wins"], by["x"]["ties"], by["x"]["losses"], by["x"]["abstained"]) == (4, 1, 1, 1)
    assert by["x"]["win_rate"] == pytest.approx(4.5 / 6) and by["y"]["win_rate"] == pytest.approx(2.5 / 6)
    assert by["z"]["win_rate"] == 0.0 and res["same_system_pairs"] == 1
    assert [r["system"] for r in res["systems"]] == ["x", "y", "z"]  # best first
    h2h = {(r["system"], r["opponent"]): r for r in res["head_to_head"]}
    assert list(h2h) == [("x", "y"), ("x", "z"), ("y", "z")]  # from the better ranked side
    assert h2h[("x", "y")]["win_rate"] == pytest.approx(3.5 / 5) and h2h[("x", "z")]["pairs"] == 2
    assert (h2h[("y", "z")]["wins"], h2h[("y", "z")]["losses"]) == (1, 0)
    # the oracle: the same seeded draws of pair indices, the win rate of x recomputed per resample
    idx = np.random.default_rng(3).integers(0, len(pairs), size=(400, len(pairs)))
    points = {"p1": 1, "p2": 1, "p3": 1, "p4": 0.5, "p5": 0, "p6": 1}
    ids = [p.pair_id for p in pairs]
    rates = []
    for draw in idx:
        got = [points[ids[i]] for i in draw if ids[i] in points]
        if got:
            rates.append(sum(got) / len(got))
    low, high = np.quantile(rates, [0.025, 0.975])
    assert by["x"]["ci_low"] == pytest.approx(low) and by["x"]["ci_high"] == pytest.approx(high)


def test_pairs_without_systems_compare_clip_a_with_clip_b():
    res = win_rates({"p": "A", "q": "A", "r": "B"}, [_pair("p"), _pair("q"), _pair("r")], n_resamples=50)
    by = {r["system"]: r["win_rate"] for r in res["systems"]}
    assert by == {"clip A": pytest.approx(2 / 3), "clip B": pytest.approx(1 / 3)}


def _unlabelled(examples, tmp_path):
    lines = (examples / "pairwise" / "pairs.jsonl").read_text().splitlines()
    rows = []
    for line in lines:
        row = json.loads(line)
        row.pop("human"), row.pop("human_confident")
        row["audio_a"] = str(examples / "pairwise" / row["audio_a"])
        row["audio_b"] = str(examples / "pairwise" / row["audio_b"])
        rows.append(row)
    path = tmp_path / "unlabelled.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_judge_prints_a_verdict_per_pair_and_json_gives_the_same(examples, tmp_path, capsys):
    pairs = examples / "pairwise" / "pairs.jsonl"
    out = tmp_path / "j.jsonl"
    assert main(["pairwise", "judge", "--pairs", str(pairs), "--samples", "2", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["verdict"] in ("A", "B", "tie") for r in records)
    header = next(line for line in table.splitlines() if line.startswith("┃ pair"))
    assert [c.strip() for c in header.strip("┃").split("┃")] == ["pair", "C1", "C2", "C4", "L2", "verdict", "margin",
                                                                  "orders agree"]  # fmt: skip
    row = next(line for line in table.splitlines() if "t0-natural-vs-monotone" in line)
    assert [c.strip() for c in row.strip("│").split("│")][-3:][0] == "A" and "yes" in row
    assert "verdicts: A 12, B 6, tie 0, abstain 0; the two orders agree on 18 of 18 pairs (100.00%)" in table
    assert "verdict V_w = sign(sum_d w_d (s_A - s_B)), zero a tie; weights C1 1.5, C2 1.5, C4 1.5, L2 0.7" in table
    assert "not measured by the acoustic judge: C3, L1, L3" in table
    out2 = tmp_path / "j2.jsonl"
    assert main(["pairwise", "judge", "--pairs", str(pairs), "--samples", "2", "--out", str(out2), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert out2.read_bytes() == out.read_bytes()
    assert view["engine"] == "local" and len(view["pairs"]) == 18
    human = {
        json.loads(line)["pair_id"]: json.loads(line)["human"]["overall"] for line in pairs.read_text().splitlines()
    }
    assert {r["pair_id"]: r["verdict"] for r in view["pairs"]} == human  # the acoustic judge gets all 18 right
    for r in view["pairs"]:
        assert set(r["dimensions"]) == {"C1", "C2", "C4", "L2"} and r["orders_agree"] is True
        mine = [x["verdict"] for x in records if x["pair_id"] == r["pair_id"]]
        assert mine == [r["verdict"]] * 2  # deterministic and without slot bias: each judgment agrees
    assert view["verdicts"] == {"A": sum(v == "A" for v in human.values()), "B": sum(v == "B" for v in human.values()),
                                "tie": 0, "abstain": 0}  # fmt: skip


def test_analyze_without_labels_gives_win_rates_and_position_bias(examples, tmp_path, capsys):
    pairs = _unlabelled(examples, tmp_path)
    out = tmp_path / "j.jsonl"
    assert main(["pairwise", "judge", "--pairs", str(pairs), "--samples", "2", "--out", str(out)]) == 0
    capsys.readouterr()
    argv = ["pairwise", "analyze", str(out), "--pairs", str(pairs), "--resamples", "500"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.startswith("no human overall labels in the pairs file: no accuracy")
    assert "accuracy (aggregated" not in text and "Accuracy by dimension" not in text
    assert "Win rate per system (ties count half)" in text and "Head to head" in text
    t_line = next(line for line in text.splitlines() if "t statistic (pair-level slot difference)" in line)
    assert "– (every pair has the same slot difference)" in t_line
    assert main([*argv, "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    systems = {r["system"]: r for r in rep["win_rates"]["systems"]}
    # natural wins each of its 18 pairs (6 texts x 3 flaws); each flaw loses its 6
    assert systems["natural"]["wins"] == 18 and systems["natural"]["win_rate"] == 1.0
    assert systems["natural"]["ci_low"] == 1.0 and systems["natural"]["ci_high"] == 1.0
    assert {s: systems[s]["losses"] for s in ("monotone", "misplaced", "rushed")} == {
        "monotone": 6,
        "misplaced": 6,
        "rushed": 6,
    }
    # no slot bias: every judgment favours the better clip, in the second slot half of the time
    assert rep["delta_pos"] == 0.0 and rep["second_slot_rate"] == 0.5 and rep["accuracy"] is None
    assert rep["not_measured"] == ["C3", "L1", "L3"] and set(rep["accuracy_by_dimension"]) == {"C1", "C2", "C4", "L2"}


def test_never_measured_dimensions_are_not_errors_in_accuracy():
    records = [
        {"pair_id": "p", "first": "A", "sample": 0, "abstained": [], "raw": {"first": {"C1": 8}, "second": {"C1": 3}},
         "scores": {"C1": {"A": 8, "B": 3}}},
    ]  # fmt: skip
    from voxjudge.pairwise import accuracy_report

    rep = accuracy_report(records, [Pair("p", "t", "a", "b", {"overall": "A", "C1": "A", "C3": "B"}, ("C3",))], CORE)
    assert rep["accuracy_by_dimension"] == {"C1": 1.0} and rep["not_measured"] == ["C2", "C3", "C4"]
    assert rep["n_confident"] == 0  # the confident C3 label is not held against a judge that never hears C3
    assert aggregate(records, CORE)["p"].verdicts == {"C1": "A"}


def _judged_view(judge, pairs, samples):
    from voxjudge.cli.views.pairwise import render_pair_table
    from voxjudge.pairwise.result import judged

    records = asyncio.run(run_judgments(pairs, judge, CORE, samples=samples))
    return render_pair_table(judged(records, pairs, CORE, {"judge": judge.name}))


class SilentOn(ScriptedJudge):
    """The scripted judge, with no usable answer for the pairs named."""

    def __init__(self, table, silent):
        super().__init__(table)
        self.silent = silent

    async def judge(self, pair, first, samples):
        if pair.pair_id in self.silent:
            return [SlotJudgment(error="no answer") for _ in range(samples)]
        return await super().judge(pair, first, samples)


def test_a_partial_judging_run_says_so_before_the_verdicts():
    table = {"p": {"A": {"C1": 7, "C2": 4}, "B": {"C1": 4, "C2": 8}}, "q": {"A": {"C1": 7}, "B": {"C1": 4}}}
    text = _judged_view(SilentOn(table, {"q"}), [_pair("p"), _pair("q")], samples=2)
    lines = text.splitlines()
    assert lines[0].startswith("partial: 2 of 4 judgments have no usable answer")
    assert "PARTIAL: 2 pairs" in lines[1]


def test_orders_not_compared_says_why():
    table = {"p": {"A": {"C1": 7, "C2": 4}, "B": {"C1": 4, "C2": 8}}}
    text = _judged_view(SilentOn(table, {"p"}), [_pair("p")], samples=2)
    assert "no pair has a usable verdict in both orders (the judgments of an order abstained)" in text
    assert "--samples 1" not in text
    text = _judged_view(ScriptedJudge(table), [_pair("p")], samples=1)
    assert "the two orders were not both judged (--samples 1)" in text
