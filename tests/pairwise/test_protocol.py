"""Protocol, swap-back, bias, ties and abstentions with scripted judges."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from voxjudge.errors import InputError
from voxjudge.llm import Judge
from voxjudge.llm.providers import fake
from voxjudge.pairwise import LLMPairJudge, Pair, Rubric, accuracy_report, aggregate, run_judgments
from voxjudge.pairwise.slots import SlotJudgment, orders

RUBRIC = Rubric.default()
CORE = RUBRIC.select(["C1", "C2", "C3", "C4"])


class SlotJudge:
    """Gives the first slot `first_score` and the second `second_score` on every dimension."""

    name, mode = "slots", "coupled"

    def __init__(self, first_score=7.0, second_score=4.0, dims=None):
        self.s1, self.s2, self.dims = first_score, second_score, dims

    async def judge(self, pair, first, samples):
        dims = self.dims or CORE.ids
        return [SlotJudgment({d: self.s1 for d in dims}, {d: self.s2 for d in dims}) for _ in range(samples)]


def pair(pid="p", human=None, a="a.wav", b="b.wav"):
    return Pair(pid, "some text", a, b, human or {})


def test_orders_split_samples_evenly():
    assert orders(10) == [("A", 5), ("B", 5)] and orders(3) == [("A", 2), ("B", 1)]


def test_swap_back_maps_slots_to_physical_clips():
    records = asyncio.run(run_judgments([pair()], SlotJudge(), CORE, samples=4))
    assert [(r["first"], r["sample"]) for r in records] == [("A", 0), ("A", 1), ("B", 0), ("B", 1)]
    a_first, b_first = records[0], records[2]
    assert a_first["scores"]["C1"] == {"A": 7.0, "B": 4.0}
    assert b_first["scores"]["C1"] == {"B": 7.0, "A": 4.0}
    assert b_first["raw"] == {"first": {d: 7.0 for d in CORE.ids}, "second": {d: 4.0 for d in CORE.ids}}
    # a judge that always prefers the first slot cancels out over both orders: a tie
    res = aggregate(records, CORE)["p"]
    assert res.means["C1"] == {"A": 5.5, "B": 5.5} and res.verdicts["C1"] == "tie" and res.overall == "tie"


def test_slot_bias_is_measured_and_ties_are_errors():
    pairs = [pair(f"p{k}", {"overall": "A"}) for k in range(6)]
    records = asyncio.run(run_judgments(pairs, SlotJudge(5.0, 7.0), CORE, samples=10))
    rep = accuracy_report(records, pairs, CORE)
    assert rep["delta_pos"] == pytest.approx(2.0) and rep["second_slot_rate"] == 1.0
    assert rep["accuracy"] == 0.0  # all ties, and ties count as errors
    # with one call in the presented order the bias decides: B "wins" every pair
    assert rep["single_sample_accuracy"] == 0.0


def _quality_script(bias: float):
    """A scripted audio judge: clip quality from the file name ('good' > 'bad'), plus slot bias."""

    def script(request, index):
        clips = [p for m in request.messages for p in m.parts if hasattr(p, "sha256")]
        q = [8.0 if c.data == GOOD_WAV else 4.0 for c in clips]
        dims = list(request.schema["properties"]["dimensions"]["properties"])
        return {
            "dimensions": {
                d: {"rationale": "r", "score_first": q[0], "score_second": min(10, q[1] + bias)} for d in dims
            },
            "summary": "s",
            "verdict": "first" if q[0] > q[1] + bias else "second",
        }

    return script


def _wav_bytes(hz: float) -> bytes:
    import io
    import wave

    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes((8000 * np.sin(2 * np.pi * hz * np.arange(800) / 8000)).astype(np.int16).tobytes())
    return buf.getvalue()


GOOD_WAV, BAD_WAV = _wav_bytes(200), _wav_bytes(300)


def _audio_files(tmp_path):
    good, bad = tmp_path / "x.wav", tmp_path / "y.wav"
    good.write_bytes(GOOD_WAV)
    bad.write_bytes(BAD_WAV)
    return good, bad


def test_injected_bias_recovered_and_cancelled_by_balanced_orders(tmp_path, monkeypatch):
    good, bad = _audio_files(tmp_path)
    monkeypatch.setitem(fake._SCRIPTS, "quality-biased", _quality_script(bias=3.0))
    llm = Judge("fake/quality-biased", cache=None)
    judge = LLMPairJudge(llm, CORE, "coupled")
    pairs = [Pair("g-first", "t", good, bad, {"overall": "A"}), Pair("g-second", "t", bad, good, {"overall": "B"})]
    records = llm.run(run_judgments(pairs, judge, CORE, samples=10))
    rep = accuracy_report(records, pairs, CORE)
    # slot two gets +3 (capped at 10): good-first gives -1, bad-first +6, so the mean gap is 2.5
    assert rep["delta_pos"] == pytest.approx(2.5) and rep["second_slot_rate"] == 0.5
    # balanced orders: good = 8 in slot one, bad = 4 + 3 = 7 in slot two; reversed: bad 4, good 10
    res = aggregate(records, CORE)
    assert res["g-first"].means["C1"] == {"A": 9.0, "B": 5.5} and res["g-first"].overall == "A"
    assert rep["accuracy"] == 1.0
    # the judge's own verdict is mapped back to the clips too
    assert {r["verdict"] for r in records if r["pair_id"] == "g-first" and r["first"] == "A"} == {"A"}
    llm.close()


def test_abstentions_are_recorded_not_dropped(tmp_path, monkeypatch):
    good, bad = _audio_files(tmp_path)
    calls = {"n": 0}

    def flaky(request, index):
        calls["n"] += 1
        return "not json" if index == 0 else _quality_script(0.0)(request, index)

    monkeypatch.setitem(fake._SCRIPTS, "flaky-prosody", flaky)
    llm = Judge("fake/flaky-prosody", cache=None)
    records = llm.run(
        run_judgments([Pair("p", "t", good, bad, {"overall": "A"})], LLMPairJudge(llm, CORE), CORE, samples=4)
    )
    failed = [r for r in records if r["error"]]
    assert len(records) == 4 and len(failed) == 2 and all(r["abstained"] == CORE.ids for r in failed)
    res = aggregate(records, CORE)["p"]
    assert res.n_abstentions == 8 and res.n_judgments == 4 and res.overall == "A"
    llm.close()


def test_per_dimension_mode_one_call_per_dimension(tmp_path, monkeypatch):
    good, bad = _audio_files(tmp_path)

    def per_dim(request, index):
        return {"rationale": request.schema_name, "score_first": 6, "score_second": 3}

    monkeypatch.setitem(fake._SCRIPTS, "per-dim", per_dim)
    llm = Judge("fake/per-dim", cache=None)
    records = llm.run(
        run_judgments([Pair("p", "t", good, bad)], LLMPairJudge(llm, CORE, "per-dimension"), CORE, samples=2)
    )
    assert llm.meter.requests == 2 * 4  # two orders x four dimensions, samples in one call each
    assert records[0]["rationale"]["C3"] == "prosody_C3" and records[0]["scores"]["C3"] == {"A": 6.0, "B": 3.0}
    llm.close()


def test_weighted_overall_verdict():
    records = [
        {
            "pair_id": "p",
            "first": "A",
            "sample": 0,
            "abstained": [],
            "raw": {},
            "scores": {"C1": {"A": 9, "B": 1}, "C2": {"A": 1, "B": 4}, "C3": {"A": 1, "B": 4}, "C4": {"A": 1, "B": 4}},
        },
    ]
    assert aggregate(records, CORE, {"C1": 1, "C2": 1, "C3": 1, "C4": 1})["p"].overall == "B"  # 8 - 9 < 0
    assert aggregate(records, CORE, {"C1": 3, "C2": 0.5, "C3": 0.5, "C4": 3})["p"].overall == "A"
    assert np.isclose(aggregate(records, CORE, {"C1": 1, "C2": 1, "C3": 1, "C4": 1})["p"].margin, -1.0)


def test_t_statistic_equals_scipy():
    from scipy.stats import ttest_1samp

    from voxjudge.pairwise import position_bias

    rng = np.random.default_rng(4)
    records = []
    diffs = {}
    for k in range(12):
        for j in range(4):
            a, b = float(rng.integers(1, 11)), float(rng.integers(1, 11))
            raw = {"first": {"C1": a, "C2": b}, "second": {"C1": b, "C2": a + 1}}
            records.append({"pair_id": f"p{k}", "first": "AB"[j % 2], "raw": raw})
            diffs.setdefault(k, []).append(((b - a) + (a + 1 - b)) / 2)
    pair_means = [np.mean(v) for v in diffs.values()]
    res = position_bias(records, {"C1": 1.0, "C2": 1.0})
    assert res["t_stat"] is None  # every pair's mean difference is exactly 0.5: no variance
    records[0]["raw"]["second"]["C1"] += 3
    pair_means[0] += 3 / 2 / 4
    res = position_bias(records, {"C1": 1.0, "C2": 1.0})
    assert res["t_stat"] == pytest.approx(ttest_1samp(pair_means, 0.0).statistic)


def _slot_records(pid, orders, s1, s2):
    """One judgment per order given, the first slot scored ``s1`` and the second ``s2`` on C1."""
    return [{"pair_id": pid, "first": o, "raw": {"first": {"C1": s1[o]}, "second": {"C1": s2[o]}}} for o in orders]


def test_position_bias_leaves_out_pairs_judged_in_one_order():
    from voxjudge.pairwise import position_bias

    # clip A is better (8 against 4) and no slot is favoured; four pairs lost their B-first judgment
    s1, s2 = {"A": 8.0, "B": 4.0}, {"A": 4.0, "B": 8.0}
    records = [r for k in range(6) for r in _slot_records(f"p{k}", "AB", s1, s2)]
    records += [r for k in range(6, 10) for r in _slot_records(f"p{k}", "A", s1, s2)]
    res = position_bias(records, {"C1": 1.0})
    assert res["delta_pos"] == 0.0 and res["second_slot_rate"] == 0.5 and res["t_stat"] is None
    assert res["n_bias_pairs"] == 6 and res["n_one_order_pairs"] == 4


def test_position_bias_leaves_ties_out_of_the_second_slot_share():
    from voxjudge.pairwise import position_bias

    second = [r for k in range(4) for r in _slot_records(f"p{k}", "AB", {"A": 5.0, "B": 5.0}, {"A": 7.0, "B": 7.0})]
    tied = [r for k in range(4, 6) for r in _slot_records(f"p{k}", "AB", {"A": 5.0, "B": 5.0}, {"A": 5.0, "B": 5.0})]
    res = position_bias(second + tied, {"C1": 1.0})
    assert res["second_slot_rate"] == 1.0 and res["n_slot_ties"] == 4


def test_a_judgment_given_twice_is_refused():
    records = asyncio.run(run_judgments([pair("p", {"overall": "A"})], SlotJudge(), CORE, samples=2))
    with pytest.raises(InputError, match="pair 'p' with clip B first, sample 0, appears twice"):
        accuracy_report(records + records[1:], [pair("p", {"overall": "A"})], CORE)


def test_bias_left_out_is_said_alike_in_the_terminal_and_the_html_report():
    from voxjudge.cli.views.pairwise import render_pairwise_analysis
    from voxjudge.pairwise.result import analysed
    from voxjudge.report.pairwise import analysis_report

    pairs = [pair(f"p{k}", {"overall": "A"}) for k in range(4)]
    records = asyncio.run(run_judgments(pairs, SlotJudge(), CORE, samples=2))
    for kept, reason in [({"p0"}, "needs two pairs judged in both orders"), (set(), "no pair judged in both orders")]:
        some = [r for r in records if r["first"] == "A" or r["pair_id"] in kept]
        result = analysed(some, pairs, CORE)
        left_out = len(pairs) - len(kept)
        table = render_pairwise_analysis(result.summary)
        page = analysis_report(result, {}).html
        for shown in (table, page):
            assert f"– ({reason})" in shown
            assert "pairs left out of the position bias (one order judged)" in shown
        assert result.summary["n_one_order_pairs"] == left_out
