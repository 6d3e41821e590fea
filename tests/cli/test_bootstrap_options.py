"""The bootstrap options are one bundle: present, spelt, typed and defaulted the same on every
command that computes bootstrap intervals, checked the same way, and passed to the library."""

from __future__ import annotations

import argparse
import json

import pytest

from voxjudge.cli.main import build_parser, main

BOOTSTRAPPING = [
    ("asr", "score"),
    ("asr", "compare"),
    ("breaks", "score"),
    ("pairwise", "analyze"),
    ("pairwise", "compare"),
    ("stats", "agree"),
]
BUNDLE = ("--resamples", "--confidence", "--bootstrap-seed")


def _subparser(parser: argparse.ArgumentParser, *names: str) -> argparse.ArgumentParser:
    for name in names:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[name]
    return parser


def _describe(action: argparse.Action) -> tuple:
    return (action.dest, action.type, action.default, action.help, action.metavar)


def test_every_bootstrapping_command_has_the_same_bundle():
    parser = build_parser()
    seen = {}
    for names in BOOTSTRAPPING:
        sub = _subparser(parser, *names)
        options = sub._option_string_actions
        for flag in BUNDLE:
            assert flag in options, f"{' '.join(names)} lacks {flag}"
            seen.setdefault(flag, set()).add(_describe(options[flag]))
        assert options["--seed"] is options["--bootstrap-seed"], "the old spelling --seed still works"
    assert all(len(v) == 1 for v in seen.values()), seen


def test_bad_bootstrap_options_get_the_same_message_everywhere(examples, tmp_path, capsys):
    breaks = examples / "breaks"
    commands = {
        "breaks score": [
            "breaks",
            "score",
            "--refs",
            str(breaks / "table.jsonl"),
            "--hyps",
            str(breaks / "hypotheses.tsv"),
        ],
        "pairwise compare": ["pairwise", "compare", "a.jsonl", "b.jsonl", "--pairs", "p.jsonl"],
        "stats agree": ["stats", "agree", "--metric", "m.txt", "--human", "h.txt"],
    }
    for argv in commands.values():
        for bad, message in ((["--resamples", "0"], "--resamples must be at least 1"),
                             (["--confidence", "1.5"], "--confidence must be between 0 and 1")):  # fmt: skip
            assert main([*argv, *bad]) == 2
            assert message in capsys.readouterr().err


def test_the_seed_and_level_reach_the_library(examples, capsys):
    d = examples / "breaks"
    argv = ["breaks", "score", "--refs", str(d / "table.jsonl"), "--hyps", str(d / "hypotheses.tsv")]
    argv += ["--human", str(d / "human.tsv"), "--resamples", "200", "--json"]
    runs = {}
    for extra in ([], ["--bootstrap-seed", "7"], ["--seed", "7"], ["--confidence", "0.5"]):
        assert main([*argv, *extra]) == 0
        runs[" ".join(extra)] = json.loads(capsys.readouterr().out)["pearson"]
    assert runs["--bootstrap-seed 7"] == runs["--seed 7"] != runs[""]
    narrow, wide = runs["--confidence 0.5"], runs[""]
    assert wide["ci_low"] < narrow["ci_low"] <= narrow["ci_high"] < wide["ci_high"]


@pytest.mark.parametrize("level", ["0.9"])
def test_asr_score_human_agreement_uses_the_bundle(tmp_path, capsys, level):
    ref = tmp_path / "ref.txt"
    ref.write_text("u1 a b c d\nu2 d e f g\nu3 g h i j\nu4 k l m n\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("u1 a b c d\nu2 d x f g\nu3 g y z j\nu4 q r s t\n")
    human = tmp_path / "human.txt"
    human.write_text("u1 5\nu2 4\nu3 2\nu4 1\n")
    argv = ["asr", "score", "--ref", str(ref), "--hyp", str(hyp), "--ids", "--human", str(human)]
    assert main([*argv, "--resamples", "200", "--confidence", level]) == 0
    assert "90% bootstrap CI" in capsys.readouterr().out
    assert main([*argv, "--resamples", "200", "--confidence", level, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bootstrap"] == {"resamples": 200, "confidence": 0.9, "seed": 0}
