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

from voxjudge.cli.helptext import EXAMPLES, EXTRAS, commands, example_commands
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
        if action.default is None or isinstance(action.default, bool) or action.default == argparse.SUPPRESS:
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


def extra_modules() -> dict[str, set[str]]:
    """The top-level modules each pip extra of pyproject.toml brings (its direct requirements),
    minus those a core dependency provides too."""
    import importlib.metadata as md
    import re

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    by_dist: dict[str, set[str]] = {}
    for module, dists in md.packages_distributions().items():
        for d in dists:
            by_dist.setdefault(re.sub(r"[-_.]+", "-", d).lower(), set()).add(module)

    def modules(requirements) -> set[str]:
        names = {re.sub(r"[-_.]+", "-", re.split(r"[\[<>=;~! ]", r, maxsplit=1)[0]).lower() for r in requirements}
        return set().union(*(by_dist.get(n, set()) for n in names))

    core = modules(project["dependencies"])
    extras = {k: v for k, v in project["optional-dependencies"].items() if k not in ("test", "all")}
    return {name: modules(reqs) - core for name, reqs in extras.items()}


BLOCKER = """
import os, sys
from importlib.abc import MetaPathFinder
BLOCKED = set(filter(None, os.environ.get("VOXJUDGE_TEST_BLOCK", "").split(",")))
class Block(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
"""


def run_example(name: str, example: str, cwd: Path, blocker: Path):
    """Run one example as a user would, after installing voxjudge with the extra its help names
    (and no other: the modules of the other extras cannot be imported)."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("OPENAI_API_KEY", None)  # dry runs must not need a key
    named = EXTRAS.get(name)
    blocked = set().union(*(mods for extra, mods in extra_modules().items() if extra != named))
    env["VOXJUDGE_TEST_BLOCK"] = ",".join(sorted(blocked))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(blocker), env.get("PYTHONPATH")]))
    serves = "studio serve" in example  # a server runs until stopped: it must still be up after a while
    if serves:
        example = example.replace("voxjudge studio serve", "timeout 10 voxjudge studio serve")
    done = subprocess.run(
        ["bash", "-c", "set -e; " + example], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    expected = 124 if serves else 0  # timeout's status when it had to stop the command
    if name == "studio export":  # a fresh study has no answers yet: the one-line refusal is the example's point
        expected = 2
        assert "no answers to export yet" in done.stderr
    assert done.returncode == expected, f"{example}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def blocker(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("blocker")
    (folder / "sitecustomize.py").write_text(BLOCKER)
    return folder


def test_examples_that_need_an_extra_say_which_and_the_blocker_works(blocker, tmp_path):
    mods = extra_modules()
    assert {"sklearn"} <= mods["train"] and {"sqlalchemy", "starlette", "jinja2"} <= mods["studio"]
    assert "ray" in mods["ray"] and "numpy" not in set().union(*mods.values())
    for name, extra in EXTRAS.items():
        assert extra in mods, name
        assert f"after pip install 'voxjudge[{extra}]'" in dict(PARSERS)[name].format_help()
    # without the train extra the example stops with the install line, not a traceback
    with pytest.raises(AssertionError, match=r"pip install 'voxjudge\[train\]'"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setitem(EXTRAS, "asr train", "ray")
            (tmp_path / "examples").symlink_to(ROOT / "examples")
            run_example("asr train", EXAMPLES["asr train"][0], tmp_path, blocker)


@pytest.mark.slow
@pytest.mark.parametrize("name, example", example_commands(), ids=[e[:60] for _, e in example_commands()])
def test_example_runs(name, example, workdir, blocker):
    run_example(name, example, workdir, blocker)


@pytest.mark.slow
def test_examples_run_one_after_another_in_one_folder(workdir, blocker):
    """As a user trying them in turn: no example fails because an earlier one left something behind
    (a study folder of the same name, an output file)."""
    for name, example in example_commands():
        run_example(name, example, workdir, blocker)


def test_flags_state_no_default_and_the_asr_group_names_laser():
    parsers = dict(PARSERS)
    text = parsers["asr metrics"].format_help()
    no_ids = text[text.index("--no-ids") : text.index("--format")]
    assert "default" not in no_ids
    top = " ".join(parsers[""].format_help().split())
    assert "system comparison, LASER rubric scores (asr score)" in top
    from voxjudge.cli.main import build_parser as fast

    listed = " ".join(fast(["--help"]).format_help().split())  # the start-up's own list of commands
    assert "system comparison, LASER rubric scores (asr score)" in listed
    group = parsers["asr"].format_help()
    assert "LASER" in group and "(score" in group and "voxjudge asr score" in group


def test_lang_help_states_the_detectors_thresholds():
    """The --lang help words the Latin-script rule the detector applies (profiles' constants)."""
    from voxjudge.asr.laser import profiles

    (score,) = [p for n, p in PARSERS if n == "asr score"]
    (lang,) = [a for a in score._actions if "--lang" in a.option_strings]
    words = {3: "three", 8: "an eighth"}
    assert f"{words[profiles._FEWEST_VOTES]} function words" in lang.help
    assert f"{words[profiles._SMALLEST_SHARE]} of its words" in lang.help
