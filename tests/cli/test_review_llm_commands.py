"""Review of `llm ping`, `llm run` and `cache stats|clear`: bad input is one line and exit 2,
never a traceback or a silent guess; numbers in messages are the run's own."""

from __future__ import annotations

import json
import sqlite3

import pytest

from voxjudge.cli.main import main
from voxjudge.llm.fakeserver import FakeLLMServer


def _prompts(tmp_path, *lines: str, name: str = "p.jsonl"):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _one_line_exit_2(capsys, argv, *needles):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("voxjudge: error: ") and err.count("\n") == 1, err
    for needle in needles:
        assert needle in err, err
    return err


@pytest.mark.parametrize(
    "line, needle",
    [
        ('{"id": null, "prompt": "x"}', "'id' must be"),  # used to run as id "None"
        ('{"id": {"k": 1}, "prompt": "x"}', "'id' must be"),  # used to run as id "{'k': 1}"
        ('{"id": true, "prompt": "x"}', "'id' must be"),  # used to run as id "True"
        ('{"id": "", "prompt": "x"}', "'id' must be"),
        ('{"id": "a", "prompt": "x", "system": 5}', "'system' must be a string"),  # a traceback
        ('{"id": "a", "prompt": "x", "system": ["s"]}', "'system' must be a string"),  # a traceback
        ('{"id": "a", "prompt": "x", "audio": 5}', "'audio' must be"),  # a traceback
        ('{"id": "a", "prompt": "x", "audio": [1]}', "'audio' must be"),  # a traceback
        ('{"id": "a", "prompt": "x", "audio": {"p": 1}}', "'audio' must be"),  # "p: audio file not found"
        ('{"id": "a", "prompt": "x", "audio": "nope.wav"}', "p.jsonl:1: "),  # names the prompts line
    ],
)
def test_review_run_refuses_bad_prompt_fields(tmp_path, capsys, line, needle):
    path = _prompts(tmp_path, line)
    out = tmp_path / "out.jsonl"
    _one_line_exit_2(capsys, ["llm", "run", str(path), "--judge", "fake/schema", "--out", str(out)], needle)
    assert not out.exists()


def test_review_run_accepts_whole_number_ids(tmp_path, capsys):
    path = _prompts(
        tmp_path, '{"id": 7, "prompt": "x"}', '{"id": "b", "prompt": "y", "system": "s"}', '{"id": 8.0, "prompt": "z"}'
    )
    assert main(["llm", "run", str(path), "--judge", "fake/schema", "--no-cache"]) == 0
    assert [json.loads(x)["id"] for x in capsys.readouterr().out.splitlines()] == ["7", "b", "8"]


def test_review_run_empty_and_blank_files_speak_of_prompts(tmp_path, capsys):
    empty = _prompts(tmp_path, name="empty.jsonl")
    empty.write_text("")
    err = _one_line_exit_2(capsys, ["llm", "run", str(empty), "--judge", "fake/schema"], "no prompts")
    assert "utterance" not in err  # the reader's wording for transcripts
    blank = _prompts(tmp_path, "", "  ", name="blank.jsonl")
    _one_line_exit_2(capsys, ["llm", "run", str(blank), "--judge", "fake/schema"], "no prompts")


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "nonsense"},
        [1, 2],
        True,
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "(("}}},
    ],
)
def test_review_run_refuses_an_unusable_schema_before_sending(tmp_path, capsys, schema):
    path = _prompts(tmp_path, '{"id": "a", "prompt": "x"}')
    schema_file = tmp_path / "s.json"
    schema_file.write_text(json.dumps(schema))
    argv = ["llm", "run", str(path), "--judge", "fake/schema", "--schema", str(schema_file)]
    _one_line_exit_2(capsys, argv, "s.json: not a usable JSON Schema")


@pytest.mark.parametrize(
    "option, needle",
    [
        (["--max-tokens", "0"], "--max-tokens must be at least 1"),
        (["--max-tokens", "-5"], "--max-tokens must be at least 1"),  # a negative dry-run cost before
        (["--temperature", "nan"], "--temperature must be"),  # sent as NaN: not JSON
        (["--temperature", "-1"], "--temperature must be"),
        (["--max-cost", "nan"], "--max-cost must be"),  # no limit at all before
        (["--max-cost", "-1"], "--max-cost must be"),  # exit 3 "limit reached" before
        (["--timeout", "nan"], "must be a number of seconds"),  # no timeout at all before
    ],
)
def test_review_run_refuses_numbers_that_mean_nothing(tmp_path, capsys, option, needle):
    path = _prompts(tmp_path, '{"id": "a", "prompt": "x"}')
    _one_line_exit_2(capsys, ["llm", "run", str(path), "--judge", "fake/schema", "--dry-run", *option], needle)


def test_review_library_max_cost_nan_is_refused():
    from voxjudge.llm import Judge
    from voxjudge.llm.errors import ConfigError

    with pytest.raises(ConfigError, match="max_cost must be") as info:
        Judge("fake/schema", cache=None, max_cost=float("nan"))
    assert "--max-cost" not in str(info.value)  # the library speaks in API terms


