"""``--engine ray`` is never accepted and then ignored: a command that cannot run its work on
Ray refuses the flag in one line (exit 2, nothing written), and a LASER summary says which
engine ran. (The runs on a real Ray are in tests/asr/test_laser_ray.py, marked slow.)"""

from __future__ import annotations

import json

import pytest

from voxjudge.cli.main import main


def _one_line_exit_2(capsys, argv, *phrases):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    for phrase in phrases:
        assert phrase in err, err
    return err


def test_asr_score_jobs_with_ray_is_refused(capsys, examples, tmp_path):
    d = examples / "asr" / "en"
    out = tmp_path / "r.jsonl"
    argv = ["asr", "score", "--ref", str(d / "ref.txt"), "--hyp", str(d / "sys_a.txt"), "--ids", "--out", str(out)]
    _one_line_exit_2(capsys, [*argv, "--engine", "ray", "--jobs", "2"], "--jobs", "--ray-workers")
    assert not out.exists()


def test_asr_classify_with_an_offline_judge_refuses_ray(capsys, tmp_path):
    pairs = tmp_path / "p.csv"
    pairs.write_text("ref,hyp\ncolour,color\n")
    out = tmp_path / "o.csv"
    argv = ["asr", "classify", str(pairs), "--out", str(out), "--engine", "ray"]
    _one_line_exit_2(capsys, argv, "offline judge 'default'", "--engine ray")
    _one_line_exit_2(capsys, [*argv, "--judge", "rules"], "offline judge 'rules'")
    assert not out.exists()


def test_llm_ping_refuses_ray(capsys):
    _one_line_exit_2(capsys, ["llm", "ping", "--judge", "fake/schema", "--engine", "ray"], "llm ping", "--engine ray")


def test_a_local_laser_summary_says_its_engine(capsys, examples):
    d = examples / "asr" / "en"
    assert main(["asr", "score", "--ref", str(d / "ref.txt"), "--hyp", str(d / "sys_a.txt"), "--ids", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["engine"] == "local"


@pytest.mark.parametrize("flag", [["--ray-address", "127.0.0.1:6399"], ["--ray-workers", "5"]])
@pytest.mark.parametrize("command", ["score", "metrics"])
def test_ray_options_without_the_ray_engine_are_refused(capsys, examples, flag, command):
    """They were ignored: the run went local, never trying the address it was given."""
    from voxjudge.cli.main import main

    en = examples / "asr" / "en"
    argv = ["asr", command, "--ref", str(en / "ref.txt"), "--hyp", str(en / "sys_b.txt"), "--ids", *flag]
    argv += ["--embedder", "fake/hash", "--no-cache"] if command == "metrics" else ["--judge", "rules"]
    assert main(argv) == 2
    assert "goes with --engine ray" in capsys.readouterr().err


def test_ray_shards_without_the_ray_engine_are_refused(capsys, tmp_path):
    """--ray-shards was ignored without --engine ray: the run went local and kept no shards."""
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"id": "a", "prompt": "hi"}\n')
    argv = ["llm", "run", str(prompts), "--judge", "fake/echo", "--no-cache", "--out", str(tmp_path / "o.jsonl")]
    assert main([*argv, "--ray-shards", str(tmp_path / "shards")]) == 2
    assert "--ray-shards goes with --engine ray" in capsys.readouterr().err
    assert not (tmp_path / "shards").exists() and not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--judge", "rules", "--rpm", "5"], "--rpm sets model calls, and this run makes none"),
        (["--max-cost", "1", "--log", "calls.jsonl"], "--max-cost and --log set model calls"),
        (["--mode", "sentence"], "--mode goes with an LLM judge"),
        (["--judge", "rules", "--batch-size", "8", "--no-prefilter"], "--batch-size and --no-prefilter go with"),
        (["--judge", "fake/schema", "--jobs", "2"], "--jobs counts the offline judges' worker processes"),
    ],
)
def test_model_call_options_where_no_model_is_called_are_refused(capsys, examples, tmp_path, argv, message):
    """They were accepted and ignored: an offline run makes no model call (and --jobs does nothing
    for an LLM judge)."""
    en = examples / "asr" / "en"
    out = tmp_path / "o.jsonl"
    base = ["asr", "score", "--ref", str(en / "ref.txt"), "--hyp", str(en / "sys_a.txt"), "--ids", "--out", str(out)]
    assert main([*base, *argv]) == 2
    assert message in capsys.readouterr().err and not out.exists()


def test_call_options_stay_for_the_embedders_calls(capsys, examples, tmp_path):
    en = examples / "asr" / "en"
    argv = ["asr", "score", "--ref", str(en / "ref.txt"), "--hyp", str(en / "sys_a.txt"), "--ids", "--judge", "rules"]
    assert main([*argv, "--embedder", "fake/hash", "--no-cache", "--rpm", "6000", "--json"]) == 0
    assert "semdist" in json.loads(capsys.readouterr().out)
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("ref,hyp\ncolour,color\n")
    assert main(["asr", "classify", str(pairs), "--rpm", "5"]) == 2  # classify has no embedder
    assert "--rpm sets model calls, and this run makes none" in capsys.readouterr().err
