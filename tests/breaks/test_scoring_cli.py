from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
import scipy.stats as st

from voxjudge.breaks import ReferenceTable, Similarity, parse_inline, score_hypotheses, summarize
from voxjudge.cli.main import main
from voxjudge.errors import InputError


@pytest.fixture
def table():
    t = ReferenceTable()
    for a in ["a b <IP> c d <SB>", "a b <IP> c d <SB>", "a <AP> b c d <SB>", "x y <AP> z <SB>"]:
        t.add(parse_inline(a))
    return t


def test_best_reference_and_single_baseline(table):
    hyps = [
        ("h1", parse_inline("a <AP> b c d <SB>")),  # matches the second reference only
        ("h2", parse_inline("a b <IP> c d <SB>")),  # matches the most frequent one
        ("h3", parse_inline("x y z <SB>")),
        ("h4", parse_inline("p q <SB>")),
        ("h5", parse_inline("a b c e <SB>")),
    ]
    recs = score_hypotheses(table, hyps, Similarity("f1"), 0.8)
    r1, r2, r3, r4, r5 = recs
    assert (r1.best_score, r1.accepted, r1.single_score, r1.single_accepted) == (1.0, True, 0.0, False)
    assert r1.best_reference == "a <AP> b c d <SB>" and r1.n_references == 2
    assert (r2.best_score, r2.single_score) == (1.0, 1.0)
    assert (r3.best_score, r3.accepted) == (0.0, False)
    assert r4.error == "text not in the reference table" and r4.best_score is None
    assert r5.error == "words differ from the table text 'a b c d'"
    explicit = score_hypotheses(
        table, hyps[:1], Similarity("f1"), 0.8, single={"a b c d": parse_inline("a <AP> b c d")}
    )
    assert explicit[0].single_score == 1.0


def test_summary_statistics_and_groups(table):
    hyps = [
        (f"h{k}", parse_inline(a))
        for k, a in enumerate(
            [
                "a b <IP> c d <SB>",
                "a <AP> b c d <SB>",
                "a b c d <SB>",
                "a b c <IP> d <SB>",
                "x y <AP> z <SB>",
                "x <IP> y z <SB>",
            ]
        )
    ]
    human = {"h0": 5, "h1": 4, "h2": 2, "h3": 1, "h4": 5, "h5": 2}
    recs = score_hypotheses(table, hyps, Similarity("f1"), 0.8)
    s = summarize(recs, human, 0.8, Similarity("f1"), n_resamples=500)
    assert s["n"] == 6 and s["acceptance"] == pytest.approx(3 / 6) and s["single_acceptance"] == pytest.approx(2 / 6)
    best = [r.best_score for r in recs]
    assert s["pearson"]["estimate"] == pytest.approx(st.pearsonr(best, [human[r.id] for r in recs]).statistic)
    groups = {g["group"]: g for g in s["acceptance_by_group"]}
    assert groups[5]["rate"] == 1.0 and groups[4]["rate"] == 1.0 and groups[4]["single_rate"] == 0.0
    assert groups["all"]["n"] == 6
    assert [row["theta"] for row in s["theta_sweep"]] == [round(0.1 * k, 2) for k in range(10)]
    missing = "the human file has no entry for 1 of the 6 scored hypotheses in the run: .h5."
    with pytest.raises(InputError, match=missing):
        summarize(recs, {k: v for k, v in human.items() if k != "h5"}, 0.8, Similarity("f1"))


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


