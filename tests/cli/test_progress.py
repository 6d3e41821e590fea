from __future__ import annotations

import io
import sys

from voxjudge.cli.common import progress_bar


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_progress_bar_when_stderr_is_not_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress_bar("scoring") as update:
        assert update is None


def test_progress_bar_on_a_terminal_goes_to_stderr(monkeypatch, capsys):
    fake = FakeTTY()
    monkeypatch.setattr(sys, "stderr", fake)
    with progress_bar("scoring") as update:
        assert callable(update)
        update(5, 10)
        update(10, 10)
    assert "scoring" in fake.getvalue()
    assert capsys.readouterr().out == ""
