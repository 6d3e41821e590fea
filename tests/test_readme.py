"""The README's first screen takes a new user from install to a first result on their own files;
reference material lives in docs/, linked; what the README lists matches what the code has."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
QUICK_START = [
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && voxjudge demo",
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && pytest -m \"not slow\" "
    "&& pytest -m slow",
]
FIRST_SCREEN = 60  # lines: install, demo and the first commands on one's own files


def section(text: str, title: str) -> str:
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def bash_commands(text: str) -> list[str]:
    """The commands of the ```bash blocks, continuation lines joined, comments dropped."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for cmd in block.replace("\\\n", " ").split("\n"):
            cmd = cmd.split("  #")[0].strip()
            if cmd and not cmd.startswith("#"):
                out.append(" ".join(cmd.split()))
    return out


def test_the_quick_start_is_the_two_commands_ci_runs():
    assert bash_commands(section(README, "Quick start")) == QUICK_START
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[test]'" in ci and 'pytest -m "not slow" && pytest -m slow' in ci


def test_the_first_screen_goes_from_install_to_a_first_result():
    screen = "\n".join(README.split("\n")[:FIRST_SCREEN])
    assert "pip install ." in screen and "voxjudge demo" in screen
    first = section(README, "Your first result")
    assert README.index("## Your first result") < len(screen)
    commands = bash_commands(first)
    groups = {" ".join(c.split()[1:3]) for c in commands}
    assert {"asr metrics", "asr score", "breaks score", "pairwise judge"} <= groups
    assert "your own files" in first


@pytest.mark.slow
def test_the_first_result_commands_run_as_written(tmp_path):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    for cmd in bash_commands(section(README, "Your first result")):
        done = subprocess.run(shlex.split(cmd), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{cmd}\n{done.stderr[-2000:]}"


def test_the_readme_is_a_first_screen_and_a_map():
    assert len(README.split("\n")) <= 120
    assert len(DOCS) >= 8


def _links(path: Path) -> list[tuple[str, str]]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # links in code are code
    return [(path.name, m) for m in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", m)]


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.*)$", text, re.M)}


def test_every_link_of_readme_and_docs_resolves():
    broken = []
    for path in [ROOT / "README.md", *DOCS]:
        for name, link in _links(path):
            file, _, anchor = link.partition("#")
            target = (path.parent / file).resolve() if file else path
            if not target.exists() or (anchor and target.suffix == ".md" and anchor not in _anchors(target)):
                broken.append((name, link))
    assert broken == []
    linked = {(ROOT / link.partition("#")[0]).resolve() for _, link in _links(ROOT / "README.md")}
    assert [d.name for d in DOCS if d.resolve() not in linked] == []  # every page is reachable from the README


def test_the_command_groups_listed_are_the_ones_there_are():
    from voxjudge.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    listed = next(p for p in section(README, "What is inside").strip().split("\n\n") if p.startswith("Command groups:"))
    assert sorted(re.findall(r"`(\w+)`", listed.split("(")[0] + listed.split(")", 1)[1])) == sorted(sub.choices)
    asr = next(a for a in sub.choices["asr"]._actions if isinstance(a, argparse._SubParsersAction))
    assert set(re.search(r"`asr` \(([^)]*)\)", listed).group(1).replace(",", " ").split()) == set(asr.choices)


def test_every_extra_is_listed():
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    install = section(README, "Install")
    assert [e for e in extras if f"[{e}]" not in install] == []


def test_python_api_snippet_runs_as_written():
    text = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    snippet = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    done = subprocess.run([sys.executable, "-c", snippet], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
