"""SemDist: 1 - cosine against an independent oracle (the fake embedder's vectors, normalised by
hand), its rules without a model call, its stop on a failed text, and where it shows up
(asr metrics, compare with significance, score records)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voxjudge.asr.compare import compare_systems
from voxjudge.asr.measures import compute_metrics
from voxjudge.asr.semdist import EmbedderFailed, compute_semdist, semantic_distances, semdist_text
from voxjudge.cli.main import main
from voxjudge.llm.options import open_embedder
from voxjudge.llm.scripts import hashed_vector


def _oracle(ref: str, hyp: str) -> float:
    a, b = hashed_vector("hash", ref, 64), hashed_vector("hash", hyp, 64)
    return 1.0 - float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_semdist_is_one_minus_the_cosine_and_asks_only_what_it_needs():
    refs = ["the cat sat", "the cat sat", "", "", "a dog", "وَأَمَّا الشِّبْرُ"]
    hyps = ["the bat sat", "the  cat sat", "", "words", "a dog", "وأما الشبر"]
    embedder = open_embedder("fake/hash", cache=False)
    try:
        found = semantic_distances(embedder, refs, hyps)
        sent = [t for batch in embedder.backend.sent for t in batch]
    finally:
        embedder.close()
    assert found.distances[0] == pytest.approx(_oracle("the cat sat", "the bat sat"), abs=1e-6)
    # the same after white space and tashkeel are folded: 0; both empty 0; one empty 1; no call for them
    assert list(found.distances[1:]) == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert sorted(sent) == ["the bat sat", "the cat sat"]
    assert found.mean() == pytest.approx(np.mean(found.distances)) and not found.failed
    assert semdist_text("  a\u0651  b ") == "a b"


def test_a_text_of_punctuation_alone_is_empty_as_laser_reads_it():
    """A bare "." got the encoder's distance (0.16 with e5), closer in meaning than wrong words."""
    refs = ["the cat sat", "the cat sat", ".", "नमस्ते।", "١٢"]
    hyps = [".", " ... !? ", "", "।", "¿"]
    embedder = open_embedder("fake/hash", cache=False)
    try:
        found = semantic_distances(embedder, refs, hyps)
        assert not embedder.backend.sent  # nothing to ask
    finally:
        embedder.close()
    assert list(found.distances) == [1.0, 1.0, 0.0, 1.0, 1.0]
    assert semdist_text("- ¡ -") == "" and semdist_text("٣ .") == "٣ ." and semdist_text("ক।") == "ক।"


def test_invisible_characters_and_malayalams_two_chillu_spellings_are_the_same_text():
    """A hypothesis that renders as its reference is 0, without a call: the old chillu spelling
    (consonant + virama + ZWJ) is the atomic chillu letter; zero-width characters are nothing."""
    refs = ["അവൻ അവൾക്ക് പാൽ കൊടുത്തു", "data set", "नमस्ते", "مرحبا بك"]
    hyps = [
        "അവന്\u200d അവള്\u200dക്ക് പാല്\u200d കൊടുത്തു",
        "da\u200bta\u00ad set\ufeff",
        "नमस्\u200cते",
        "\u2067مرحبا\u2069 بك\u200f\u061c",
    ]
    embedder = open_embedder("fake/hash", cache=False)
    try:
        found = semantic_distances(embedder, refs, hyps)
        assert not embedder.backend.sent
    finally:
        embedder.close()
    assert list(found.distances) == [0.0, 0.0, 0.0, 0.0]
    assert semdist_text("\u200b\u200d") == ""


def test_a_text_the_embedder_cannot_embed_stops_the_run_naming_the_utterance():
    with pytest.raises(EmbedderFailed, match="could not embed 1 utterance.*first u2: .*nothing was scored"):
        compute_semdist("fake/hash?reject=BAD", ["a b", "c d"], [["a c", "BAD d"]], ["u1", "u2"])


