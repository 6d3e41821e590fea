"""``asr judge-card`` end to end: figures against jiwer and scipy-backed oracles on the shipped
human examples, bad input, and LLM judges (scripted fake provider, OpenAI-compatible fake server)
whose unscored hypotheses show as coverage and exit 3."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import jiwer
import numpy as np
import pytest
import scipy.stats

from voxjudge.asr.normalize import get_normalizer
from voxjudge.asr.preference import preference_agreement, read_preferences
from voxjudge.asr.ratings import read_ratings
from voxjudge.cli.main import main
from voxjudge.llm.fakeserver import FakeLLMServer
from voxjudge.stats import agreement, resample_chunks


@pytest.fixture
def human(examples):
    return examples / "human" / "hats_sample.tsv", examples / "human" / "ratings_sample.csv"


def _run(capsys, *argv):
    code = main(["asr", "judge-card", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_card_on_the_shipped_examples_matches_independent_oracles(human, capsys, tmp_path):
    prefs_path, ratings_path = human
    out = tmp_path / "card.jsonl"
    code, stdout, _ = _run(
        capsys, "--preferences", prefs_path, "--ratings", ratings_path, "--resamples", 300, "--json", "--out", out
    )
    assert code == 0
    s = json.loads(stdout)
    assert [m["name"] for m in s["metrics"]] == ["WER", "CER", "LASER default", "LASER default calibrated"]
    assert s["metrics"][3]["fitted"] == "fitted to people from the rubric score"  # the shipped model without meaning
    # counted with awk over the file: 15 unanimous triplets, 35 with >= 70%, 41 in all
    assert s["preferences"]["levels"] == {"100%": 15, "70%": 35, "all": 41}
    norm = get_normalizer("basic")
    prefs = read_preferences(prefs_path)
    for name, measure in (("WER", jiwer.wer), ("CER", jiwer.cer)):
        a = [measure(norm(p.reference), norm(p.hyp_a)) for p in prefs]
        b = [measure(norm(p.reference), norm(p.hyp_b)) for p in prefs]
        want = preference_agreement(prefs, a, b, higher_is_better=False, n_resamples=300)
        cells = s["preferences"]["by_metric"][name]
        assert cells == [lv.as_dict() for lv in want]
        # each cell names the references its bootstrap resampled (every triplet scored here)
        shares = [max(p.votes_a, p.votes_b) / (p.votes_a + p.votes_b) for p in prefs]
        for cell in cells:
            assert cell["groups"] == len({p.reference for p, x in zip(prefs, shares) if x >= cell["threshold"]})
    ratings = read_ratings(ratings_path)
    en = [r for r in ratings if r.lang == "en"]
    wer_en = [1 - jiwer.wer(norm(r.reference), norm(r.hypothesis)) for r in en]
    (pearson, *_) = agreement(wer_en, [r.score for r in en], n_resamples=300)
    got = s["ratings"]["by_subset"]["en"]["by_metric"]["WER"]["pearson"]
    assert (got["estimate"], got["p_value"], got["n"]) == (pearson.estimate, pearson.p_value, pearson.n)
    # the CI resamples whole utterances: scipy on each resample's hypotheses, the references drawn as
    # the bootstrap draws them (seed 0)
    refs = list(dict.fromkeys(r.reference for r in en))
    x, y = np.array(wer_en), np.array([r.score for r in en])
    rs = []
    for row in next(resample_chunks(len(refs), 300, 0)):
        take = [k for g in row for k, r in enumerate(en) if r.reference == refs[g]]
        rs.append(scipy.stats.pearsonr(x[take], y[take]).statistic)
    assert (got["ci_low"], got["ci_high"]) == pytest.approx(tuple(np.quantile(rs, [0.025, 0.975])), abs=1e-12)
    # a paired difference from the same resamples: LASER - WER, per language
    (d,) = [
        d
        for d in s["ratings"]["by_subset"]["en"]["differences"]
        if (d["a"], d["b"], d["method"]) == ("LASER default", "WER", "pearson")
    ]
    assert d["difference"] == pytest.approx(d["a_estimate"] - pearson.estimate)
    assert d["ci_low"] <= d["difference"] <= d["ci_high"] and d["groups"] == len(refs)
    assert [(d["a"], d["b"]) for d in s["preferences"]["differences"]][::3] == [
        ("CER", "WER"),
        ("LASER default", "WER"),
        ("LASER default", "CER"),
        ("LASER default calibrated", "WER"),
        ("LASER default calibrated", "CER"),
        ("LASER default calibrated", "LASER default"),
    ]
    assert set(s["ratings"]["by_subset"]) == {"all", "ar", "en", "ml"} and s["ratings"]["methods"] == [
        "pearson",
        "spearman",
    ]
    assert 0.8 < s["ratings"]["by_subset"]["all"]["raters"]["ceiling"] <= 1
    records = [json.loads(line) for line in out.read_text().splitlines()]
    # one record per human datum (each side of each triplet, each rated hypothesis), none merged
    assert len(records) == s["coverage"]["WER"]["total"] == 2 * len(prefs) + len(ratings)
    assert [(r["reference"], r["hypothesis"]) for r in records] == [
        (p.reference, h) for p in prefs for h in (p.hyp_a, p.hyp_b)
    ] + [(r.reference, r.hypothesis) for r in ratings]
    assert set(records[0]) == {
        *("source", "id", "system", "lang", "triplet", "line", "side", "reference", "hypothesis"),
        *("human", "votes", "votes_other", "WER", "CER", "LASER default", "LASER default calibrated"),
    }
    rated = [r for r in records if r["source"] == "ratings"]
    assert [r["id"] for r in rated] == [r.id for r in ratings] and rated[0]["system"] == "mms"
    # laser_calibrated, computed by hand from the shipped model; a figure of its own on preferences too
    from voxjudge.asr.laser.calibration_file import load_people

    m = load_people()["none"]
    for r in records:
        laser = r["LASER default"]
        want = min(1.0, max(0.0, m.intercept + m.rubric * np.sqrt(1 - laser)))
        assert r["LASER default calibrated"] == pytest.approx(want, abs=1e-12)
    assert "LASER default calibrated" in s["preferences"]["by_metric"]
    calibrated = s["ratings"]["by_subset"]["en"]["by_metric"]["LASER default calibrated"]["pearson"]
    score = {q.id: q.score for q in en}  # the rated records carry their ids: no join on texts
    x = [r["LASER default calibrated"] for r in rated if r["id"] in score]
    y = [score[r["id"]] for r in rated if r["id"] in score]
    assert calibrated["estimate"] == pytest.approx(scipy.stats.pearsonr(x, y).statistic, abs=1e-12)


def test_the_table_puts_every_metric_side_by_side(human, capsys):
    code, stdout, _ = _run(
        capsys, "--preferences", human[0], "--judge", "default", "--judge", "rules", "--resamples", 50
    )
    assert code == 0
    card, differences = stdout.split("Differences, preferences")
    rows = [line for line in card.splitlines() if line.startswith("│")]
    # the rows name what they show: the card correlates 1 - WER, as asr score --human names it
    assert [r.split("│")[1].strip() for r in rows] == [
        "1 - WER",
        "1 - CER",
        "LASER default",
        "LASER default calibrated (fitted to people)",
        "LASER rules",
    ]
    pairs = [r.split("│")[1].strip() for r in differences.splitlines() if r.startswith("│")]
    assert pairs == [
        "(1 - CER) - (1 - WER)",
        "LASER default - (1 - WER)",
        "LASER default - (1 - CER)",
        "LASER default calibrated (fitted to people) - (1 - WER)",
        "LASER default calibrated (fitted to people) - (1 - CER)",
        "LASER default calibrated (fitted to people) - LASER default",
        "LASER rules - (1 - WER)",
        "LASER rules - (1 - CER)",
        "LASER rules - LASER default",
        "LASER rules - LASER default calibrated (fitted to people)",
    ]
    assert "prefer 100% (n=15)" in stdout and "a tie counts as disagreement" in stdout
    assert "ratings" not in stdout.split("\n", 3)[2]  # no ratings column without --ratings
    footnote = " ".join(stdout.split())
    assert "1 - WER, 1 - CER: the card correlates 1 - each of these" in footnote
    assert "SemDist" not in stdout  # defined only when shown (with --embedder)


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "give human data: --preferences FILE, --ratings FILE, or both"),
        (["--preferences", "missing.tsv"], "missing.tsv: no such file"),
        (["--preferences", "{prefs}", "--normalize", "shouty"], "unknown normalization 'shouty'"),
        (["--preferences", "{prefs}", "--resamples", "0"], "--resamples must be at least 1"),
        (["--ratings", "{ratings}", "--methods", "pearson,tau"], "--methods takes pearson, spearman and/or kendall"),
        (
            ["--ratings", "{prefs}"],
            "ratings need columns hyp, a score (score, human_mean or rating; another column with --ratings-col)",
        ),
        (["--ratings", "{ratings}", "--ratings-group-col", "speaker"], "speaker (named by --ratings-group-col)"),
        # --base-url is for the card's LLM judges: with none it would be ignored in silence
        (
            ["--ratings", "{ratings}", "--base-url", "http://127.0.0.1:9/v1"],
            "--base-url is an LLM judge's server, and no judge of the card (default: all offline) calls one",
        ),
        (
            [
                "--ratings",
                "{ratings}",
                "--judge",
                "rules",
                "--judge",
                "default",
                "--embedder",
                "openai/x",
                "--base-url",
                "http://127.0.0.1:9/v1",
            ],
            "(rules, default: all offline) calls one; give the embedder's server with --embedder-base-url",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(human, capsys, argv, message):
    argv = [a.replace("{prefs}", str(human[0])).replace("{ratings}", str(human[1])) for a in argv]
    code, stdout, stderr = _run(capsys, *argv)
    assert code == 2 and stdout == ""
    assert stderr.startswith("voxjudge: error: ") and message in stderr and stderr.count("\n") == 1


def test_ratings_group_column_chooses_what_moves_together(human, capsys):
    base = ["--ratings", human[1], "--resamples", 200, "--methods", "pearson", "--json"]
    by_reference = json.loads(_run(capsys, *base)[1])["ratings"]["by_subset"]["all"]
    by_utterance = json.loads(_run(capsys, *base, "--ratings-group-col", "utterance")[1])["ratings"]["by_subset"]["all"]
    by_system = json.loads(_run(capsys, *base, "--ratings-group-col", "system")[1])["ratings"]["by_subset"]["all"]
    # the example's utterance column names its references one to one: the same resamples
    assert by_reference == by_utterance and by_reference["groups"] == 12
    assert by_system["groups"] == 4 and by_system["by_metric"] != by_reference["by_metric"]
    assert (
        by_system["by_metric"]["WER"]["pearson"]["estimate"] == by_reference["by_metric"]["WER"]["pearson"]["estimate"]
    )


def _items(request) -> list[dict]:
    prompt = next(m.text_content for m in request.messages if "Pairs:\n" in m.text_content)
    return json.loads(prompt.split("Pairs:\n", 1)[1])


def test_an_llm_judge_that_fails_on_some_hypotheses_shows_coverage_and_exits_3(tmp_path, capsys, monkeypatch):
    from voxjudge.llm.providers import fake

    def answer(request, index):
        items = _items(request)
        if any("zzz" in json.dumps(it, ensure_ascii=False) for it in items):
            return {"items": []}  # never a valid answer for this hypothesis
        return {"items": [{"id": it["id"], "error_type": "wrong_word", "tier": "major", "reason": "r"} for it in items]}

    monkeypatch.setitem(fake._SCRIPTS, "card-partial", answer)
    prefs = tmp_path / "p.tsv"
    prefs.write_text(
        "reference\thyp_a\tvotes_a\thyp_b\tvotes_b\n"
        "the cat sat on the mat\tthe cat sat on a mat\t5\tthe bat sat on the hat\t0\n"
        "we meet at noon today\twe met at noon today\t4\twe meet at zzz today\t1\n"
        "please call me later\tplease call me layter\t6\tplease fall me later\t1\n",
        encoding="utf-8",
    )
    code, stdout, stderr = _run(
        capsys, "--preferences", prefs, "--judge", "rules", "--judge", "fake/card-partial",
        "--cache", tmp_path / "c.sqlite", "--resamples", 50, "--max-retries", 0,
    )  # fmt: skip
    assert code == 3
    first = stdout.splitlines()[0]
    assert first.startswith("partial: LASER fake/card-partial scored 5 of 6 hypotheses (1 unscored)")
    assert "LASER fake/card-partial" in stdout and "*" in stdout
    assert "voxjudge: incomplete: 1 of 6 hypotheses" in stderr
    code, stdout, _ = _run(
        capsys, "--preferences", prefs, "--judge", "fake/card-partial", "--cache", tmp_path / "c.sqlite",
        "--resamples", 50, "--max-retries", 0, "--json",
    )  # fmt: skip
    s = json.loads(stdout)
    assert code == 3 and s["coverage"]["LASER fake/card-partial"] == {"scored": 5, "total": 6}
    cell = s["preferences"]["by_metric"]["LASER fake/card-partial"][-1]
    assert (cell["n"], cell["judged"], cell["unscored"]) == (3, 2, 1)  # the unscored triplet is not a disagreement
    usage = s["runs"]["LASER fake/card-partial"]["usage"]
    assert usage["requests"] + usage["cache_hits"] >= 1  # the rerun answered from the cache


def test_an_llm_judge_over_an_openai_compatible_server(tmp_path, capsys):
    prefs = tmp_path / "p.csv"
    prefs.write_text(
        "ref,hyp_a,hyp_b,choice\n"
        "the cat sat on the mat,the cat sat on a mat,the bat sat on the hat,a\n"
        "the cat sat on the mat,the cat sat on a mat,the bat sat on the hat,A\n"
        "we meet at noon,we met at noon,we meet at new,b\n"
        "please call me later,please call me layter,please fall me later,a\n",
        encoding="utf-8",
    )
    with FakeLLMServer() as srv:
        code, stdout, stderr = _run(  # --base-url is the LLM judge's: the offline one beside it runs as ever
            capsys, "--preferences", prefs, "--judge", "rules", "--judge", "openai/judge-model", "--base-url",
            srv.url + "/v1", "--no-cache", "--resamples", 50, "--json",
        )  # fmt: skip
        sent = srv.count()
    s = json.loads(stdout)
    assert code == 0, stderr
    assert s["coverage"]["LASER openai/judge-model"] == {"scored": 6, "total": 6} and sent >= 1
    assert s["coverage"]["LASER rules"] == {"scored": 6, "total": 6}
    assert s["preferences"]["triplets"] == 3 and s["preferences"]["votes"] == 4
    assert s["runs"]["LASER openai/judge-model"]["usage"]["requests"] == sent


def test_dry_run_estimates_each_llm_judge_and_sends_nothing(human, capsys):
    code, stdout, _ = _run(
        capsys, "--preferences", human[0], "--judge", "default", "--judge", "openai/gpt-4o-mini", "--dry-run"
    )
    s = json.loads(stdout)
    assert code == 0 and list(s["judges"]) == ["openai/gpt-4o-mini"]
    prefs = read_preferences(human[0])
    assert s["hypotheses"] == len({(p.reference, h) for p in prefs for h in (p.hyp_a, p.hyp_b)})  # 75 of 82
    assert s["judges"]["openai/gpt-4o-mini"]["requests"] >= 1


def test_dry_run_with_offline_judges_only_says_there_is_nothing_to_send(human, capsys):
    code, stdout, _ = _run(capsys, "--preferences", human[0], "--judge", "rules", "--judge", "default", "--dry-run")
    s = json.loads(stdout)
    assert code == 0 and s["judges"] == {}
    assert s["note"].startswith("nothing to send: every judge on the card runs on this machine")


def test_ratings_by_id_join_the_texts_and_a_partial_join_needs_allow_partial(examples, capsys, tmp_path):
    hi = examples / "asr" / "hi"
    texts = ["--ref", hi / "ref.txt", "--hyp", hi / "sys_b.txt", "--ids", "--resamples", 200]
    code, stdout, _ = _run(capsys, "--ratings", hi / "human_b.tsv", *texts, "--json")
    s = json.loads(stdout)
    assert code == 0 and s["ratings"]["items"] == 50 and not s["ratings"]["join"]["partial"]
    # the same numbers as asr score --human computes for LASER and 1 - WER on these files
    assert main(["asr", "score", "--ref", str(hi / "ref.txt"), "--hyp", str(hi / "sys_b.txt"), "--ids",
                 "--human", str(hi / "human_b.tsv"), "--resamples", "200", "--json"]) == 0  # fmt: skip
    score = json.loads(capsys.readouterr().out)["agreement"]
    cell = s["ratings"]["by_subset"]["all"]["by_metric"]
    # one hypothesis per reference: resampling utterances is resampling hypotheses, as there
    laser, want = cell["LASER default"]["pearson"], score["laser"][0]
    assert {k: laser[k] for k in ("estimate", "p_value", "n")} == {k: want[k] for k in ("estimate", "p_value", "n")}
    assert (laser["ci_low"], laser["ci_high"]) == pytest.approx((want["ci_low"], want["ci_high"]), abs=1e-12)
    assert cell["WER"]["pearson"]["estimate"] == pytest.approx(score["one_minus_wer"][0]["estimate"], abs=1e-12)
    few = tmp_path / "few.tsv"
    few.write_text("".join((hi / "human_b.tsv").read_text().splitlines(keepends=True)[:11]), encoding="utf-8")
    code, stdout, stderr = _run(capsys, "--ratings", few, *texts)
    assert code == 2 and "has no entry for 40 of the 50 hypotheses" in stderr and "--allow-partial" in stderr
    code, stdout, _ = _run(capsys, "--ratings", few, *texts, "--allow-partial")
    assert code == 0 and stdout.startswith("partial: 10 of 50 hypotheses of ")
    assert "ratings Pearson (n=10)" in stdout


def test_ref_and_hyp_only_with_ratings(examples, human, capsys):
    hi = examples / "asr" / "hi"
    code, _, stderr = _run(capsys, "--preferences", human[0], "--ref", hi / "ref.txt", "--hyp", hi / "sys_b.txt")
    assert code == 2 and "add --ratings" in stderr
    code, _, stderr = _run(capsys, "--ratings", hi / "human_b.tsv", "--ref", hi / "ref.txt")
    assert code == 2 and "--ref and --hyp go together" in stderr


def test_out_has_one_record_per_rated_hypothesis_by_id(examples, capsys, tmp_path):
    """Ratings by id with --ref/--hyp: every rated hypothesis is a record with its id, and the
    coverage, the ratings' items and the records agree, whatever texts repeat."""
    hi = examples / "asr" / "hi"
    out = tmp_path / "card.csv"
    code, stdout, _ = _run(
        capsys, "--ratings", hi / "human_b.tsv", "--ref", hi / "ref.txt", "--hyp", hi / "sys_b.txt", "--ids",
        "--resamples", 50, "--split-halves", 10, "--json", "--out", out,
    )  # fmt: skip
    assert code == 0
    s = json.loads(stdout)
    with open(out, newline="", encoding="utf-8") as f:
        records = list(csv.DictReader(f))
    ids = [line.split("\t")[0] for line in (hi / "human_b.tsv").read_text(encoding="utf-8").splitlines()[1:] if line]
    assert [r["id"] for r in records] == ids
    assert {c["total"] for c in s["coverage"].values()} == {len(ids)} == {s["ratings"]["items"]}


