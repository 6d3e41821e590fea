"""The demo shows exactly what the commands print: each section is compared with its command."""

from __future__ import annotations

import pytest

from voxjudge.cli import demo
from voxjudge.cli.main import main


@pytest.fixture(scope="module")
def demo_sections(request):
    from pathlib import Path

    examples = Path(request.config.rootpath) / "examples"
    return list(demo.sections(examples))


def test_demo_covers_every_evaluator(demo_sections):
    shown = [" ".join(argv[:2]) for commands, _ in demo_sections for argv in commands]
    assert shown == [
        "asr metrics",
        "asr compare",
        "asr metrics",
        "asr compare",
        "asr score",
        "asr judge-card",
        "breaks score",
        "pairwise judge",
        "pairwise analyze",
        "pairwise select",
    ]


def test_every_demo_section_is_its_commands_output(demo_sections, capsys, tmp_path):
    judgments = str(tmp_path / "judgments.jsonl")
    for commands, output in demo_sections:
        for argv in commands:
            argv = [judgments if a == demo.JUDGMENTS else a for a in argv]
            capsys.readouterr()
            assert main(argv) == 0, argv
        printed = capsys.readouterr().out
        assert printed == output + "\n", f"demo differs from: voxjudge {' '.join(commands[-1])}"


def test_demo_prints_each_command_line_before_its_output(capsys, examples):
    assert main(["demo", "--examples", str(examples)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n$ voxjudge ") == 10
    assert "$ voxjudge pairwise judge --pairs" in out and "\n$ voxjudge pairwise analyze judgments.jsonl" in out
    # the judge's own output names a verdict per pair, and whether the two orders agree
    judge_out = out.split("$ voxjudge pairwise judge --pairs")[1].split("\n$ ")[0]
    assert "t0-natural-vs-monotone" in judge_out and "orders agree" in judge_out and "verdicts: A " in judge_out


def test_demo_names_a_missing_examples_folder(capsys, tmp_path):
    assert main(["demo", "--examples", str(tmp_path)]) == 2
    assert "asr: not found; run the demo from the project root or pass --examples DIR" in capsys.readouterr().err


def test_demo_shows_current_spellings_and_only_the_hit_rates_its_labels_support(demo_sections):
    from voxjudge.cli.main import build_parser

    shown = [argv for commands, _ in demo_sections for argv in commands]
    retired = {"--refs", "--hyps", "--from", "--format", "--seed"}
    assert [a for argv in shown for a in argv if a in retired] == []
    parser = build_parser()
    for argv in shown:  # every option shown is one --help lists
        sub = parser
        for word in argv[:2]:
            groups = (a.choices for a in sub._actions if isinstance(getattr(a, "choices", None), dict))
            sub = next(g for g in groups if word in g)[word]
        listed = {o for a in sub._actions for o in a.option_strings}
        assert {a for a in argv if a.startswith("--")} <= listed, argv
    select = dict((" ".join(c[-1][:2]), out) for c, out in demo_sections)["pairwise select"]
    # the candidate sets label only their winner: Hit@1 against 1 in 4, no Hit@2 or Hit@3
    assert "Hit@1 100.00% (random 25.00%)" in select and "Hit@2 " not in select and "Hit@3 " not in select


def test_demo_names_the_normalisation_of_every_wer(demo_sections):
    for commands, out in demo_sections:
        if commands[-1][:2] in (["asr", "metrics"], ["asr", "compare"]):
            preset = commands[-1][commands[-1].index("--normalize") + 1]
            assert f"normalize={preset}  split=unicode" in out, commands[-1]
