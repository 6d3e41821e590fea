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


def test_rules_scoring_reports_progress_to_the_end():
    from voxjudge.asr.laser.scoring import score

    refs = ["the cat sat on the mat"] * 1500
    hyps = ["the cat sat on a mat"] * 1500
    seen = []
    score(refs, hyps, lang="en", progress=lambda done, total: seen.append((done, total)))
    assert len(seen) > 1 and seen[-1][0] == seen[-1][1] == 1500 * 6
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_asr_score_shows_progress_on_a_terminal(monkeypatch, capsys, examples):
    from voxjudge.cli.main import main

    fake = FakeTTY()
    monkeypatch.setattr(sys, "stderr", fake)
    en = examples / "asr" / "en"
    assert main(["asr", "score", "--ref", str(en / "ref.txt"), "--hyp", str(en / "sys_a.txt"), "--ids"]) == 0
    assert "labelling word pairs" in fake.getvalue()
