"""Help that teaches: every command is described, states its defaults and ends with examples that
run as written on the shipped data."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from voxjudge.cli.helptext import EXAMPLES, commands, example_commands
from voxjudge.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
PARSERS = commands(build_parser())


def test_every_command_has_a_description_and_examples():
    names = [name for name, _ in PARSERS]
    assert len(names) > 25
    assert [n for n, p in PARSERS if not p.description] == []
    assert [n for n in names if not EXAMPLES.get(n)] == []
    assert set(EXAMPLES) <= set(names), "examples for commands that do not exist"


@pytest.mark.parametrize("name, parser", PARSERS, ids=[n or "top" for n, _ in PARSERS])
def test_help_states_defaults_and_ends_with_examples(name, parser):
    text = parser.format_help()
    tail = text.rstrip().split("\n")
    examples = EXAMPLES[name]
    assert [line.strip() for line in tail[-len(examples) :]] == examples
    assert "--by-speaker" not in text or any("--by-speaker" in a.option_strings for a in parser._actions)
    for action in parser._actions:
        if not action.option_strings or action.help == argparse.SUPPRESS or action.required:
            continue
        if action.default is None or action.default is False or action.default == argparse.SUPPRESS:
            continue
        assert "default" in parser._get_formatter()._expand_help(action), (name, action.option_strings)


def test_normalize_help_reads_as_a_sentence():
    parser = dict(PARSERS)["asr metrics"]
    action = next(a for a in parser._actions if "--normalize" in a.option_strings)
    assert ";;" not in action.help and "presets:;" not in action.help
    assert "basic            nfc + lower + punct + whitespace" in parser.format_help()


def test_every_example_names_only_files_that_exist():
    for _, example in example_commands():
        for word in shlex.split(example):
            if word.startswith(("examples/", "tests/")):
                assert (ROOT / word).exists(), word


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A scratch directory that looks like the project root: examples/ and tests/data/ linked in."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "data").symlink_to(ROOT / "tests" / "data")
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("name, example", example_commands(), ids=[e[:60] for _, e in example_commands()])
def test_example_runs(name, example, workdir):
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("OPENAI_API_KEY", None)  # dry runs must not need a key
    serves = "studio serve" in example  # a server runs until stopped: it must still be up after a while
    if serves:
        example = example.replace("voxjudge studio serve", "timeout 10 voxjudge studio serve")
    done = subprocess.run(
        ["bash", "-c", "set -e; " + example], cwd=workdir, env=env, capture_output=True, text=True, timeout=600
    )
    expected = 124 if serves else 0  # timeout's status when it had to stop the command
    if name == "studio export":  # a fresh study has no answers yet: the one-line refusal is the example's point
        expected = 2
        assert "no answers to export yet" in done.stderr
    assert done.returncode == expected, f"{example}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr
