"""Fixtures for the LLM tests: fake scripts and providers registered for one test only, and
structured-output negotiation forgotten between tests, so test order cannot matter."""

from __future__ import annotations

import pytest

from voxjudge.llm import negotiate, registry, spec


@pytest.fixture(autouse=True)
def _fresh_negotiation():
    negotiate.reset()
    yield
    negotiate.reset()


@pytest.fixture
def provider(monkeypatch):
    """``provider(name, factory)`` registers a provider for this test only."""

    def register(name, factory):
        monkeypatch.setitem(registry._CUSTOM, name, factory)
        monkeypatch.setattr(spec, "_REGISTERED", spec._REGISTERED | {name})

    return register


@pytest.fixture
def build_refs(examples, tmp_path):
    """``build_refs(*options, texts=K)``: ``voxjudge breaks build-refs`` on the first K example
    texts (all of them by default) with the example pool, writing ``tmp_path/t.jsonl``; returns
    the exit status. ``build_refs.texts`` is the texts file it read."""
    from voxjudge.cli.main import main

    breaks = examples / "breaks"

    def run(*options: str, texts: int | None = None) -> int:
        path = breaks / "texts.txt"
        if texts is not None:
            path = tmp_path / "texts.txt"
            path.write_text("\n".join((breaks / "texts.txt").read_text().splitlines()[:texts]) + "\n")
        run.texts = path
        argv = ["breaks", "build-refs", "--texts", str(path), "--pool", str(breaks / "pool.txt")]
        return main([*argv, "--out", str(tmp_path / "t.jsonl"), *options])

    return run
