"""One normalisation story: the README's first commands, the demo and the --help examples pass the
same --normalize for the classic rates; `asr score` takes --normalize like the other asr commands
(applied to both sides before alignment, named in the summary and the report's settings); a run
whose word errors are mostly case or punctuation says so once, on stderr, naming --normalize basic."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from voxjudge.cli import demo
from voxjudge.cli.helptext import example_commands
from voxjudge.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = ("metrics", "compare", "align")
PRESET = {"en": "basic", "hi": "hindi"}  # what the demo passes per example language


def _normalize_of(argv: list[str]) -> str:
    return argv[argv.index("--normalize") + 1] if "--normalize" in argv else "none"


def _language(argv: list[str]) -> str | None:
    m = next((re.search(r"examples/asr/(en|hi)/", a) for a in argv if "examples/asr/" in a), None)
    return m and m.group(1)


def _readme_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = text.split("\n## Your first result\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", first, re.S).group(1).replace("\\\n", " ")
    return [shlex.split(line)[1:] for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_readme_demo_and_help_pass_the_same_normalisation():
    from itertools import islice

    # the demo's ASR sections (metrics and compare per language, then LASER); the rest is not ASR
    demo_argv = [argv for commands, _ in islice(demo.sections(ROOT / "examples"), 5) for argv in commands]
    assert [argv[1] for argv in demo_argv] == ["metrics", "compare", "metrics", "compare", "score"]
    seen = 0
    for source, argvs in (
        ("demo", demo_argv),
        ("README", _readme_commands()),
        ("--help", [shlex.split(e)[1:] for _, example in example_commands() for e in example.split(" && ")]),
    ):
        for argv in argvs:
            # word pairs written for 'asr classify' stay as written: the rubric judges case and spelling
            pairs_for_laser = argv[1:2] == ["align"] and "--out" in argv
            if argv[:1] == ["asr"] and argv[1] in CLASSIC and _language(argv) and not pairs_for_laser:
                seen += 1
                want = PRESET[_language(argv)]
                assert _normalize_of(argv) == want, f"{source}: voxjudge {' '.join(argv)}"
            if argv[:2] == ["asr", "score"] and source == "demo":
                assert _normalize_of(argv) == "none"  # the rubric judges case and punctuation itself
    assert seen >= 8


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def cased(tmp_path):
    """Two utterances whose only differences are case and punctuation, and one real error."""
    ref = _write(tmp_path / "ref.txt", ["The cat sat.", "Hello, world", "a b c d"])
    hyp = _write(tmp_path / "hyp.txt", ["the cat sat", "hello world", "a b x d"])
    return ref, hyp


def _note_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("voxjudge: note:")]


def test_metrics_says_once_that_the_errors_are_case_and_punctuation(capsys, cased):
    ref, hyp = cased
    assert main(["asr", "metrics", "--ref", ref, "--hyp", hyp, "--no-ids"]) == 0
    captured = capsys.readouterr()
    # by hand: The/the, sat./sat, Hello,/hello, world vs world (equal), c/x -> 4 substitutions in 9 words;
    # with case and punctuation ignored only c/x is left: 1 in 9
    assert _note_lines(captured.err) == [
        "voxjudge: note: 3 of 4 word errors are only case or punctuation; --normalize basic ignores both "
        "(WER 44.44% -> 11.11%)"
    ]
    assert "note" not in captured.out
    assert main(["asr", "metrics", "--ref", ref, "--hyp", hyp, "--no-ids", "--normalize", "basic"]) == 0
    assert _note_lines(capsys.readouterr().err) == []


def test_no_note_when_case_and_punctuation_are_a_minority(capsys, tmp_path):
    ref = _write(tmp_path / "r.txt", ["The cat sat on the mat"])
    hyp = _write(tmp_path / "h.txt", ["the bat sit in a mat"])  # 1 of 5 errors is case only
    assert main(["asr", "metrics", "--ref", ref, "--hyp", hyp, "--no-ids"]) == 0
    assert _note_lines(capsys.readouterr().err) == []


def test_the_note_matches_the_figures_of_both_normalisations(capsys, examples):
    d = examples / "asr" / "en"
    base = ["asr", "compare", "--ref", str(d / "ref.txt"), "--hyp-a", str(d / "sys_a.txt"), "--hyp-b",
            str(d / "sys_b.txt"), "--ids", "--resamples", "200", "--json"]  # fmt: skip
    assert main(base) == 0
    captured = capsys.readouterr()
    plain = json.loads(captured.out)
    notes = _note_lines(captured.err)
    assert main([*base, "--normalize", "basic"]) == 0
    basic = json.loads(capsys.readouterr().out)
    parts = []
    for key, name in (("a", "A"), ("b", "B")):
        before = plain[key]["substitutions"] + plain[key]["deletions"] + plain[key]["insertions"]
        after = basic[key]["substitutions"] + basic[key]["deletions"] + basic[key]["insertions"]
        rates = f"WER {100 * plain[key]['wer']:.2f}% -> {100 * basic[key]['wer']:.2f}%"
        parts.append(f"{name} {before - after} of {before} ({rates})")
    assert notes == [
        f"voxjudge: note: word errors that are only case or punctuation: {', '.join(parts)}; "
        "--normalize basic ignores both"
    ]


def test_align_says_it_too(capsys, cased):
    ref, hyp = cased
    assert main(["asr", "align", "--ref", ref, "--hyp", hyp, "--no-ids"]) == 0
    assert len(_note_lines(capsys.readouterr().err)) == 1


def test_asr_score_takes_normalize_and_names_it(capsys, cased, tmp_path):
    ref, hyp = cased
    out = tmp_path / "n.jsonl"
    argv = ["asr", "score", "--ref", ref, "--hyp", hyp, "--no-ids", "--lang", "en", "--jobs", "1", "--json"]
    assert main([*argv, "--normalize", "basic", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    normalized = json.loads(captured.out)
    assert normalized["normalize"] == "basic" and _note_lines(captured.err) == []
    # the oracle: the same texts normalised beforehand, scored without --normalize
    from voxjudge.asr.normalize import get_normalizer

    basic = get_normalizer("basic")
    lines = [basic(line) for line in Path(ref).read_text().splitlines()]
    pre_ref = _write(tmp_path / "pre_ref.txt", lines)
    pre_hyp = _write(tmp_path / "pre_hyp.txt", [basic(line) for line in Path(hyp).read_text().splitlines()])
    pre_out = tmp_path / "pre.jsonl"
    assert main(["asr", "score", "--ref", pre_ref, "--hyp", pre_hyp, *argv[6:], "--out", str(pre_out)]) == 0
    pre = json.loads(capsys.readouterr().out)
    assert pre["normalize"] == "none"
    for key in ("laser_micro", "laser_macro", "penalty", "labels", "error_types", "wer"):
        assert normalized[key] == pre[key], key
    assert out.read_text() == pre_out.read_text()
    # without it, the case and punctuation differences are there, as format errors; no note sends the
    # user to --normalize basic, which would change no LASER figure (it told them to)
    assert main(argv) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["normalize"] == "none" and summary["format_errors"] == 3
    assert summary["laser_micro"] == normalized["laser_micro"]
    assert _note_lines(captured.err) == []


def test_asr_score_table_names_the_normalisation(capsys, cased):
    ref, hyp = cased
    assert main(["asr", "score", "--ref", ref, "--hyp", hyp, "--no-ids", "--normalize", "basic", "--jobs", "1"]) == 0
    assert "normalize=basic (both sides, before alignment)" in capsys.readouterr().out


def test_asr_score_refuses_an_unknown_normalisation_before_any_work(capsys, cased, tmp_path):
    ref, hyp = cased
    out = tmp_path / "never.jsonl"
    code = main(["asr", "score", "--ref", ref, "--hyp", hyp, "--no-ids", "--normalize", "basic+shout",
                 "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert err.strip().count("\n") == 0 and "unknown normalization 'shout'" in err


def test_asr_score_help_has_normalize_and_its_presets():
    from voxjudge.cli.helptext import commands
    from voxjudge.cli.main import build_parser

    text = dict(commands(build_parser()))["asr score"].format_help()
    assert "--normalize SPEC" in text and "before alignment" in text
    assert "basic            nfc + lower + punct + whitespace" in text


def test_a_corpus_too_large_to_count_again_gets_a_note_without_counts(capsys, cased, monkeypatch):
    from voxjudge.cli import common

    monkeypatch.setattr(common, "CASE_PUNCT_WORDS", 3)  # the two cased utterances hold 5 reference words
    ref, hyp = cased
    assert main(["asr", "metrics", "--ref", ref, "--hyp", hyp, "--no-ids"]) == 0
    assert _note_lines(capsys.readouterr().err) == [
        "voxjudge: note: 2 utterances have upper case or punctuation, which count as word errors wherever the "
        "two sides differ in them (too many words to count them again); --normalize basic ignores both"
    ]


def test_a_lower_case_unpunctuated_corpus_is_not_counted_again(monkeypatch, tmp_path, capsys):
    from voxjudge.asr import measures

    calls = []
    real = measures.compute_metrics
    monkeypatch.setattr(measures, "compute_metrics", lambda *a, **k: calls.append(k) or real(*a, **k))
    ref = _write(tmp_path / "r.txt", ["the cat sat", "hello world"])
    hyp = _write(tmp_path / "h.txt", ["the bat sat", "hello word"])
    assert main(["asr", "metrics", "--ref", ref, "--hyp", hyp, "--no-ids"]) == 0
    assert _note_lines(capsys.readouterr().err) == [] and len(calls) == 1  # the command's own count only