def test_review_cost_limit_message_gives_what_the_run_spent(tmp_path, capsys):
    lines = [json.dumps({"id": f"p{i}", "prompt": f"question {i}"}) for i in range(20)]
    path = _prompts(tmp_path, *lines)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"models": {"openai/m": {"input_per_mtok": 1000, "output_per_mtok": 1000}}}))
    with FakeLLMServer() as srv:
        argv = ["llm", "run", str(path), "--judge", "openai/m", "--base-url", srv.url + "/v1", "--no-cache"]
        code = main([*argv, "--prices", str(prices), "--max-cost", "0.1", "--max-tokens", "10"])
    err = capsys.readouterr().err
    assert code == 3, err
    summary = next(line for line in err.splitlines() if line.startswith("openai/m: "))
    spent = summary.rsplit("cost ", 1)[1].split()[0]
    assert float(spent) > 0
    # the stop used to say "(spent 0.0000 USD)": what had been paid when the first call was refused
    assert f"this run spent {spent} USD" in err and "spent 0.0000" not in err


def test_review_ping_budget_stop_still_answers_json(tmp_path, capsys):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"models": {"openai/m": {"input_per_mtok": 1000, "output_per_mtok": 1000}}}))
    with FakeLLMServer() as srv:
        argv = ["llm", "ping", "--judge", "openai/m", "--base-url", srv.url + "/v1", "--json"]
        code = main([*argv, "--prices", str(prices), "--max-cost", "0.00001"])
        assert srv.count() == 0
    out = capsys.readouterr().out
    assert code == 3
    result = json.loads(out)  # used to print nothing on stdout
    assert result["ok"] is False and "--max-cost" in result["error"]


def test_review_ping_refuses_two_judges_and_a_cache(capsys):
    # the positional judge used to be ignored silently: fake/schema was pinged, fake/echo never
    _one_line_exit_2(capsys, ["llm", "ping", "--judge", "fake/schema", "fake/echo"], "fake/echo")
    _one_line_exit_2(capsys, ["llm", "ping", "--judge", "fake/schema", "--cache", "x.sqlite"], "--cache")
    assert main(["llm", "ping", "--judge", "fake/schema", "fake/schema"]) == 0


@pytest.mark.parametrize("command", ["stats", "clear"])
def test_review_cache_commands_do_not_create_a_cache(tmp_path, capsys, command):
    path = tmp_path / "typo" / "dir" / "cache.sqlite"
    assert main(["cache", command, "--cache", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no cache at" in out and "MB" not in out
    assert not (tmp_path / "typo").exists()  # used to make the folders and an empty cache: "0.06 MB"
    assert main(["cache", command, "--cache", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exists"] is False and not (tmp_path / "typo").exists()


@pytest.mark.parametrize(
    "argv", [["cache", "stats"], ["cache", "clear"], ["llm", "run", "P", "--judge", "fake/schema"]]
)
def test_review_a_cache_that_is_not_a_database_is_one_line(tmp_path, capsys, argv):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("my notes, not a cache\n" * 100)
    prompts = _prompts(tmp_path, '{"id": "a", "prompt": "x"}')
    argv = [str(prompts) if a == "P" else a for a in argv]
    _one_line_exit_2(capsys, [*argv, "--cache", str(bogus)], "notes.txt: not a voxjudge cache")
    assert bogus.read_text() == "my notes, not a cache\n" * 100


@pytest.mark.parametrize("argv", [["cache", "stats"], ["llm", "run", "P", "--judge", "fake/schema"]])
def test_review_a_cache_that_is_a_directory_is_one_line(tmp_path, capsys, argv):
    folder = tmp_path / "adir"
    folder.mkdir()
    prompts = _prompts(tmp_path, '{"id": "a", "prompt": "x"}')
    argv = [str(prompts) if a == "P" else a for a in argv]
    _one_line_exit_2(capsys, [*argv, "--cache", str(folder)], "adir: is a directory, not a cache file")
    assert list(folder.iterdir()) == []


def test_review_interrupted_run_says_what_it_kept(tmp_path, capsys, fake_script):
    calls = []

    def script(request, index):
        calls.append(1)
        if len(calls) == 3 and stop:
            raise KeyboardInterrupt
        return {"ok": True}

    stop = True

    spec = fake_script("review_interrupt", script)
    cache = tmp_path / "c.sqlite"
    lines = [json.dumps({"id": f"p{i}", "prompt": f"question {i}"}) for i in range(10)]
    path = _prompts(tmp_path, *lines)
    argv = ["llm", "run", str(path), "--judge", spec, "--concurrency", "1", "--cache", str(cache)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "2 calls had been answered by the server" in err and str(cache) in err, err
    assert err.rstrip().endswith("voxjudge: interrupted")
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 2
    stop = False
    assert main(argv) == 0  # the rerun resumes: 2 from the cache, 8 asked
    assert "8 requests, 2 cache hits" in capsys.readouterr().err