def test_cli_score_on_examples(examples, tmp_path, capsys):
    d = examples / "breaks"
    out, report = tmp_path / "res.jsonl", tmp_path / "report.html"
    code = main(
        [
            "breaks",
            "score",
            "--refs",
            str(d / "table.jsonl"),
            "--hyps",
            str(d / "hypotheses.tsv"),
            "--human",
            str(d / "human.tsv"),
            "--out",
            str(out),
            "--report",
            str(report),
            "--json",
            "--resamples",
            "500",
        ]
    )
    assert code == 0
    s = json.loads(capsys.readouterr().out)
    for key in ("n", "acceptance", "acceptance_by_group", "pearson", "spearman", "single_pearson", "single_spearman"):
        assert key in s
    assert s["n"] == 72 and s["pearson"]["estimate"] > s["single_pearson"]["estimate"]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {"id", "best_score", "accepted", "single_score"} <= set(rows[0]) and rows[0]["id"] == "h001"
    html = report.read_text()
    parser = _Collect()
    parser.feed(html)
    assert parser.tags.count("svg") == 3 and "Acceptance by human score" in html  # groups, scatter, theta sweep
    # the command is one library call: the same records and summary from Python
    from voxjudge.breaks import score_breaks

    result = score_breaks(d / "table.jsonl", d / "hypotheses.tsv", human=d / "human.tsv", n_resamples=500)
    assert json.loads(json.dumps(result.view(), default=str)) == s
    assert [json.loads(json.dumps(r)) for r in result.records] == rows


def test_cli_from_annotators_merge_convert_and_build_refs_with_its_dry_run(examples, tmp_path, capsys):
    d = examples / "breaks"
    t1, t2, merged = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "m.jsonl"
    assert main(["breaks", "from-annotators", str(d / "annotator_a.txt"), "--out", str(t1)]) == 0
    assert main(["breaks", "from-annotators", str(d / "annotator_b.txt"), "--out", str(t2)]) == 0
    assert main(["breaks", "merge", str(t1), str(t2), "--out", str(merged)]) == 0
    assert "24 texts, 48 references from 2 tables" in capsys.readouterr().out
    assert ReferenceTable.load(merged).reference_count == ReferenceTable.load(d / "table.jsonl").reference_count
    src = tmp_path / "tobi.txt"
    src.write_text("their|1 poor|1 parents|4 were|1 starving|4\n")
    assert main(["breaks", "convert", str(src), "--from", "tobi"]) == 0
    assert capsys.readouterr().out == "their poor parents <IP> were starving <SB>\n"
    # build-refs with the fake judge, then score against the new table
    table = tmp_path / "built.jsonl"
    code = main(
        [
            "breaks",
            "build-refs",
            "--texts",
            str(d / "texts.txt"),
            "--pool",
            str(d / "pool.txt"),
            "--judge",
            "fake/echo-annotator",
            "--n-iter",
            "2",
            "--out",
            str(table),
            "--cache",
            str(tmp_path / "c.sqlite"),
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["texts"] == 24 and report["references_kept"] == 24 and report["usage"]["requests"] == 2
    assert (
        main(
            [
                "breaks",
                "build-refs",
                "--texts",
                str(d / "texts.txt"),
                "--pool",
                str(d / "pool.txt"),
                "--judge",
                "fake/echo-annotator",
                "--out",
                str(table),
                "--dry-run",
                "--no-cache",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["requests"] == 20
    # the command is one library call: the same table and accounting from Python
    from voxjudge.breaks import BuildConfig, LabelSet, build_estimate, build_table, read_annotations, read_plain_texts
    from voxjudge.llm import Judge

    texts = read_plain_texts(d / "texts.txt", LabelSet())
    pool = [a for _, a in read_annotations(d / "pool.txt")]
    judge = Judge("fake/echo-annotator", cache=None)
    try:
        assert build_estimate(judge, texts, pool, BuildConfig())["requests"] == 20
        result = build_table(judge, texts, pool, BuildConfig(n_iter=2))
    finally:
        judge.close()
    assert list(result.table.records()) == [json.loads(line) for line in table.read_text().splitlines()]
    shown = {k: v for k, v in result.summary.items() if k not in ("usage", "unscored_reasons", "annotations_wanted")}
    assert shown == {k: v for k, v in report.items() if k not in ("usage", "table", "settings")}
    assert result.settings == report["settings"] and result.summary["usage"]["requests"] == 2


@pytest.fixture(autouse=True)
def _echo_annotator(monkeypatch):
    """A fake judge that returns every text with a sentence boundary only (for this test only)."""
    from voxjudge.llm.providers import fake

    def script(request, index):
        items = json.loads(request.messages[-1].text_content.split("Items:\n", 1)[1])
        return {"items": [{"id": it["id"], "annotation": it["text"] + " <SB>"} for it in items]}

    monkeypatch.setitem(fake._SCRIPTS, "echo-annotator", script)


def test_cli_score_exits_3_when_hypotheses_are_unscored(tmp_path, capsys):
    table, hyps = tmp_path / "t.jsonl", tmp_path / "h.txt"
    table.write_text(json.dumps({"text": "Hello, world again", "references": [{"boundaries": "IP NB SB"}]}) + "\n")
    hyps.write_text("Hello <IP> world again <SB>\n")  # the table's text, written differently
    assert main(["breaks", "score", "--ref", str(table), "--hyp", str(hyps), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["coverage"]["unscored"] == 0
    hyps.write_text("other words <SB>\nmore other words <SB>\n")
    assert main(["breaks", "score", "--ref", str(table), "--hyp", str(hyps), "--json"]) == 3
    assert json.loads(capsys.readouterr().out)["coverage"]["unscored"] == 2


def test_result_unscored_reads_the_coverage(table):
    from voxjudge.breaks.result import scored

    recs = score_hypotheses(table, [("h1", parse_inline("a b c d")), ("h2", parse_inline("p q"))], Similarity("f1"))
    assert scored(recs, {}).unscored == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--hyps", "{d}/hypotheses.tsv", "--refs", "{tmp}/none.jsonl"], "no such file"),
        (["--hyps", "{tmp}/bad.txt", "--refs", "{d}/table.jsonl"], "bad.txt:1: unknown boundary label 'QQ'"),
        (
            ["--hyps", "{d}/hypotheses.tsv", "--refs", "{d}/table.jsonl", "--human", "{tmp}/few.tsv"],
            "few.tsv has no entry for 71 of the 72 scored hypotheses",
        ),
        (
            ["--hyps", "{d}/hypotheses.tsv", "--refs", "{d}/table.jsonl", "--resamples", "0"],
            "--resamples must be at least 1",
        ),
        (["--hyps", "{d}/hypotheses.tsv", "--refs", "{tmp}/empty.jsonl"], "file is empty"),
        (
            ["--hyps", "{d}/hypotheses.tsv", "--refs", "{d}/table.jsonl", "--single", "{tmp}/single.txt"],
            "single.txt:2: text 'a b' is annotated again (first on line 1)",
        ),
    ],
)
def test_cli_score_bad_input(examples, tmp_path, capsys, argv, message):
    (tmp_path / "bad.txt").write_text("a <QQ> b\n")
    (tmp_path / "few.tsv").write_text("id\tscore\nh001\t5\n")
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "single.txt").write_text("a b <SB>\nA b. <SB>\n")
    argv = [a.format(d=examples / "breaks", tmp=tmp_path) for a in argv]
    assert main(["breaks", "score", *argv]) == 2
    assert message in capsys.readouterr().err


def test_from_annotators_counts_each_file_once_and_names_it(tmp_path, capsys):
    (tmp_path / "d1").mkdir()
    (tmp_path / "d2").mkdir()
    one, two, out = tmp_path / "d1" / "ann.txt", tmp_path / "d2" / "ann.txt", tmp_path / "t.jsonl"
    one.write_text("a b <IP> c <SB>\na b <IP> c <SB>\nA, b <IP> c. <SB>\n")  # one annotator, one phrasing
    two.write_text("a b <IP> c <SB>\n")
    assert main(["breaks", "from-annotators", str(one), str(two), "--out", str(out)]) == 0
    ref = json.loads(out.read_text())["references"][0]
    assert ref["count"] == 2 == len(ref["generators"]) == len(ref["iterations"])
    assert ref["generators"] == [str(one), str(two)]  # the names alone would collapse
    for cmd, files in (("from-annotators", [one, one]), ("merge", [out, out])):
        assert main(["breaks", cmd, *map(str, files), "--out", str(tmp_path / "o.jsonl")]) == 2
        assert "is given twice" in capsys.readouterr().err
