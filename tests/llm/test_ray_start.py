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
