"""The library's errors do not speak in command-line flags: a message that names a setting gives
it in API terms, and the CLI words it with its flag."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

import voxjudge
from voxjudge.breaks import BuildConfig
from voxjudge.cli.main import main
from voxjudge.cli.wording import FLAGS, worded
from voxjudge.errors import InputError

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
PACKAGE = Path(voxjudge.__file__).parent
# Modules that are command lines of their own (they parse their own flags).
OWN_COMMAND_LINES = {"llm/fakeserver.py"}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
    }


def test_no_library_string_names_a_cli_flag():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("cli/") or rel in OWN_COMMAND_LINES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                if FLAG.search(node.value):
                    offenders.append(f"{rel}:{node.lineno}: {node.value!r}")
    assert not offenders, "\n".join(offenders)


def test_a_setting_is_worded_for_the_api_and_for_the_cli():
    with pytest.raises(InputError) as caught:
        BuildConfig(n_iter=0)
    assert str(caught.value) == "n_iter must be at least 1"
    assert worded(caught.value) == "--n-iter must be at least 1"
    error = InputError("braces {in} user text stay; {x} is a setting", options={"x": "x=True"})
    assert str(error) == "braces {in} user text stay; x=True is a setting"
    assert error.worded({"x": "--x"}) == "braces {in} user text stay; --x is a setting"


def test_every_worded_flag_exists_on_some_command():
    from voxjudge.cli.main import build_parser

    def flags(parser) -> set[str]:
        out = set(parser._option_string_actions)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    out |= flags(sub)
        return out

    known = flags(build_parser())
    missing = {k: v for k, v in FLAGS.items() if v.split()[0] not in known}
    assert not missing


def test_the_cli_prints_the_flag(examples, tmp_path, capsys):
    d = examples / "breaks"
    argv = ["breaks", "build-refs", "--texts", str(d / "texts.txt"), "--pool", str(d / "pool.txt")]
    assert main([*argv, "--judge", "fake/x", "--n-iter", "0", "--out", str(tmp_path / "t.jsonl")]) == 2
    assert "voxjudge: error: --n-iter must be at least 1" in capsys.readouterr().err
    argv = ["breaks", "score", "--refs", str(d / "table.jsonl"), "--hyps", str(d / "hypotheses.tsv")]
    assert main([*argv, "--theta", "em=0.5"]) == 2
    assert "--theta names em, which --metric does not ask for" in capsys.readouterr().err