def test_repeated_texts_stay_apart_in_out_and_coverage(human, capsys, tmp_path):
    out = tmp_path / "card.jsonl"
    code, stdout, _ = _run(
        capsys, "--ratings", human[1], "--resamples", 50, "--split-halves", 10, "--json", "--out", out
    )
    assert code == 0
    s = json.loads(stdout)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    texts = [(r["reference"], r["hypothesis"]) for r in records]
    assert len(set(texts)) < len(texts)  # the sample has systems with the same output: kept apart
    assert len(records) == s["ratings"]["items"] == s["coverage"]["WER"]["total"] == 48
    assert all(r["id"] and r["system"] and r["lang"] for r in records)


def test_semdist_row_is_labelled_and_defined_when_shown(human, capsys):
    argv = ["--ratings", human[1], "--judge", "rules", "--embedder", "fake/hash", "--resamples", 50]
    code, stdout, _ = _run(capsys, *argv)
    assert code == 0
    rows = [line.split("│")[1].strip() for line in stdout.splitlines() if line.startswith("│")]
    assert rows[3] == "1 - SemDist (fake/hash?dim=64)"  # the card correlates 1 - SemDist
    footnote = " ".join(stdout.split())
    assert "SemDist = 1 - cosine of sentence embeddings" in footnote
    assert "1 - WER, 1 - CER, 1 - SemDist (fake/hash?dim=64): the card correlates 1 - each of these" in footnote


