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