def test_metrics_and_compare_carry_semdist_with_a_paired_bootstrap():
    refs, a = ["one two three", "four five", "six"], ["one two tree", "four five", "sex"]
    b = ["on to three", "for", "x"]
    result = compute_metrics(refs, a, embedder="fake/hash")
    want = [_oracle(r, h) if r != h else 0.0 for r, h in zip(refs, a)]
    assert [u["semdist"] for u in result.per_utterance()] == pytest.approx(want, abs=1e-6)
    assert result.summary()["semdist"] == pytest.approx(np.mean(want), abs=1e-6)
    assert result.summary()["embedder"].startswith("fake/hash")
    comparison = compare_systems(refs, a, b, embedder="fake/hash", n_resamples=200)
    s = comparison.summary()
    want_b = [_oracle(r, h) for r, h in zip(refs, b)]
    assert s["semdist"]["delta"] == pytest.approx(np.mean(want) - np.mean(want_b), abs=1e-6)
    boot = s["significance_semdist"]["paired_bootstrap_semdist"]
    assert boot["ci_low"] <= boot["difference"] <= boot["ci_high"] and boot["n_items"] == 3
    assert "semdist" not in compare_systems(refs, a, b, n_resamples=50).summary()


def test_asr_score_with_an_embedder_writes_semdist_in_every_record(tmp_path, capsys):
    ref, hyp, out = tmp_path / "ref.txt", tmp_path / "hyp.txt", tmp_path / "out.jsonl"
    ref.write_text("the cat sat on the mat\nI like the cat.\n", encoding="utf-8")
    hyp.write_text("the cat sat on a mat\nI like cat\n", encoding="utf-8")
    code = main(["asr", "score", "--ref", str(ref), "--hyp", str(hyp), "--judge", "rules", "--lang", "en",
                 "--embedder", "fake/hash", "--out", str(out), "--no-cache"])  # fmt: skip
    assert code == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["semdist"] for r in records] == pytest.approx(
        [_oracle("the cat sat on the mat", "the cat sat on a mat"), _oracle("I like the cat.", "I like cat")], abs=1e-6
    )
    assert records[1]["laser"] == 0.75 and records[1]["format_errors"] == 1
    shown = capsys.readouterr().out
    assert "SemDist (mean" in shown and "case/punctuation only: 1 word pairs" in shown
    assert "embedder: none" not in shown and {r["embedder"] for r in records} == {"fake/hash?dim=64"}
    assert main(["asr", "score", "--ref", str(ref), "--hyp", str(hyp), "--judge", "rules", "--lang", "en"]) == 0
    assert "embedder: none (no SemDist)" in capsys.readouterr().out  # the absence is said, not left out


def test_an_unreachable_embedding_server_fails_fast_with_status_3(tmp_path, capsys):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("a b\n", encoding="utf-8")
    hyp.write_text("a c\n", encoding="utf-8")
    code = main(["asr", "metrics", "--ref", str(ref), "--hyp", str(hyp), "--embedder", "openai/x",
                 "--embedder-base-url", f"http://127.0.0.1:{port}/v1"])  # fmt: skip
    err = capsys.readouterr().err
    assert code in (2, 3) and "127.0.0.1" in err and "Traceback" not in err


def _report_text(path) -> str:
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