def test_help_says_what_it_means(capsys):
    with pytest.raises(SystemExit):
        main(["asr", "judge-card", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "%%" not in text and "certitude 100% (unanimous), 70% and all" in text
    assert "--normalize SPEC" in text and "PRESET" not in text
    assert "steps joined by '+'" in text and "default: basic" in text and "'asr score' puts beside LASER" in text


def test_a_difference_on_a_few_groups_gets_no_mark(human, capsys, tmp_path):
    """One triplet gave '+100.0 [+100.0, +100.0] !': one group has one distinct resample."""
    prefs_path, _ = human
    lines = Path(prefs_path).read_text(encoding="utf-8").splitlines(keepends=True)
    one = tmp_path / "one.tsv"
    one.write_text(lines[0] + lines[3], encoding="utf-8")
    code, out, _ = _run(capsys, "--preferences", one, "--judge", "rules")
    # (one group: no interval at all now, and the footnote says why; see test_review_judge_card.py)
    assert code == 0 and "+100.0" in out and "[+100.0, +100.0]" not in out and "no CI" in out
    assert " !" not in out.split("Differences", 1)[1].split("differences:", 1)[0]
    assert "on 10 or more groups" in out


def test_options_that_would_do_nothing_are_refused(human, capsys):
    prefs_path, _ = human
    code, _, err = _run(capsys, "--preferences", prefs_path, "--judge", "rules", "--allow-partial")
    assert code == 2 and "--allow-partial goes with --ref/--hyp" in err


def test_the_raters_ceiling_is_shown_in_pearson_columns_only(human, capsys):
    """It stood in the Spearman column: a Pearson figure read as a Spearman one."""
    _, ratings_path = human
    code, out, _ = _run(capsys, "--ratings", ratings_path, "--judge", "rules", "--methods", "spearman")
    assert code == 0 and "raters' ceiling" not in out
    code, out, _ = _run(capsys, "--ratings", ratings_path, "--judge", "rules")
    assert code == 0 and "raters' ceiling" in out


def test_the_default_judges_calibrated_tiers_are_named_in_the_footnote(human, capsys):
    """Only laser_calibrated was said to be fitted; the default judge's tiers were chosen on people too."""
    prefs_path, _ = human
    code, out, _ = _run(capsys, "--preferences", prefs_path)
    assert code == 0 and "LASER default's tiers are calibrated on people" in out
    code, out, _ = _run(capsys, "--preferences", prefs_path, "--judge", "rules")
    assert code == 0 and "tiers are calibrated on people" not in out


@pytest.mark.parametrize("source", ["ratings", "preferences"])
def test_a_text_the_embedder_cannot_embed_is_named_as_the_files_name_it(human, capsys, tmp_path, source):
    """The message named the card's internal text number ("first h4"), which no file has."""
    prefs_path, ratings_path = human
    if source == "ratings":
        rows = list(csv.DictReader(ratings_path.open(encoding="utf-8")))
        bad = rows[2]["id"]
        rows[2]["hyp"] = "ZQX " + rows[2]["hyp"]
        path = tmp_path / "ratings.csv"
        with path.open("w", encoding="utf-8", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        want = f"first rating {bad}:"
    else:
        lines = prefs_path.read_text(encoding="utf-8").splitlines()
        cells = lines[3].split("\t")
        cells[3] = "ZQX " + cells[3]  # triplet 3's hyp_b, on line 4 of the file
        lines[3] = "\t".join(cells)
        path = tmp_path / "prefs.tsv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        want = "first triplet 3 (line 4) hyp_b:"
    code, _, err = _run(capsys, f"--{source}", path, "--judge", "rules", "--embedder", "fake/hash?reject=ZQX")
    assert code == 3, err
    assert "could not embed 1 utterance(s), " + want in err, err
