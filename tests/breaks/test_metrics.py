"""Several metrics in one run, the single-reference baseline's coverage, and the consensus metric
on tables from every source (annotators, merge, the LLM builder) and every input convention."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
import scipy.stats as st

from voxjudge.breaks import ReferenceTable, Similarity, parse_inline, score_hypotheses, summarize
from voxjudge.breaks.scorer import parse_metrics
from voxjudge.cli.main import main
from voxjudge.errors import InputError


@pytest.fixture
def table():
    t = ReferenceTable()
    for a, n in [("a b <IP> c d <SB>", 3), ("a <AP> b c d <SB>", 1), ("x y <AP> z <SB>", 1)]:
        t.add(parse_inline(a), count=n)
    return t


ALL = [Similarity("em"), Similarity("f1"), Similarity("consensus")]


def test_every_metric_in_one_run(table):
    recs = score_hypotheses(table, [("h", parse_inline("a <AP> b c d"))], ALL)
    r = recs[0]
    em, f1, cons = r.scores
    assert (em.score, f1.score) == (1.0, 1.0) and em.best.inline() == f1.best.inline() == "a <AP> b c d <SB>"
    # the single reference is the most frequent one, "a b <IP> c d"
    assert (em.single_score, f1.single_score) == (0.0, 0.0)
    assert cons.agreement.tolist() == [0.25, 0.25, 1.0] and cons.score == pytest.approx(0.5)
    assert cons.single_score == pytest.approx(1 / 3) and cons.best is None
    # defaults: em 0.5, f1 0.8, consensus 0.78; the first metric decides score and accepted
    assert (em.accepted, f1.accepted, cons.accepted) == (True, True, False)
    assert r.score == r.best_score == 1.0 and r.accepted is True
    d = r.as_dict()
    assert d["similarity"] == "em" and d["consensus_similarity"] == "consensus-typed" and d["consensus_theta"] == 0.78
    assert d["consensus_agreement"] == [0.25, 0.25, 1.0] and d["f1_score"] == 1.0 and d["hypothesis"] == "a <AP> b c d"


def test_unprefixed_fields_are_the_first_metrics_and_each_metric_names_its_best_reference(table):
    r = score_hypotheses(table, [("h", parse_inline("a <AP> b c d"))], ALL[::-1])[0]
    assert r.score == pytest.approx(0.5) and r.accepted is False
    # consensus has no best reference: the unprefixed best fields do not borrow another metric's
    assert r.best_score is None and r.best_reference is None
    d = r.as_dict()
    assert (d["f1_best_score"], d["f1_best_reference"]) == (1.0, "a <AP> b c d <SB>")
    assert (d["em_best_score"], d["em_best_reference"]) == (1.0, "a <AP> b c d <SB>")
    assert "consensus_best_reference" not in d
    hyp = [("h", parse_inline("a b c <IP> d"))]  # em's best (first of the ties) is not f1's
    d = score_hypotheses(table, hyp, ALL)[0].as_dict()
    em = (d["em_score"], d["em_best_score"], d["em_best_reference"])
    assert (d["score"], d["best_score"], d["best_reference"]) == em
    assert d["f1_best_reference"] == "a b <IP> c d <SB>" and d["f1_best_score"] == d["f1_score"]
    only = score_hypotheses(table, [("h", parse_inline("a <AP> b c d"))], Similarity("consensus"))[0]
    assert only.best_score is None and only.best_reference is None


def test_error_records_have_every_column(table):
    recs = score_hypotheses(table, [("bad", parse_inline("q r")), ("ok", parse_inline("x y z"))], ALL)
    assert recs[0].error == "text not in the reference table" and recs[0].score is None
    assert set(recs[0].as_dict()) == set(recs[1].as_dict())  # CSV columns come from the first record


@pytest.mark.parametrize(
    "metric, theta, expected",
    [
        ("em,f1,consensus", None, [0.5, 0.8, 0.78]),
        ("f1,consensus", "0.7,0.9", [0.7, 0.9]),
        ("f1,consensus", "consensus=0.6", [0.8, 0.6]),
        ("consensus", "0.65", [0.65]),
    ],
)
def test_parse_metrics(metric, theta, expected):
    assert [m.theta for m in parse_metrics(metric, theta)] == expected


@pytest.mark.parametrize(
    "metric, theta, f1_mode, message",
    [
        ("f1,bleu", None, "typed", "unknown metric 'bleu'; choose one of em, f1, consensus"),
        ("f1,f1", None, "typed", "each metric may be asked for once"),
        ("f1,consensus", "0.8", "typed", "give one value per metric (2: f1, consensus)"),
        ("f1,consensus", "em=0.3", "typed", "theta names em, which the metric list does not ask for"),
        ("f1", "high", "typed", "thresholds must be numbers"),
        ("f1,consensus", None, "per-label", "per-label is an F1 variant only"),
        ("", None, "typed", "choose at least one metric"),
        ("f1", "1.5", "typed", "theta for f1 must be between 0 and 1, not 1.5"),
        ("f1,consensus", "consensus=nan", "typed", "theta for consensus must be between 0 and 1, not nan"),
        ("em", "-0.1", "typed", "theta for em must be between 0 and 1"),
    ],
)
def test_parse_metrics_errors(metric, theta, f1_mode, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_metrics(metric, theta, f1_mode)


# ---- the single-reference baseline covers the hypotheses that have one (issue 17) ---------------


def test_single_baseline_has_one_denominator(table):
    hyps = [
        ("h0", "a b <IP> c d"),
        ("h1", "a <AP> b c d"),
        ("h2", "a b c d"),
        ("h3", "a b c <IP> d"),
        ("h4", "x y <AP> z"),
        ("h5", "x <IP> y z"),
        ("h6", "x y z"),
    ]
    human = {"h0": 5, "h1": 4, "h2": 2, "h3": 1, "h4": 5, "h5": 2, "h6": 3}
    single = {"a b c d": parse_inline("a <AP> b c d")}  # covers h0-h3 only
    recs = score_hypotheses(table, [(i, parse_inline(a)) for i, a in hyps], ALL, None, single)
    s = summarize(recs, human, n_resamples=300)
    assert s["n"] == 7 and s["single_n"] == 4 and s["single_covers"].startswith("4 of 7")
    covered = [r for r in recs if r.single_score is not None]
    assert [r.id for r in covered] == ["h0", "h1", "h2", "h3"]
    for k, m in enumerate(s["metrics"].values()):
        rows = {g["group"]: g for g in m["acceptance_by_group"]}
        expected = sum(r.scores[k].single_accepted for r in covered) / 4
        assert m["single_acceptance"] == rows["all"]["single_rate"] == pytest.approx(expected)
        assert rows["all"]["single_n"] == 4 and rows["all"]["n"] == 7
        assert rows[3]["single_n"] == 0 and rows[3]["single_rate"] is None  # h6 is not covered
        xs = [r.scores[k].single_score for r in covered]
        if len(set(xs)) > 1:
            want = st.pearsonr(xs, [human[r.id] for r in covered]).statistic
            assert m["single_pearson"]["estimate"] == pytest.approx(want) and m["single_pearson"]["n"] == 4


def test_single_baseline_same_in_summary_table_json_and_report(examples, tmp_path, capsys):
    d = examples / "breaks"
    single = tmp_path / "single.txt"
    single.write_text("\n".join((d / "annotator_a.txt").read_text().splitlines()[:6]) + "\n")
    args = ["breaks", "score", "--refs", str(d / "table.jsonl"), "--hyps", str(d / "hypotheses.tsv")]
    args += ["--human", str(d / "human.tsv"), "--single", str(single), "--metric", "f1,consensus"]
    args += ["--resamples", "200"]
    report = tmp_path / "r.html"
    assert main([*args, "--json", "--report", str(report)]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["single_n"] == 18 and s["n"] == 72  # 6 texts x 3 hypotheses
    for m in s["metrics"].values():
        all_row = m["acceptance_by_group"][-1]
        assert all_row["single_rate"] == m["single_acceptance"] and all_row["single_n"] == 18
    assert "covers 18 of 72 scored hypotheses" in report.read_text()
    nothing = tmp_path / "nothing.txt"
    nothing.write_text("zz yy <SB>\n")
    assert main([*args, "--single", str(nothing), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["single_n"] == 0 and s["single_acceptance"] is None and s["single_pearson"] is None
    assert {row["single_rate"] for row in s["acceptance_by_group"]} == {None}
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "the single reference covers 18" in out


# ---- tables from every source, inputs in every convention ---------------------------------------


@pytest.fixture
def echo_annotator(monkeypatch):
    """A fake judge that returns every text with a sentence boundary only (for this test only)."""
    from voxjudge.llm.providers import fake

    def script(request, index):
        items = json.loads(request.messages[-1].text_content.split("Items:\n", 1)[1])
        return {"items": [{"id": it["id"], "annotation": it["text"] + " <SB>"} for it in items]}

    monkeypatch.setitem(fake._SCRIPTS, "echo-annotator", script)


def _consensus_scores(capsys, table, hyps, *extra):
    out = table.parent / "scores.jsonl"
    argv = ["breaks", "score", "--refs", str(table), "--hyps", str(hyps), "--metric", "consensus"]
    assert main([*argv, "--out", str(out), *extra]) == 0
    capsys.readouterr()
    return [json.loads(line)["consensus_score"] for line in out.read_text().splitlines()]


def test_merge_sums_counts_like_one_table(examples, tmp_path, capsys):
    d = examples / "breaks"
    a, b, merged, joint = (tmp_path / n for n in ("a.jsonl", "b.jsonl", "m.jsonl", "j.jsonl"))
    assert main(["breaks", "from-annotators", str(d / "annotator_a.txt"), "--out", str(a)]) == 0
    assert main(["breaks", "from-annotators", str(d / "annotator_b.txt"), "--out", str(b)]) == 0
    a2, ann_a2 = tmp_path / "a2.jsonl", tmp_path / "annotator_a2.txt"  # the same file twice is refused
    a2.write_bytes(a.read_bytes())
    ann_a2.write_bytes((d / "annotator_a.txt").read_bytes())
    assert main(["breaks", "merge", str(a), str(b), str(a2), "--out", str(merged)]) == 0
    files = [d / "annotator_a.txt", d / "annotator_b.txt", ann_a2]
    assert main(["breaks", "from-annotators", *map(str, files), "--out", str(joint)]) == 0
    capsys.readouterr()
    counts = sorted(r.count for e in ReferenceTable.load(merged).entries.values() for r in e.references.values())
    assert counts == [1] * 24 + [2] * 24  # annotator A's phrasing twice, B's once, per text
    scores = _consensus_scores(capsys, merged, d / "hypotheses.tsv")
    assert scores == _consensus_scores(capsys, joint, d / "hypotheses.tsv")
    # by hand for h002 (their poor parents <IP> were just starving as usual): A (count 2) has
    # parents IP, starving AP; B (count 1) has parents AP, starving IP
    assert scores[1] == pytest.approx((5 + 2 / 3 + 0) / 7)


def test_built_table_counts_are_iterations(examples, tmp_path, capsys, echo_annotator):
    d = examples / "breaks"
    table = tmp_path / "built.jsonl"
    argv = ["breaks", "build-refs", "--texts", str(d / "texts.txt"), "--pool", str(d / "pool.txt")]
    argv += ["--judge", "fake/echo-annotator", "--n-iter", "3", "--out", str(table), "--no-cache"]
    assert main(argv) == 0
    capsys.readouterr()
    assert {r.count for e in ReferenceTable.load(table).entries.values() for r in e.references.values()} == {3}
    scores = _consensus_scores(capsys, table, d / "hypotheses.tsv")
    # every reference is "no boundary anywhere": the score is the share of untagged junctures
    assert scores[0] == pytest.approx(5 / 7) and scores[1] == pytest.approx(6 / 7)


CONVENTIONS = {
    "tobi": (
        ["their|1 poor|1 parents|4 were|1 just|1 starving|3 as|1 usual|4", "a|1 b|3 c|4"],
        ["their|1 poor|1 parents|3 were|1 just|1 starving|4 as|1 usual|4", "a|1 b|1 c|4"],
        ["their|1 poor|1 parents|4 were|1 just|1 starving|1 as|1 usual|4", "a|3 b|1 c|4"],
    ),
    "mandarin": (
        ["我们#2明天#3去公园#4", "风筝#2要线#4"],
        ["我们明天#2去#3公园#4", "风筝要线#4"],
        ["我们#3明天去公园#4", "风#2筝要线#4"],
    ),
    "pause": (
        ["their poor parents<4>were just starving<1>as usual", "a b<2>c"],
        ["their poor parents<1>were just starving<3>as usual", "a b c"],
        ["their poor parents<4>were just starving as usual", "a<1>b c"],
    ),
}


@pytest.mark.parametrize("fmt", sorted(CONVENTIONS))
def test_every_convention_scores_like_its_inline_form(fmt, tmp_path, capsys):
    annot_a, annot_b, hyps = CONVENTIONS[fmt]
    paths = {}
    for name, lines in (("a", annot_a), ("b", annot_b), ("h", hyps)):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n")
        inline = tmp_path / f"{name}.inline.txt"
        assert main(["breaks", "convert", str(paths[name]), "--from", fmt, "--out", str(inline)]) == 0
        paths[name + "_inline"] = inline
    t, t_inline = tmp_path / "t.jsonl", tmp_path / "ti.jsonl"
    assert main(["breaks", "from-annotators", str(paths["a"]), str(paths["b"]), "--format", fmt, "--out", str(t)]) == 0
    assert (
        main(["breaks", "from-annotators", str(paths["a_inline"]), str(paths["b_inline"]), "--out", str(t_inline)]) == 0
    )
    capsys.readouterr()
    from_convention = _consensus_scores(capsys, t, paths["h"], "--format", fmt)
    from_inline = _consensus_scores(capsys, t_inline, paths["h_inline"])
    assert from_convention == from_inline and len(from_inline) == 2
    assert all(0 < s < 1 for s in from_inline)


def test_custom_label_set_through_a_label_map(tmp_path, capsys):
    """Pause buckets mapped onto a three-label set: none, break, end."""
    label_map = tmp_path / "map.json"
    label_map.write_text(json.dumps({"0": "none", "1": "none", "2": "break", "3": "break"}))
    (tmp_path / "a.txt").write_text("a b<2>c d<3>e\n")
    (tmp_path / "b.txt").write_text("a b<1>c d<2>e\n")
    (tmp_path / "h.txt").write_text("a<3>b c d<2>e\n")
    opts = ["--labels", "none,break,end", "--label-map", str(label_map), "--format", "pause"]
    t = tmp_path / "t.jsonl"
    assert (
        main(["breaks", "from-annotators", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--out", str(t), *opts])
        == 0
    )
    capsys.readouterr()
    scores = _consensus_scores(capsys, t, tmp_path / "h.txt", *opts)
    # junctures a|b: hyp break, refs none,none -> 0; b|c: none vs break,none -> 1/2; c|d: 1; d|e: 1
    assert scores == [pytest.approx((0 + 0.5 + 1 + 1) / 4)]


# ---- the command line and the report --------------------------------------------------------------


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.in_hyps, self.rows, self.strips, self.svgs, self.scripts = False, 0, 0, 0, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.in_hyps = a.get("id") == "hyps"
        elif tag == "tr" and self.in_hyps and "data-accepted" in a:
            self.rows += 1
        elif tag == "span" and a.get("class") == "s" and "title" in a:
            self.strips += 1
        elif tag == "svg":
            self.svgs += 1
        elif tag == "script":
            self.scripts += 1


def test_cli_every_metric_side_by_side(examples, tmp_path, capsys):
    d = examples / "breaks"
    out, report = tmp_path / "res.csv", tmp_path / "report.html"
    argv = ["breaks", "score", "--refs", str(d / "table.jsonl"), "--hyps", str(d / "hypotheses.tsv")]
    argv += ["--human", str(d / "human.tsv"), "--metric", "em,f1,consensus", "--resamples", "300"]
    assert main([*argv, "--out", str(out), "--report", str(report), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert list(s["metrics"]) == ["em", "f1", "consensus"]
    for m in s["metrics"].values():
        for key in ("pearson", "spearman", "single_pearson", "single_spearman"):
            assert m[key]["n"] == 72 and m[key]["ci_low"] <= m[key]["estimate"] <= m[key]["ci_high"]
    assert s["pearson"] == s["metrics"]["em"]["pearson"] and s["similarity"] == "em"
    header = out.read_text().splitlines()[0].split(",")
    assert {"score", "best_score", "em_score", "f1_score", "consensus_score", "consensus_agreement"} <= set(header)
    parsed = _Rows()
    parsed.feed(report.read_text())
    # 72 rows; a strip under every word but the last (3 texts x 24, 7-11 words each)
    n_words = sum(
        len(line.split("\t")[2].replace("<", " <").split())
        for line in (d / "hypotheses.tsv").read_text().splitlines()[1:]
    )
    assert parsed.rows == 72 and parsed.svgs == 1 + 3 + 1 and parsed.scripts == 2  # groups, scatters, theta sweep
    assert 0 < parsed.strips < n_words
    assert main(argv) == 0
    table_out = capsys.readouterr().out
    for name in ("em", "f1-typed", "consensus-typed"):
        assert name in table_out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--metric", "f1,support"], "unknown metric 'support'"),
        (["--metric", "f1,consensus", "--theta", "0.8"], "give one value per metric"),
        (["--metric", "consensus", "--f1", "per-label"], "per-label is an F1 variant only"),
    ],
)
def test_cli_bad_metric_options(examples, tmp_path, capsys, extra, message):
    d = examples / "breaks"
    out = tmp_path / "never.jsonl"
    argv = ["breaks", "score", "--refs", str(d / "table.jsonl"), "--hyps", str(d / "hypotheses.tsv"), "--out", str(out)]
    assert main([*argv, *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("voxjudge: error:") and message in err and not out.exists()


def test_a_secondary_metric_without_a_correlation_is_reported_not_fatal():
    t = ReferenceTable()
    for a, n in [("a b <IP> c d <SB>", 2), ("a <AP> b c d <SB>", 1)]:
        t.add(parse_inline(a), count=n)
    # every hypothesis matches a reference exactly (em constant at 1) but f1/consensus vary
    hyps = [("h0", "a b <IP> c d"), ("h1", "a <AP> b c d"), ("h2", "a b <IP> c d"), ("h3", "a <AP> b c d")]
    recs = score_hypotheses(t, [(i, parse_inline(a)) for i, a in hyps], [Similarity("consensus"), Similarity("em")])
    human = {"h0": 5, "h1": 2, "h2": 4, "h3": 1}
    s = summarize(recs, human, n_resamples=100)
    em = s["metrics"]["em"]
    assert em["pearson"] is None and "the em multi-reference scores are all equal" in em["agreement_undefined"]
    assert s["metrics"]["consensus"]["pearson"] is not None and s["agreement_undefined"] is None
    # the terminal and the HTML report both say why em has no correlation
    from voxjudge.breaks.report import _summary_section
    from voxjudge.cli.views.breaks import render_breaks_summary

    for shown in (render_breaks_summary(s), _summary_section(s)):
        assert "em: no agreement with human scores: the em multi-reference scores are all equal" in shown
    # the first metric still stops the run, naming itself
    first_em = score_hypotheses(t, [(i, parse_inline(a)) for i, a in hyps], [Similarity("em"), Similarity("f1")])
    with pytest.raises(InputError, match="the em multi-reference scores are all equal"):
        summarize(first_em, human, n_resamples=100)
