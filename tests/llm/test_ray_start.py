"""``ensure_ray`` stopped part-way (Ctrl-C or SIGTERM while Ray starts) stops what Ray had started:
its agents ran on for a minute or two, orphaned. No Ray is started here: ``ray.init`` is replaced."""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray", reason="the Ray engine needs the [ray] extra")

from voxjudge.cli.main import Terminated  # noqa: E402
from voxjudge.llm import ray_start  # noqa: E402


@pytest.mark.parametrize("stop", [KeyboardInterrupt, Terminated])
def test_an_interrupted_start_shuts_down_what_it_started(monkeypatch, stop):
    calls = []

    def init(**kwargs):
        calls.append("init")
        raise stop

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append("shutdown"))
    monkeypatch.setattr(ray_start, "_running_ray", lambda: None)
    with pytest.raises(stop):
        ray_start.ensure_ray(None)
    assert calls == ["init", "shutdown"]


def test_auto_with_no_running_ray_names_voxjudge_s_option_not_ray_s(monkeypatch, tmp_path):
    """Ray's message told the user to set "`--address` flag", which no voxjudge command has."""
    from voxjudge.cli.wording import worded
    from voxjudge.llm.errors import ConfigError

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray_start, "canonicalize_bootstrap_address", _none_running)
    with pytest.raises(ConfigError) as e:
        ray_start.ensure_ray("auto")
    said = worded(e.value)
    assert "no running Ray found on this machine" in said and "start a head node with Ray's `ray start`" in said
    assert "give --ray-address" in said and "`--address` flag" not in said
    assert "give its address" in str(e.value)  # the library's own wording names no flag


def _none_running(address):
    # what Ray raises for "auto" when no `ray start` left an address behind
    raise ConnectionError(
        "Could not find any running Ray instance. Please specify the one to connect to by setting "
        "`--address` flag or `RAY_ADDRESS` environment variable."
    )
