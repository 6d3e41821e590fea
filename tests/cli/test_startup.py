"""Start-up stays light: building the parser and printing any --help imports no numerical or
rendering library (the time itself is measured by bench/startup.py, not here)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from voxjudge.cli import main as cli_main

HEAVY = ("numpy", "scipy", "rapidfuzz", "rich", "sklearn", "regex", "openai", "aiohttp", "anthropic", "google")

PROBE = """
import json, sys
from voxjudge.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = sorted({m.split('.')[0] for m in sys.modules} & set(json.loads(%r)))
sys.__stderr__.write('HEAVY=' + json.dumps(heavy) + chr(10))
"""


def _help_commands() -> list[list[str]]:
    parser = cli_main.build_parser()
    commands = [[]]
    for action in parser._subparsers._group_actions:  # noqa: SLF001 - walking argparse's tree
        for name, sub in action.choices.items():
            commands.append([name])
            for sa in sub._actions:
                if isinstance(sa, argparse._SubParsersAction):
                    commands += [[name, c] for c in sa.choices]
    return commands


def _heavy_modules(argv: list[str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE % json.dumps(HEAVY), *argv], capture_output=True, text=True, check=False
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("HEAVY="))
    return json.loads(line[len("HEAVY=") :])


def test_every_help_imports_no_heavy_library():
    commands = _help_commands()
    assert len(commands) > 20
    # One process per command would be slow; the top level and one command per group cover the
    # import paths, and the in-process check below covers every parser.
    for argv in ([], ["asr", "score"], ["breaks", "score"], ["pairwise", "judge"], ["stats", "agree"], ["llm", "run"]):
        assert _heavy_modules([*argv, "--help"]) == [], argv


def test_building_the_whole_parser_imports_no_heavy_library():
    code = (
        "import sys, json; from voxjudge.cli.main import build_parser; build_parser(); "
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({list(HEAVY)!r}))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_fast_start_lists_the_same_commands_with_the_same_help():
    full = cli_main.build_parser()
    fast = cli_main.build_parser(["--help"])

    def listing(parser):
        action = parser._subparsers._group_actions[0]  # noqa: SLF001
        return [(c.dest, c.help) for c in action._choices_actions]  # noqa: SLF001

    assert listing(fast) == listing(full)


def test_fast_start_builds_the_requested_command_in_full():
    parser = cli_main.build_parser(["asr", "metrics", "--ref", "a", "--hyp", "b"])
    args = parser.parse_args(["asr", "metrics", "--ref", "a", "--hyp", "b"])
    assert args.func.__name__ == "cmd_metrics"
