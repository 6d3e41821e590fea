"""Start-up stays light: building the parser and printing any --help imports no numerical or
rendering library, and an offline ``asr score`` imports no model client (the time itself is
measured by bench/startup.py, not here)."""

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


# What an offline asr score never uses: the LLM client (its cache's sqlite3, the message types and
# their audio, the labeller's asyncio, the LLM judges) and the provider SDKs. numpy and rich stay:
# the default judge's Hindi model is numpy arrays, and the summary is a rich table.
OFFLINE_UNUSED = (
    *("sqlite3", "openai", "aiohttp", "anthropic", "google", "llama_cpp", "vllm", "httpx"),
    *("voxjudge.llm.cache", "voxjudge.llm.judge", "voxjudge.llm.label", "voxjudge.llm.types"),
    *("voxjudge.llm.embed", "voxjudge.io.audio", "voxjudge.asr.laser.llm_judges"),
)

SCORE_PROBE = """
import json, sys
from voxjudge.cli.main import main
main(sys.argv[1:])
names = set(json.loads(%r))
loaded = sorted(m for m in sys.modules if m in names or m.split('.')[0] in names)
sys.__stderr__.write('LOADED=' + json.dumps(loaded) + chr(10))
"""


def _offline_score(tmp_path, refs: str, hyps: str, unused: tuple[str, ...]) -> tuple[list[str], list[dict]]:
    """(the modules of ``unused`` loaded, the records) of an offline asr score run in a fresh process."""
    (tmp_path / "ref.txt").write_text(refs, encoding="utf-8")
    (tmp_path / "hyp.txt").write_text(hyps, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    argv = ["asr", "score", "--ref", str(tmp_path / "ref.txt"), "--hyp", str(tmp_path / "hyp.txt"), "--ids"]
    argv += ["--lang", "en", "--jobs", "1", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", SCORE_PROBE % json.dumps(unused), *argv], capture_output=True, text=True, check=True
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("LOADED="))
    return json.loads(line[len("LOADED=") :]), [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]


def test_offline_score_imports_no_model_client(tmp_path):
    loaded, records = _offline_score(
        tmp_path,
        "u1 the colour of the sky is blue\nu2 we meet at 5 pm\nu3 so it is done\n",
        "u1 the color of a sky is blew\nu2 we meet at five pm\nu3 so it is is done now\n",
        OFFLINE_UNUSED,
    )
    assert loaded == []
    got = [
        (
            r["id"],
            r["laser"],
            r["wer"],
            [(p["ref"], p["hyp"], p["label"], p["error_type"]) for p in r["pairs"] if p["label"] != "match"],
        )
        for r in records
    ]
    assert got == [
        ("u1", 0.7857142857142857, 0.42857142857142855, [
            ("colour", "color", "no_penalty", "alternate_spelling"),
            ("the", "a", "major", "wrong_word"),
            ("blue", "blew", "minor", "homophone"),
        ]),
        ("u2", 1.0, 0.2, [("5", "five", "no_penalty", "numerical_phrase")]),
        ("u3", 0.75, 0.5, [("", "is", "no_penalty", "repetition"), ("", "now", "major", "addition")]),
    ]  # fmt: skip


def test_offline_score_without_phonemes_imports_no_asyncio(tmp_path):
    # asyncio comes only with phonemizer (its joblib), which a run loads once a substitution needs
    # phonemes; voxjudge itself never imports it offline
    loaded, records = _offline_score(
        tmp_path, "u3 so it is done\n", "u3 so it is is done now\n", (*OFFLINE_UNUSED, "asyncio", "phonemizer")
    )
    assert loaded == []
    assert [(r["id"], r["laser"], r["penalty"]) for r in records] == [("u3", 0.75, 1.0)]
