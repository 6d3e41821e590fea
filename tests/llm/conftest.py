"""Fixtures for the LLM tests: fake scripts and providers registered for one test only, and
structured-output negotiation forgotten between tests, so test order cannot matter."""

from __future__ import annotations

import pytest

from voxjudge.llm import negotiate, registry
from voxjudge.llm.providers import fake


@pytest.fixture(autouse=True)
def _fresh_negotiation():
    negotiate.reset()
    yield
    negotiate.reset()


@pytest.fixture
def fake_script(monkeypatch):
    """``fake_script(name, fn)`` registers ``fn`` as ``fake/<name>`` for this test; returns the spec."""

    def register(name, script):
        monkeypatch.setitem(fake._SCRIPTS, name, script)
        return f"fake/{name}"

    return register


@pytest.fixture
def provider(monkeypatch):
    """``provider(name, factory)`` registers a provider for this test only."""

    def register(name, factory):
        monkeypatch.setitem(registry._CUSTOM, name, factory)

    return register
