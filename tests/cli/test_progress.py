from __future__ import annotations

import io
import sys
from contextlib import contextmanager

import pytest

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


@pytest.mark.parametrize("command", ["metrics", "compare"])
def test_the_progress_bar_counts_the_embeddings(command, tmp_path, monkeypatch, capsys):
    # 3 utterances, 4 distinct texts to embed (u3 is identical on both sides: never embedded)
    import voxjudge.cli.asr as cli
    from voxjudge.cli.main import main

    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("u1 the cat sat\nu2 hello world\nu3 same\n", encoding="utf-8")
    hyp.write_text("u1 the cat sat down\nu2 hello word\nu3 same\n", encoding="utf-8")
    seen: list[tuple[int, int]] = []

    @contextmanager
    def bar(_what):
        yield lambda done, total: seen.append((done, total))

    monkeypatch.setattr(cli, "progress_bar", bar)
    files = ["--hyp", str(hyp)] if command == "metrics" else ["--hyp-a", str(hyp), "--hyp-b", str(ref)]
    argv = ["asr", command, "--ref", str(ref), *files, "--ids", "--embedder", "fake/hash?batch_size=1", "--no-cache"]
    assert main(argv) == 0
    embedded = [done for done, total in seen if total == 4]  # not the 3 utterances
    assert embedded[-1] == 4 and embedded == sorted(embedded) and len(embedded) > 2