def test_the_report_shows_semdist_calibrated_and_formatting_each_under_its_own_name(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\nI like the cat.\n", encoding="utf-8")
    hyp.write_text("the cat sat on a mat\nI like cat\n", encoding="utf-8")
    base = ["asr", "score", "--ref", str(ref), "--hyp", str(hyp), "--lang", "en", "--no-cache"]
    meaning, plain = tmp_path / "meaning.html", tmp_path / "plain.html"
    assert main([*base, "--judge", "rules", "--embedder", "fake/hash", "--report", str(meaning)]) == 0
    assert main([*base, "--report", str(plain)]) == 0  # the default judge: laser_calibrated, no embedder
    with_meaning, without = _report_text(meaning), _report_text(plain)
    # the rules judge has no model fitted to people: SemDist beside the score, no laser_calibrated
    assert "SemDist (mean)" in with_meaning and "fake/hash" in with_meaning
    assert "laser_calibrated (mean" not in with_meaning and "<th>laser_calibrated</th>" not in meaning.read_text()
    mean = (_oracle("the cat sat on the mat", "the cat sat on a mat") + _oracle("I like the cat.", "I like cat")) / 2
    assert f"{mean:.3f}"[:4] in with_meaning
    # formatting is reported beside the score (one case/punctuation pair), not in it
    assert "case/punctuation only (pairs)" in with_meaning and "reported, not penalised" in with_meaning
    assert "laser_calibrated (mean, fitted to people)" in without and "SemDist" not in without


def test_the_compare_report_shows_semdist_and_its_significance(tmp_path):
    ref, a, b, report = (tmp_path / n for n in ("ref.txt", "a.txt", "b.txt", "compare.html"))
    ref.write_text("the cat sat on the mat\nI like the cat\nshe went home\n", encoding="utf-8")
    a.write_text("the cat sat on the mat\nI like cat\nshe went home\n", encoding="utf-8")
    b.write_text("a dog sat on a hat\nI like bats\nhe want hem\n", encoding="utf-8")
    code = main(["asr", "compare", "--ref", str(ref), "--hyp-a", str(a), "--hyp-b", str(b), "--embedder", "fake/hash",
                 "--resamples", "200", "--report", str(report)])  # fmt: skip
    assert code == 0
    shown = _report_text(report)
    assert "SemDist (mean, fake/hash" in shown and "paired bootstrap of the SemDist difference (200 resamples" in shown


EN = "examples/asr/en"


def _files(tmp_path, refs, hyps):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("".join(f"{line}\n" for line in refs), encoding="utf-8")
    hyp.write_text("".join(f"{line}\n" for line in hyps), encoding="utf-8")
    return str(ref), str(hyp)


def _help(capsys, *command) -> str:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_an_embedder_without_a_fitted_model_offers_the_rules_judge_in_the_error_and_the_help(capsys):
    code = main(["asr", "score", "--ref", f"{EN}/ref.txt", "--hyp", f"{EN}/sys_b.txt", "--ids",
                 "--embedder", "fake/hash", "--no-cache"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "no model fitted with the embedder fake/hash" in err and "use --judge rules" in err
    assert "Traceback" not in err and "asr train and this embedder" not in err
    shown = _help(capsys, "asr", "score")
    assert "any other embedder needs --calibration FILE" in shown and "--judge rules" in shown
    # and the rules judge runs with it: SemDist beside the score
    assert main(["asr", "score", "--ref", f"{EN}/ref.txt", "--hyp", f"{EN}/sys_b.txt", "--ids",
                 "--judge", "rules", "--embedder", "fake/hash", "--no-cache"]) == 0  # fmt: skip


@pytest.mark.parametrize("command", [["asr", "metrics"], ["asr", "compare"], ["asr", "score"], ["asr", "train"]])
def test_every_command_with_an_embedder_has_the_cache_options_and_says_what_is_embedded(capsys, command):
    shown = _help(capsys, *command)
    assert "--cache PATH" in shown and "--no-cache" in shown and "Embeddings are cached" in shown
    assert "SemDist = 1 - cosine of the sentence embeddings" in shown and "lower is better" in shown
    if command[1] in ("metrics", "compare", "score"):
        assert "on the texts as given, not after --normalize" in shown


def test_every_command_gives_the_same_semdist_whatever_it_normalizes(tmp_path, capsys):
    """SemDist is one figure: the texts as given, in asr score as in asr metrics, --normalize or not."""
    ref, hyp = _files(tmp_path, ["The Cat, sat on the mat.", "Hello world!"], ["the cat sat on a mat", "hello, word"])
    found = set()
    for command in (["asr", "metrics"], ["asr", "score", "--judge", "rules", "--lang", "en"]):
        for normalize in ("none", "basic"):
            assert main([*command, "--ref", ref, "--hyp", hyp, "--embedder", "fake/hash", "--normalize", normalize,
                         "--no-cache", "--json"]) == 0  # fmt: skip
            found.add(json.loads(capsys.readouterr().out)["semdist"])
    expected = (
        _oracle("The Cat, sat on the mat.", "the cat sat on a mat") + _oracle("Hello world!", "hello, word")
    ) / 2
    assert len(found) == 1 and found.pop() == pytest.approx(expected)


def test_metrics_and_compare_read_and_write_the_embedding_cache_as_asked(tmp_path, capsys):
    ref, hyp = _files(tmp_path, ["the cat sat", "a dog"], ["the bat sat", "a dig"])
    cache = tmp_path / "embeddings.cache"
    base = ["asr", "metrics", "--ref", ref, "--hyp", hyp, "--embedder", "fake/hash", "--json"]
    usage = []
    for extra in (["--cache", str(cache)], ["--cache", str(cache)], ["--no-cache", "--cache", str(cache)]):
        assert main([*base, *extra]) == 0
        usage.append(json.loads(capsys.readouterr().out)["embedder_usage"])
    assert cache.exists()
    assert [u["cache_hits"] for u in usage] == [0, 4, 0] and usage[2]["requests"] == 1  # 4 texts
    assert main(["asr", "compare", "--ref", ref, "--hyp-a", hyp, "--hyp-b", ref, "--embedder", "fake/hash",
                 "--resamples", "50", "--cache", str(cache), "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["embedder_usage"]["cache_hits"] == 4


def test_metrics_per_utterance_shows_semdist_and_says_it_is_on_the_texts_as_given(tmp_path, capsys):
    ref, hyp = _files(tmp_path, ["The cat sat.", "a dog"], ["the cat sat", "a dog"])
    code = main(["asr", "metrics", "--ref", ref, "--hyp", hyp, "--embedder", "fake/hash", "--per-utterance",
                 "--normalize", "basic", "--no-cache"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    header = next(line for line in out.splitlines() if "ref words" in line and "│" in line or "┃ id" in line)
    assert "SemDist" in header
    # WER is 0 after --normalize basic; SemDist is not: it reads "The cat sat." as given
    first = next(line for line in out.splitlines() if line.startswith("│ 1 "))
    assert f"{_oracle('The cat sat.', 'the cat sat'):.4f}" in first
    assert "on the texts as given, not after --normalize" in out and "lower is better" in out


def test_compare_defines_semdist_in_the_table_the_report_and_gives_the_embedder_and_its_usage(tmp_path, capsys):
    ref, hyp = _files(tmp_path, ["the cat sat", "a dog"], ["the bat sat", "a dig"])
    report = tmp_path / "compare.html"
    base = ["asr", "compare", "--ref", ref, "--hyp-a", hyp, "--hyp-b", ref, "--embedder", "fake/hash",
            "--resamples", "50", "--no-cache"]  # fmt: skip
    assert main([*base, "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "SemDist (mean)" in out and "SemDist = 1 - cosine of the sentence embeddings" in out
    assert "lower is better" in out and "on the texts as given" in out
    shown = _report_text(report)
    assert "SemDist = 1 - cosine of the sentence embeddings (fake/hash" in shown and "lower is better" in shown
    assert '"embedder": "fake/hash?dim=64"' in shown  # in the settings block
    assert main([*base, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["embedder_usage"]["texts"] >= 2 and summary["semdist"]["embedder"].startswith("fake/hash")


def test_score_states_semdist_coverage_and_an_empty_reference_leaves_the_exit_status_0(tmp_path, capsys):
    ref, hyp = _files(tmp_path, ["u1 hello world", "u2 ..."], ["u1 hello world", "u2 good morning"])
    base = ["asr", "score", "--ref", ref, "--hyp", hyp, "--ids", "--judge", "rules", "--embedder", "fake/hash",
            "--no-cache"]  # fmt: skip
    assert main([*base, "--json"]) == 0  # an empty reference is no failure: the help says so
    s = json.loads(capsys.readouterr().out)
    covers = s["coverage"]["covers"]
    assert covers["laser"].startswith("1 of 2") and covers["semdist"].startswith("2 of 2 utterances")
    assert s["semdist"] == 0.5  # "..." has no word: empty, so 1 for u2 without a call
    assert s["embedder_usage"].get("texts", 0) == 0
    assert main(base) == 0
    assert "SemDist covers all 2" in capsys.readouterr().out
    shown = _help(capsys, "asr", "score")
    assert "every item is every utterance with reference words" in shown and "exit status stays 0" in shown


def test_embedder_errors_name_the_embedders_own_flag(tmp_path, capsys, monkeypatch):
    # --base-url is the LLM judge's server: an embedder's messages must name --embedder-base-url
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat\n", encoding="utf-8")
    hyp.write_text("the cat sad\n", encoding="utf-8")
    base = ["asr", "metrics", "--ref", str(ref), "--hyp", str(hyp), "--no-cache"]
    for extra in (["--embedder", "openai/text-embedding-3-small"], ["--embedder", "gemini/gemini-embedding-001"],
                  ["--embedder", "fake/hash", "--embedder-base-url", "http://127.0.0.1:9/v1"]):  # fmt: skip
        assert main([*base, *extra]) == 2
        err = capsys.readouterr().err
        assert "--embedder-base-url" in err and "--base-url " not in err, err


def test_an_embedder_server_without_an_embedder_or_an_empty_spec_is_an_error(tmp_path, capsys):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat\n", encoding="utf-8")
    hyp.write_text("the cat sad\n", encoding="utf-8")
    for command in (["asr", "metrics"], ["asr", "score", "--judge", "rules"]):
        base = [*command, "--ref", str(ref), "--hyp", str(hyp)]
        assert main([*base, "--embedder-base-url", "http://127.0.0.1:9/v1"]) == 2
        assert "give --embedder openai/<model> with it" in capsys.readouterr().err
        assert main([*base, "--embedder", ""]) == 2
        assert "--embedder needs a spec" in capsys.readouterr().err


def test_base_url_on_a_command_with_no_llm_judge_points_to_the_embedders_flag(tmp_path, capsys):
    """asr metrics and compare said argparse's "unrecognized arguments"; asr train took the URL for
    its pairs file."""
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat\n", encoding="utf-8")
    hyp.write_text("the cat sad\n", encoding="utf-8")
    ratings = Path(__file__).parents[2] / "examples" / "human" / "ratings_sample.csv"
    server = ["--embedder", "openai/x", "--base-url", "http://127.0.0.1:9/v1"]
    for command in (
        ["asr", "metrics", "--ref", str(ref), "--hyp", str(hyp)],
        ["asr", "compare", "--ref", str(ref), "--hyp-a", str(hyp), "--hyp-b", str(ref)],
        ["asr", "train", "--ratings", str(ratings), "--out", str(tmp_path / "cal.json")],
    ):
        assert main([*command, *server]) == 2, command
        err = capsys.readouterr().err
        assert err == (
            "voxjudge: error: --base-url is an LLM judge's server, and this command calls none; give the "
            "embedder's server with --embedder-base-url\n"
        ), command
    assert not (tmp_path / "cal.json").exists()


@pytest.mark.parametrize("url", ["127.0.0.1:8080/v1", "not a url"])
def test_an_embedder_server_without_http_or_https_is_refused_at_once_naming_its_flag(tmp_path, capsys, url):
    # `asr metrics --embedder openai/x --embedder-base-url 127.0.0.1:8080/v1` took 98 s: 7 attempts, then exit 3
    import time

    files = ["--ref", f"{EN}/ref.txt", "--hyp", f"{EN}/sys_b.txt", "--ids"]
    server = ["--embedder", "openai/x", "--embedder-base-url", url, "--no-cache"]
    ratings = "examples/human/ratings_sample.csv"
    for argv in (
        ["asr", "metrics", *files, *server],
        ["asr", "compare", "--ref", f"{EN}/ref.txt", "--hyp-a", f"{EN}/sys_a.txt", "--hyp-b", f"{EN}/sys_b.txt",
         "--ids", *server],
        ["asr", "score", *files, "--judge", "rules", *server],
        ["asr", "judge-card", "--ratings", ratings, "--judge", "rules", *server],
        ["asr", "train", "--ratings", ratings, "--out", str(tmp_path / "cal.json"), *server],
    ):  # fmt: skip
        start = time.monotonic()
        assert main(argv) == 2, argv
        assert time.monotonic() - start < 10, argv
        err = capsys.readouterr().err
        assert err.startswith(f"voxjudge: error: --embedder-base-url {url!r} is not a server URL: it needs http:// or")
        assert err.count("\n") == 1, err


def test_base_url_is_the_llm_judges_and_an_offline_judge_refuses_it(tmp_path, capsys, monkeypatch):
    # `asr score --judge rules --base-url URL` exited 0 (the URL ignored), and with `--embedder openai/x`
    # the embeddings went to OpenAI's own host, not to the server given
    from voxjudge.asr.laser import LaserOptions, run_laser
    from voxjudge.errors import InputError
    from voxjudge.llm.fakeserver import FakeLLMServer
    from voxjudge.llm.options import JudgeOptions

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    files = ["--ref", f"{EN}/ref.txt", "--hyp", f"{EN}/sys_b.txt", "--ids", "--no-cache"]
    with FakeLLMServer() as srv:
        url = srv.url + "/v1"
        for judge, embedder in (("rules", []), ("default", []), ("model:any.json", []),
                                ("default", ["--embedder", "openai/text-embedding-3-small"]),
                                ("rules", ["--embedder", "fake/hash"])):  # fmt: skip
            assert main(["asr", "score", *files, "--judge", judge, "--base-url", url, *embedder]) == 2
            err = capsys.readouterr().err
            want = f"voxjudge: error: --base-url is an LLM judge's server, and the offline judge {judge!r} calls none"
            want += "; give the embedder's server with --embedder-base-url\n" if embedder else "\n"
            assert err == want
        assert srv.requests == []  # nothing was sent anywhere
    with pytest.raises(InputError, match=r"JudgeOptions\(base_url=...\) is an LLM judge's server"):
        run_laser(["a b"], ["a c"], judge="rules", options=LaserOptions(llm=JudgeOptions(base_url=url)))


def test_embedder_none_is_no_embedder_byte_for_byte(tmp_path, capsys):
    # the summaries say `embedder: "none"` and the help said "default: none"; `--embedder none` was refused
    files = ["--ref", f"{EN}/ref.txt", "--hyp", f"{EN}/sys_b.txt", "--ids"]
    ratings = "examples/human/ratings_sample.csv"
    pairs = tmp_path / "hi.tsv"  # the Hindi pairs asr train fits a pair model on in tests/cli/test_cli_laser.py
    lines = (Path(__file__).parents[1] / "data" / "laser_pairs.tsv").read_text(encoding="utf-8").splitlines()
    pairs.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x.startswith("hi\t")]) + "\n", encoding="utf-8")
    commands = {
        "metrics": ["asr", "metrics", *files, "--json", "--out", "{out}"],
        "compare": ["asr", "compare", "--ref", f"{EN}/ref.txt", "--hyp-a", f"{EN}/sys_a.txt", "--hyp-b",
                    f"{EN}/sys_b.txt", "--ids", "--json", "--resamples", "200", "--out", "{out}"],
        "score": ["asr", "score", *files, "--judge", "rules", "--json", "--out", "{out}"],
        "judge-card": ["asr", "judge-card", "--ratings", ratings, "--judge", "rules", "--resamples", "50",
                       "--split-halves", "20", "--json", "--out", "{out}"],
        "train": ["asr", "train", "--ratings", ratings, "--out", "{out}", "--json"],
        "train pairs": ["asr", "train", str(pairs), "--out", "{out}", "--json"],
    }  # fmt: skip
    for name, argv in commands.items():
        seen = []
        for extra in ([], ["--embedder", "none"], ["--embedder", "None"]):
            out = tmp_path / f"{name}-{len(seen)}.{'json' if name.startswith('train') else 'jsonl'}"
            assert main([a.replace("{out}", str(out)) for a in argv] + extra) == 0, (name, extra)
            captured = capsys.readouterr()
            seen.append((captured.out.replace(str(out), "OUT"), out.read_bytes()))
        assert seen[1] == seen[0] and seen[2] == seen[0], name
    for command in (["asr", "metrics"], ["asr", "score"]):
        assert main([*command, *files, "--embedder", "none", "--embedder-base-url", "http://127.0.0.1:9/v1"]) == 2
        assert "give --embedder openai/<model> with it" in capsys.readouterr().err
    for command in (["asr", "metrics"], ["asr", "compare"], ["asr", "score"], ["asr", "judge-card"], ["asr", "train"]):
        assert "fake/hash, or none (the default: no embedder" in _help(capsys, *command), command


def test_the_library_takes_embedder_none_as_no_embedder_byte_for_byte():
    # the CLI's --embedder none and the library agree (llm.options.embedder_spec); "none" was refused
    # as not provider/model by compute_metrics, compare_systems, run_laser and train_files
    from voxjudge.asr.laser import LaserOptions, LaserRubric, run_laser
    from voxjudge.asr.laser.calibrate import train_files

    refs, hyps = ["the cat sat", "hello world", "a b c"], ["the cat sat down", "hello word", "a b c"]
    ratings = "examples/human/ratings_sample.csv"
    dry = dict(lang="en", dry_run=True)

    def outputs(embedder):
        laser = run_laser(refs, hyps, judge="rules", options=LaserOptions(lang="en", embedder=embedder))
        plan = run_laser(refs, hyps, judge="openai/gpt-4o-mini", options=LaserOptions(**dry, embedder=embedder))
        return json.dumps(
            [
                compute_metrics(refs, hyps, embedder=embedder).summary(),
                compare_systems(refs, hyps, refs, n_resamples=50, embedder=embedder).summary(),
                laser.summary,
                laser.records,
                plan.estimate,
                train_files(ratings, None, LaserRubric.load(), embedder=embedder),
            ],
            sort_keys=True,
        )

    want = outputs(None)
    for none in ("none", "NONE", " None "):
        assert outputs(none) == want, none
    assert LaserOptions(embedder="None").embedder is None


def test_metrics_and_compare_check_the_embedders_spec_and_server_before_counting(monkeypatch):
    # the URL was checked only when the embedder was opened, after every line was counted and aligned
    import voxjudge.asr.measures as measures
    from voxjudge.llm.errors import ConfigError

    def counted(*_args, **_kwargs):
        raise AssertionError("counted before the embedder was checked")

    monkeypatch.setattr(measures, "count_units", counted)
    bad = {"embedder": "openai/x", "embedder_base_url": "127.0.0.1:8080/v1"}
    for run in (
        lambda **kw: compute_metrics(["a b"], ["a c"], **kw),
        lambda **kw: compare_systems(["a b"], ["a c"], ["a b"], **kw),
    ):
        with pytest.raises(ConfigError, match="is not a server URL"):
            run(**bad)
        with pytest.raises(ConfigError, match="not provider/model"):
            run(embedder="nomodel")


def test_a_comparison_names_the_system_whose_text_could_not_be_embedded():
    """compare said '1 utterance' when system B alone had 2, and named no system."""
    with pytest.raises(EmbedderFailed, match=r"could not embed 2 utterance\(s\) of system 2 of 2, first u1"):
        compute_semdist("fake/hash?reject=BAD", ["a b", "c d"], [["a c", "c e"], ["BAD b", "BAD d"]], ["u1", "u2"])
    with pytest.raises(EmbedderFailed, match=r"of system 1 of 2, .*nothing was scored \(and 2 of the other system\)"):
        compute_semdist("fake/hash?reject=BAD", ["a b", "c d"], [["BAD c", "c e"], ["BAD b", "BAD d"]], ["u1", "u2"])
