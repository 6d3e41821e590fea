"""One spelling per concept in --help; the old spellings still parse, unlisted."""

from __future__ import annotations

import pytest

from voxjudge.cli.helptext import commands
from voxjudge.cli.main import build_parser, main

PARSERS = dict(commands(build_parser()))

RENAMED = [
    # (command, new spelling, old spelling, dest)
    ("breaks score", "--ref", "--refs", "refs"),
    ("breaks score", "--hyp", "--hyps", "hyps"),
    ("breaks score", "--convention", "--format", "format"),
    ("breaks score", "--bootstrap-seed", "--seed", "bootstrap_seed"),
    ("breaks convert", "--convention", "--from", "src"),
    ("breaks from-annotators", "--convention", "--format", "format"),
    ("breaks build-refs", "--draw-seed", "--seed", "seed"),
    ("asr compare", "--bootstrap-seed", "--seed", "bootstrap_seed"),
    ("asr train", "--split-seed", "--seed", "seed"),
    ("stats agree", "--bootstrap-seed", "--seed", "bootstrap_seed"),
    ("pairwise judge", "--sampling-seed", "--seed", "seed"),
    ("pairwise select", "--sampling-seed", "--seed", "seed"),
    ("pairwise compare", "--bootstrap-seed", "--seed", "bootstrap_seed"),
    ("pairwise distill", "--balance-seed", "--seed", "seed"),
    ("llm run", "--sampling-seed", "--seed", "seed"),
]


@pytest.mark.parametrize("command, new, old, dest", RENAMED)
def test_new_spelling_is_taught_and_old_one_still_works(command, new, old, dest):
    parser = PARSERS[command]
    shown = {s for a in parser._actions for s in a.option_strings}
    assert new in shown and old not in shown
    assert parser._option_string_actions[old] is parser._option_string_actions[new]
    assert parser._option_string_actions[new].dest == dest
    assert f" {old} " not in parser.format_help() and f"[{old} " not in parser.format_help()


def test_no_command_teaches_a_bare_seed_or_the_old_spellings():
    for name, parser in PARSERS.items():
        shown = {s for a in parser._actions for s in a.option_strings}
        assert not shown & {"--seed", "--refs", "--hyps", "--from"}, name


def test_unit_choices_agree_between_metrics_and_compare():
    def choices(command):
        return next(a.choices for a in PARSERS[command]._actions if "--unit" in a.option_strings)

    assert choices("asr metrics") == choices("asr compare") == ["word", "char", "grapheme"]


def test_old_spellings_run(capsys, examples):
    d = examples / "breaks"
    argv = ["breaks", "score", "--refs", str(d / "table.jsonl"), "--hyps", str(d / "hypotheses.tsv"), "--json"]
    assert main([*argv, "--seed", "1", "--resamples", "50"]) == 0
    assert main(["llm", "ping", "fake/schema"]) == 0


def test_llm_ping_takes_judge_like_every_command(capsys):
    assert main(["llm", "ping", "--judge", "fake/schema"]) == 0
    assert main(["llm", "ping"]) == 2
    assert "--judge" in capsys.readouterr().err


def test_compare_writes_per_utterance_records(tmp_path, capsys, examples):
    en = examples / "asr" / "en"
    out = tmp_path / "cmp.jsonl"
    argv = ["asr", "compare", "--ref", str(en / "ref.txt"), "--hyp-a", str(en / "sys_a.txt")]
    assert main([*argv, "--hyp-b", str(en / "sys_b.txt"), "--ids", "--out", str(out), "--json"]) == 0
    import json

    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 50 and {"id", "wer_a", "wer_b", "ref_words"} <= set(rows[0])


def test_devanagari_tables_line_up_by_display_width(capsys, examples):
    from wcwidth import wcswidth

    hi = examples / "asr" / "hi"
    argv = ["asr", "compare", "--ref", str(hi / "ref.txt"), "--hyp-a", str(hi / "sys_a.txt")]
    assert main([*argv, "--hyp-b", str(hi / "sys_b.txt"), "--ids", "--normalize", "hindi"]) == 0
    tables, current = [], []
    for line in [*capsys.readouterr().out.splitlines(), ""]:
        if line[:1] in "┏┃┡│└" and line:
            current.append(wcswidth(line))
        elif current:
            tables.append(current)
            current = []
    assert len(tables) >= 3
    assert all(len(set(widths)) == 1 for widths in tables), tables
