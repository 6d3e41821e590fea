"""One agreement computation: LASER, phrase breaks and ``stats agree`` answer alike when it is undefined."""

from __future__ import annotations

import pytest

from voxjudge.asr.laser.scoring import UtteranceScore
from voxjudge.asr.laser.scoring import agreement as laser_agreement
from voxjudge.breaks import ReferenceTable, Similarity, parse_inline, score_hypotheses, summarize
from voxjudge.cli.main import main
from voxjudge.errors import InputError
from voxjudge.stats import AgreementUndefined, agreement, correlate

TOO_FEW = "no agreement with human scores: only 2 scored items; it needs at least 3 items"


def test_agreement_is_correlate_when_defined():
    x, y = [0.1, 0.5, 0.4, 0.9, 0.7], [1, 3, 2, 5, 4]
    assert agreement(x, y, n_resamples=300, seed=3) == correlate(x, y, n_resamples=300, seed=3)


@pytest.mark.parametrize(
    "metric, human, reason",
    [
        ([0.2, 0.4], [1, 2], "only 2 scored items"),
        ([], [], "only 0 scored items"),
        ([0.5, 0.5, 0.5], [1, 2, 3], "the metric scores are all equal (3 items)"),
        ([0.1, 0.5, 0.9], [4, 4, 4], "the human scores are all equal (3 items)"),
        ([0.1, float("nan"), 0.9], [1, 2, 3], "a metric score is not a finite number"),
    ],
)
def test_undefined_agreement_is_one_error_with_one_message(metric, human, reason):
    with pytest.raises(AgreementUndefined) as e:
        agreement(metric, human, n_resamples=100)
    assert str(e.value) == (
        f"no agreement with human scores: {reason}; it needs at least 3 items whose metric and human scores both vary"
    )
    assert isinstance(e.value, InputError)  # the CLI prints it as one line, exit 2


def _utterance(uid: str, laser: float, wer: float) -> UtteranceScore:
    return UtteranceScore(uid, "en", 4, laser=laser, wer=wer)


def test_laser_uses_the_shared_agreement():
    utts = [_utterance("a", 0.9, 0.1), _utterance("b", 0.5, 0.4)]
    with pytest.raises(AgreementUndefined, match=TOO_FEW):
        laser_agreement(utts, {"a": 5, "b": 3}, n_resamples=100)
    # Constant human scores: the clean message instead of scipy's NaN and warning.
    utts.append(_utterance("c", 0.7, 0.2))
    with pytest.raises(AgreementUndefined, match=r"the human scores are all equal \(3 items\)"):
        laser_agreement(utts, {"a": 4, "b": 4, "c": 4}, n_resamples=100)


@pytest.fixture
def table():
    t = ReferenceTable()
    for a in ["a b <IP> c d <SB>", "a <AP> b c d <SB>", "x y <AP> z <SB>"]:
        t.add(parse_inline(a))
    return t


def test_breaks_raises_the_shared_error_where_it_used_to_return_nothing(table):
    hyps = [("h0", parse_inline("a b <IP> c d <SB>")), ("h1", parse_inline("x <IP> y z <SB>"))]
    recs = score_hypotheses(table, hyps, Similarity("f1"), 0.8)
    with pytest.raises(AgreementUndefined, match=TOO_FEW):
        summarize(recs, {"h0": 5, "h1": 1}, 0.8, Similarity("f1"), n_resamples=100)


def test_breaks_baseline_without_a_correlation_says_why(table):
    # The single reference (the most frequent one) never matches: its scores are constant, so the
    # baseline column has no correlation and the summary carries the reason; the main one is there.
    single = {"a b c d": parse_inline("a b c <AP> d <SB>"), "x y z": parse_inline("x <AP> y z <SB>")}
    hyps = [
        ("h0", parse_inline("a b <IP> c d <SB>")),
        ("h1", parse_inline("a <AP> b c d <SB>")),
        ("h2", parse_inline("x y <IP> z <SB>")),
        ("h3", parse_inline("x y <AP> z <SB>")),
    ]
    recs = score_hypotheses(table, hyps, Similarity("em"), 0.5, single)
    assert len({r.single_score for r in recs}) == 1
    s = summarize(recs, {"h0": 5, "h1": 4, "h2": 1, "h3": 5}, 0.5, Similarity("em"), n_resamples=100)
    assert s["pearson"] is not None and s["single_pearson"] is None
    assert "the single-reference scores are all equal (4 items)" in s["single_agreement_undefined"]


def test_stats_agree_prints_the_shared_message(capsys, tmp_path):
    (tmp_path / "m.txt").write_text("a 1\nb 2\n")
    (tmp_path / "h.txt").write_text("a 1\nb 2\n")
    code = main(["stats", "agree", "--metric", str(tmp_path / "m.txt"), "--human", str(tmp_path / "h.txt")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("voxjudge: error: " + TOO_FEW) and err.count("\n") == 1


def test_asr_score_with_constant_human_scores_exits_2_without_nan(capsys, tmp_path, examples):
    d = examples / "asr" / "en"
    ids = [line.split()[0] for line in (d / "ref.txt").read_text().splitlines() if line.strip()]
    (tmp_path / "human.tsv").write_text("id\tscore\n" + "".join(f"{i}\t3\n" for i in ids))
    out = tmp_path / "out.jsonl"
    code = main(
        ["asr", "score", "--ref", str(d / "ref.txt"), "--hyp", str(d / "sys_b.txt"), "--ids"]
        + ["--human", str(tmp_path / "human.tsv"), "--out", str(out)]
    )
    cap = capsys.readouterr()
    assert code == 2
    assert "the human scores are all equal" in cap.err and "nan" not in cap.out + cap.err
    assert not out.exists()  # nothing partial written
