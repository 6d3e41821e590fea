"""The protocol refuses bad evidence: partial or unrelated judgment files, unusable answers,
too few votes for a filter, odd sample counts, differing texts, unreadable audio."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest
from espeak_corpus import write_wav

from voxjudge.cli.main import main
from voxjudge.cli.views import render_hit_rates
from voxjudge.errors import InputError
from voxjudge.llm.providers import fake
from voxjudge.pairwise import CandidateSet, Rubric, accuracy_report, confident_winner, hit_rates, read_pairs
from voxjudge.pairwise.tournament import Selection

CORE = Rubric.default().select(["C1", "C2", "C3", "C4"])


@pytest.fixture
def judged(examples, tmp_path, capsys):
    """The shipped pairs judged by the acoustic judge (4 samples) and their file."""
    pairs = examples / "pairwise" / "pairs.jsonl"
    out = tmp_path / "acoustic.jsonl"
    assert main(["pairwise", "judge", "--pairs", str(pairs), "--samples", "4", "--out", str(out)]) == 0
    capsys.readouterr()
    return pairs, out


def _subset(path, out, keep):
    lines = [line for line in path.read_text().splitlines() if json.loads(line)["pair_id"] in keep]
    out.write_text("\n".join(lines) + "\n")
    return out


def test_analyze_refuses_partial_judgments_unless_allowed(judged, tmp_path, capsys):
    pairs, full = judged
    one = _subset(full, tmp_path / "one.jsonl", {"t0-natural-vs-monotone"})
    assert main(["pairwise", "analyze", str(one), "--pairs", str(pairs)]) == 2
    err = capsys.readouterr().err
    assert "has no entry for 17 of the 18 pairs in the pairs file" in err
    assert "'t0-natural-vs-misplaced'" in err and "--allow-partial" in err
    assert main(["pairwise", "analyze", str(one), "--pairs", str(pairs), "--allow-partial", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["pairs_judged"] == 1 and rep["pairs_in_file"] == 18 and rep["coverage"] == pytest.approx(1 / 18)
    assert len(rep["missing_pairs"]) == 17 and rep["n_pairs"] == 1
    assert main(["pairwise", "analyze", str(one), "--pairs", str(pairs), "--allow-partial"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("partial: ") and "judges 1 of the 18 pairs of the pairs file" in out


def test_unrelated_judgments_are_refused_even_when_partial_is_allowed(judged, tmp_path, capsys, pairs_file):
    pairs, full = judged
    other = pairs_file(
        [{"pair_id": "x1", "text": "t", "audio_a": "a.wav", "audio_b": "b.wav", "human": {"overall": "A"}}]
    )
    for extra in ([], ["--allow-partial"]):
        assert main(["pairwise", "analyze", str(full), "--pairs", str(other), *extra]) == 2
        assert "none of its 18 ids is among the pairs in the pairs file" in capsys.readouterr().err
    # judgments of more pairs than the file has: an error, or ignored and reported with --allow-partial
    sub = tmp_path / "sub.jsonl"  # three of the pairs; the audio paths are relative to the pairs file
    sub.write_text("".join(line + "\n" for line in pairs.read_text().splitlines()[:3]))
    shutil.copytree(pairs.parent / "audio", tmp_path / "audio")
    assert main(["pairwise", "analyze", str(full), "--pairs", str(sub)]) == 2
    assert "has 15 ids that are not among the pairs in the pairs file" in capsys.readouterr().err
    assert main(["pairwise", "analyze", str(full), "--pairs", str(sub), "--allow-partial", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    # the acoustic judge is deterministic: one judgment per order
    assert rep["n_pairs"] == 3 and len(rep["unknown_pairs"]) == 15 and rep["n_judgments"] == 3 * 2


def test_compare_refuses_a_partial_file_and_reports_coverage_when_allowed(judged, tmp_path, capsys):
    pairs, full = judged
    one = _subset(full, tmp_path / "one.jsonl", {"t0-natural-vs-monotone"})
    argv = ["pairwise", "compare", str(full), str(one), "--pairs", str(pairs), "--resamples", "200"]
    assert main(argv) == 2
    assert "one.jsonl has no entry for 17 of the 18 pairs" in capsys.readouterr().err
    assert main([*argv, "--allow-partial", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["n_pairs"] == 1 and res["coverage_b"]["pairs_judged"] == 1 and res["coverage_a"]["coverage"] == 1.0
    assert main([*argv, "--allow-partial"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("partial: ") and "judges 1 of the 18 pairs" in out and out.strip().endswith("seed 0)")


def test_n_judgments_counts_abstained_judgments_too(examples):
    pairs = read_pairs(examples / "pairwise" / "pairs.jsonl", check_audio=False)
    records = [
        {"pair_id": p.pair_id, "first": f, "sample": k, "scores": {}, "raw": {"first": {}, "second": {}},
         "abstained": CORE.ids, "error": "unusable"}
        for p in pairs for f in "AB" for k in range(2)
    ]  # fmt: skip
    rep = accuracy_report(records, pairs, CORE)
    assert rep["n_judgments"] == 4 * len(pairs) and rep["n_scored_judgments"] == 0
    assert rep["n_abstained_pairs"] == len(pairs) and rep["accuracy"] == 0.0


def _garbage(request, index):
    return "this is not the JSON you asked for"


@pytest.fixture(autouse=True)
def _garbage_script(monkeypatch):
    monkeypatch.setitem(fake._SCRIPTS, "pairwise-garbage", _garbage)


def test_judge_exits_3_when_answers_are_unusable_and_counts_the_failures(examples, tmp_path, capsys):
    pairs = examples / "pairwise" / "pairs.jsonl"
    out = tmp_path / "j.jsonl"
    argv = ["pairwise", "judge", "--pairs", str(pairs), "--judge", "fake/pairwise-garbage", "--samples", "2"]
    assert main([*argv, "--no-cache", "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert "36 failures" in err and "36 failed" in err  # the usage status line, in words
    assert "voxjudge: incomplete: 36 of 36 judgments have no usable answer" in err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 36 and all(r["error"] and r["scores"] == {} for r in records)  # recorded, not lost


def test_judge_with_a_silent_clip_flags_the_pair_and_the_clip_with_speech_wins(examples, tmp_path, capsys, pairs_file):
    speech = examples / "pairwise" / "audio" / "t0_natural.wav"
    write_wav(tmp_path / "silence.wav", np.zeros(4 * 16000))
    text = "When the rain stopped, the streets were full of people."
    silent = {"audio_a": "silence.wav", "audio_b": "silence.wav"}
    path = pairs_file([{"pair_id": "s", "text": text, "audio_a": str(speech), "audio_b": "silence.wav"},
                       {"pair_id": "both", "text": text, **silent}])  # fmt: skip
    out = tmp_path / "j.jsonl"
    assert main(["pairwise", "judge", "--pairs", str(path), "--samples", "2", "--out", str(out)]) == 3
    printed = capsys.readouterr()
    err, table = printed.err, printed.out
    assert "voxjudge: warning: pair 's', clip B" in err and "no speech: digital silence" in err
    assert "warning: pair 's' decided without rating: clip A wins: clip B" in err
    assert "2 of 4 judgments have no usable answer (first: pair 'both'" in err  # both silent: abstains
    records = [json.loads(line) for line in out.read_text().splitlines()]
    flagged = [r for r in records if r["pair_id"] == "s"]
    # the clip with speech wins what the judge measures; C3, L1, L3 are absent, not lost by the silence
    assert all(r["flag"] and r["error"] is None and list(r["scores"]) == ["C1", "C2", "C4", "L2"] for r in flagged)
    assert all(r["verdict"] == "A" for r in flagged)
    both = [r for r in records if r["pair_id"] == "both"]
    assert all("no speech" in r["error"] and r["abstained"] == ["C1", "C2", "C4", "L2"] for r in both)
    assert all(r["verdict"] == "abstain" for r in both)
    # the table marks the pair decided without rating and says why under it
    assert " A* " in next(line for line in table.splitlines() if line.startswith("│ s "))
    assert "* s: decided without rating: clip A wins: clip B" in table
    assert "abstain" in next(line for line in table.splitlines() if line.startswith("│ both"))


def test_unreadable_audio_stops_every_judge_before_any_request(examples, tmp_path, capsys, pairs_file):
    (tmp_path / "random.wav").write_bytes(np.random.default_rng(0).bytes(3000))
    speech = examples / "pairwise" / "audio" / "t0_natural.wav"
    path = pairs_file([{"pair_id": "r", "text": "t", "audio_a": str(speech), "audio_b": "random.wav"}])
    for judge in ("acoustic", "fake/prosody"):
        out = tmp_path / f"{judge.replace('/', '_')}.jsonl"
        assert main(["pairwise", "judge", "--pairs", str(path), "--judge", judge, "--out", str(out)]) == 2
        assert "random.wav: not a readable audio file" in capsys.readouterr().err and not out.exists()


def test_odd_samples_warn(examples, tmp_path, capsys):
    pairs = examples / "pairwise" / "pairs.jsonl"
    out = tmp_path / "j.jsonl"
    assert main(["pairwise", "judge", "--pairs", str(pairs), "--samples", "3", "--out", str(out)]) == 0
    assert "--samples 3 is odd" in capsys.readouterr().err
    assert main(["pairwise", "judge", "--pairs", str(pairs), "--out", str(out)]) == 0  # default: 10, even
    err = capsys.readouterr().err
    assert "is odd" not in err
    # the acoustic judge is deterministic: one judgment per order stands for the 5 samples asked of it
    assert "36 judgments of 18 pairs (the acoustic judge is deterministic: --samples 10 collapse" in err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 18 * 2 and all(r["stands_for"] == 5 for r in records)


def test_pairs_whose_clips_have_different_texts_are_an_error(tmp_path, pairs_file):
    (tmp_path / "a.wav").write_bytes(b"x")
    row = {"pair_id": "p", "audio_a": "a.wav", "audio_b": "a.wav"}
    assert read_pairs(pairs_file([{**row, "text_a": "Hello there.", "text_b": "Hello  there."}]))[0].text == (
        "Hello there."
    )
    with pytest.raises(InputError, match="pair 'p': the clips have different texts"):
        read_pairs(pairs_file([{**row, "text_a": "Hello there.", "text_b": "Goodbye."}], "b.jsonl"))
    with pytest.raises(InputError, match="different texts"):
        read_pairs(pairs_file([{**row, "text": "Hello.", "text_b": "Goodbye."}], "c.jsonl"))
    with pytest.raises(InputError, match="missing field 'text'"):
        read_pairs(pairs_file([row], "d.jsonl"))


def test_filters_are_defined_on_vote_counts():
    with pytest.raises(InputError, match="needs at least 4 votes, got 2"):
        confident_winner(["B", "A"], "3-1")
    assert confident_winner(["A"] * 10, "4-0") == "A"
    assert confident_winner(["A"] * 9 + ["B"], "3-1") == "A" and confident_winner(["A"] * 9 + ["B"], "4-0") is None
    assert confident_winner(["A"] * 8 + ["B", "B"], "3+abstain") is None


def test_distill_says_when_there_are_too_few_votes(examples, tmp_path, capsys):
    pairs = examples / "pairwise" / "pairs.jsonl"
    two = tmp_path / "two.jsonl"
    argv = ["pairwise", "judge", "--pairs", str(pairs), "--judge", "fake/prosody?noise=0", "--samples", "2"]
    assert main([*argv, "--out", str(two), "--no-cache"]) == 0
    capsys.readouterr()
    sft = tmp_path / "sft.jsonl"
    assert main(["pairwise", "distill", str(two), "--pairs", str(pairs), "--keep", "3-1", "--out", str(sft)]) == 2
    err = capsys.readouterr().err
    assert "the 3-1 filter counts votes and needs at least 4 judgments per pair" in err and "--samples 4" in err
    assert not sft.exists()


def test_sft_audio_paths_are_relative_to_the_output_file(examples, tmp_path, capsys, monkeypatch):
    pairs = examples / "pairwise" / "pairs.jsonl"
    teacher = tmp_path / "teacher.jsonl"
    argv = ["pairwise", "judge", "--pairs", str(pairs), "--judge", "fake/prosody?noise=0", "--samples", "4"]
    assert main([*argv, "--out", str(teacher), "--no-cache"]) == 0
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    out = tmp_path / "data" / "sft" / "train.jsonl"
    out.parent.mkdir(parents=True)
    rel_pairs = os.path.relpath(pairs)
    assert main(["pairwise", "distill", str(teacher), "--pairs", rel_pairs, "--out", os.path.relpath(out)]) == 0
    examples_out = [json.loads(line) for line in out.read_text().splitlines()]
    assert examples_out
    for ex in examples_out:
        for audio in ex["audios"]:
            assert not os.path.isabs(audio) and (out.parent / audio).resolve().is_file()


def test_hit_at_k_only_where_a_top_k_is_labelled():
    sets = [CandidateSet("s", "t", ("a", "b", "c", "d"), human_topk=(2,))]  # only the human winner labelled
    sel = [Selection("s", 2, [0, 0, 3, 0], [0.0] * 4, 6, {1: True, 2: None, 3: None})]
    rates = hit_rates(sel, sets)
    assert rates["hit@1"] == 1.0 and rates["random@1"] == 0.25  # one pick of four
    assert rates["hit@2"] is rates["random@2"] is rates["hit@3"] is rates["random@3"] is None  # who is 2nd: unknown
    assert render_hit_rates(rates) == "Hit@1 100.00% (random 25.00%) (no Hit@2/3: no set labels a top 2)"
    full = [*sets, CandidateSet("u", "t", ("a", "b", "c", "d"), human_topk=(2, 0, 1))]
    sel2 = [*sel, Selection("u", 1, [0, 3, 0, 0], [0.0] * 4, 6, {1: False, 2: True, 3: True})]
    rates = hit_rates(sel2, full)
    assert (rates["n_rated@1"], rates["n_rated@2"], rates["n_rated@3"]) == (2, 1, 1)
    assert rates["hit@1"] == 0.5 and rates["hit@2"] == 1.0 and rates["random@2"] == 0.5 and rates["random@3"] == 0.75
    assert "Hit@2 100.00% (random 50.00%, over 1 set with a top 2)" in render_hit_rates(rates)
