from __future__ import annotations

import json

import pytest

from voxjudge.cli.main import main
from voxjudge.errors import InputError
from voxjudge.pairwise import Rubric, read_candidate_sets, read_pairs


def test_default_rubric_and_selection():
    r = Rubric.default()
    assert r.ids == ["C1", "C2", "C3", "C4", "L1", "L2", "L3"] and r.core == ["C1", "C2", "C3", "C4"]
    assert (
        r.weights["C1"] == 1.5 and r.weights["L1"] == 0.7 and r.section_weights == {"summary": 1.0, "conclusion": 2.0}
    )
    assert (r.low, r.high) == (1, 10) and len(r.sha256) == 16
    assert r.select(["C2"]).ids == ["C2"]
    with pytest.raises(InputError, match="unknown dimension 'C9'"):
        r.select(["C9"])


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "not valid JSON"),
        (
            '{"scale": [1, 10], "dimensions": [], "prompts": {"system": "", "coupled": "", "per_dimension": ""}}',
            "non-empty",
        ),
        ('{"scale": [1, 10], "dimensions": [{"id": "X"}]}', "rubric needs"),
        (
            '{"scale": [5, 1], "dimensions": [{"id": "X", "name": "x", "description": "d"}], '
            '"prompts": {"system": "", "coupled": "", "per_dimension": ""}}',
            "lower to a higher",
        ),
    ],
)
def test_bad_rubrics(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        Rubric.load(path)


def test_read_pairs_and_errors(tmp_path, pairs_file):
    (tmp_path / "a.wav").write_bytes(b"x")
    (tmp_path / "b.wav").write_bytes(b"y")
    good = {"pair_id": "p", "text": "t", "audio_a": "a.wav", "audio_b": "b.wav", "human": {"overall": "A"}}
    pairs = read_pairs(pairs_file([good]))
    assert pairs[0].audio_a == tmp_path / "a.wav" and pairs[0].human == {"overall": "A"}
    cases = [
        ([{k: v for k, v in good.items() if k != "audio_b"}], "missing field 'audio_b'"),
        ([good, good], "duplicate pair_id 'p'"),
        ([dict(good, audio_a="nope.wav")], "audio file .*nope.wav not found"),
        ([dict(good, human={"overall": "first"})], "human labels must be"),
    ]
    for rows, message in cases:
        with pytest.raises(InputError, match=message):
            read_pairs(pairs_file(rows, "bad.jsonl"))


def test_read_candidate_sets(tmp_path):
    for name in ("x.wav", "y.wav"):
        (tmp_path / name).write_bytes(b"z")
    path = tmp_path / "c.jsonl"
    path.write_text(
        json.dumps({"set_id": "s", "text": "t", "candidates": ["x.wav", "y.wav"], "human_topk": ["y.wav", 0]}) + "\n"
    )
    assert read_candidate_sets(path)[0].human_topk == (1, 0)
    path.write_text(json.dumps({"set_id": "s", "candidates": ["x.wav"]}) + "\n")
    with pytest.raises(InputError, match="at least two candidates"):
        read_candidate_sets(path)
    path.write_text(json.dumps({"set_id": "s", "candidates": ["x.wav", "y.wav", "./x.wav"]}) + "\n")
    with pytest.raises(InputError, match="set 's' lists candidate './x.wav' twice \\(candidates 0 and 2\\)"):
        read_candidate_sets(path)


def test_cli_end_to_end_on_examples(examples, tmp_path, capsys):
    d = examples / "pairwise"
    out = tmp_path / "j.jsonl"
    assert main(["pairwise", "judge", "--pairs", str(d / "pairs.jsonl"), "--samples", "2", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 18 * 2 and records[0]["judge"] == "acoustic"
    # C3, L1, L3 are never measured by the acoustic judge: declared once for the run, not abstained on
    assert all(r["abstained"] == [] for r in records)
    assert capsys.readouterr().err.rstrip().endswith("0 abstained cells; not measured by this judge: C3, L1, L3")
    assert main(["pairwise", "analyze", str(out), "--pairs", str(d / "pairs.jsonl"), "--json", "--select-weights"]) == 0
    rep = json.loads(capsys.readouterr().out)
    for key in (
        "accuracy",
        "accuracy_by_dimension",
        "delta_pos",
        "second_slot_rate",
        "t_stat",
        "n_pairs",
        "n_abstained",
    ):
        assert key in rep
    assert rep["accuracy"] == 1.0 and rep["delta_pos"] == 0.0 and rep["n_pairs"] == 18
    fake = tmp_path / "fake.jsonl"
    assert (
        main(
            [
                "pairwise",
                "judge",
                "--pairs",
                str(d / "pairs.jsonl"),
                "--judge",
                "fake/prosody?bias=2&noise=0",
                "--samples",
                "4",
                "--out",
                str(fake),
                "--no-cache",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["pairwise", "analyze", str(fake), "--pairs", str(d / "pairs.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["delta_pos"] > 1.5
    assert (
        main(["pairwise", "compare", str(out), str(fake), "--pairs", str(d / "pairs.jsonl"), "--resamples", "500"]) == 0
    )
    assert "paired resamples of pair indices" in capsys.readouterr().out
    sft = tmp_path / "sft.jsonl"
    assert (
        main(["pairwise", "distill", str(fake), "--pairs", str(d / "pairs.jsonl"), "--keep", "3-1", "--out", str(sft)])
        == 0
    )
    assert sft.exists()
    assert main(["pairwise", "select", "--candidates", str(d / "candidates.jsonl"), "--samples", "2", "--json"]) == 0
    sel = json.loads(capsys.readouterr().out)
    assert sel["hit@1"] == 1.0 and sel["random@1"] == 0.25


def test_judge_and_select_are_one_library_call_each(examples, tmp_path, capsys):
    """``pairwise judge`` and ``select`` are parse -> ``judge_pairs`` / ``select_among`` -> render:
    the command's JSON and records equal the library's, for the acoustic and a model judge."""
    from voxjudge.llm import Judge
    from voxjudge.pairwise import AcousticPairJudge, LLMPairJudge, judge_pairs, select_among

    d = examples / "pairwise"
    rubric = Rubric.load(None)
    pairs = read_pairs(d / "pairs.jsonl", dimensions=rubric.ids)
    out = tmp_path / "j.jsonl"
    argv = ["pairwise", "judge", "--pairs", str(d / "pairs.jsonl"), "--samples", "2", "--out", str(out), "--json"]
    assert main(argv) == 0
    result = judge_pairs(pairs, AcousticPairJudge(rubric), rubric, 2)
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(result.view()))
    assert [json.loads(line) for line in out.read_text().splitlines()] == json.loads(json.dumps(result.records))
    assert result.summary["engine"] == "local"

    spec = "fake/prosody?bias=2&noise=0"
    argv = [*argv[:-1], "--judge", spec, "--samples", "4", "--no-cache", "--json"]
    assert main(argv) == 0
    llm = Judge(spec, cache=None)
    try:
        result = judge_pairs(pairs, LLMPairJudge(llm, rubric), rubric, 4)
    finally:
        llm.close()
    view, lib = json.loads(capsys.readouterr().out), json.loads(json.dumps(result.view()))
    usage, lib_usage = view.pop("usage"), lib.pop("usage")  # (their wall seconds differ)
    del usage["wall_seconds"], lib_usage["wall_seconds"]
    assert view == lib and view["engine"] == "local" and usage == lib_usage and usage["requests"] == 36

    sets = read_candidate_sets(d / "candidates.jsonl")
    assert main(["pairwise", "select", "--candidates", str(d / "candidates.jsonl"), "--samples", "2", "--json"]) == 0
    selected, judgments = select_among(sets, AcousticPairJudge(rubric), rubric, 2)
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(selected.view()))
    assert len(judgments) == sum(len(s.candidates) * (len(s.candidates) - 1) for s in sets)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["pairwise", "judge", "--pairs", "{tmp}/none.jsonl", "--out", "{tmp}/o.jsonl"], "no such file"),
        (
            ["pairwise", "judge", "--pairs", "{pairs}", "--samples", "0", "--out", "{tmp}/o.jsonl"],
            "--samples must be at least 1",
        ),
        (["pairwise", "analyze", "{tmp}/bad.jsonl", "--pairs", "{pairs}"], "not a judgment record"),
        (
            ["pairwise", "judge", "--pairs", "{pairs}", "--dimensions", "C1,Z9", "--out", "{tmp}/o.jsonl"],
            "unknown dimension 'Z9'",
        ),
        (
            ["pairwise", "judge", "--pairs", "{pairs}", "--judge", "nonsense", "--out", "{tmp}/o.jsonl"],
            "is not provider/model",
        ),
        (  # the acoustic judge calls no server: the URL is refused, not ignored
            [
                "pairwise",
                "judge",
                "--pairs",
                "{pairs}",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--out",
                "{tmp}/o.jsonl",
            ],
            "--base-url is an LLM judge's server, and the offline acoustic judge calls none",
        ),
        (
            ["pairwise", "select", "--candidates", "{candidates}", "--base-url", "http://127.0.0.1:9/v1"],
            "--base-url is an LLM judge's server, and the offline acoustic judge calls none",
        ),
        (  # a run that would measure nothing and look complete
            ["pairwise", "judge", "--pairs", "{pairs}", "--dimensions", "C3", "--out", "{tmp}/o.jsonl"],
            "the acoustic judge measures none of C3; it measures C1, C2, C4, L2",
        ),
        (
            ["pairwise", "judge", "--pairs", "{pairs}", "--judge", "fake/prosody?bias=abc", "--out", "{tmp}/o.jsonl"],
            "fake/prosody: option bias='abc' is not a number",
        ),
        (["pairwise", "judge", "--pairs", "{pairs}", "--out", "{pairs}"], "is also an input of this command"),
        (
            ["pairwise", "distill", "{tmp}/bad.jsonl", "--pairs", "{pairs}", "--out", "{tmp}/bad.jsonl"],
            "is also an input of this command",
        ),
    ],
)
def test_cli_bad_input(examples, tmp_path, capsys, argv, message):
    (tmp_path / "bad.jsonl").write_text('{"x": 1}\n')
    d = examples / "pairwise"
    argv = [a.format(tmp=tmp_path, pairs=d / "pairs.jsonl", candidates=d / "candidates.jsonl") for a in argv]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_human_labels_accept_any_case(pairs_file):
    row = {"pair_id": "p", "text": "t", "audio_a": "a.wav", "audio_b": "b.wav"}
    path = pairs_file([{**row, "human": {"overall": "a", "C1": "B", "C2": "TIE", "L2": "Tie"}}])
    assert read_pairs(path, check_audio=False)[0].human == {"overall": "A", "C1": "B", "C2": "tie", "L2": "tie"}
    with pytest.raises(InputError, match='"A", "B" or "tie" \\(any case\\)'):
        read_pairs(pairs_file([{**row, "human": {"overall": "first"}}], "bad.jsonl"), check_audio=False)


def test_human_label_keys_any_case_and_unknown_ones_refused(pairs_file):
    row = {"pair_id": "p", "text": "t", "audio_a": "a.wav", "audio_b": "b.wav"}
    # the studio's exports list overall as confident when every annotator chose one side
    path = pairs_file([{**row, "human": {"Overall": "a", "c1": "b"}, "human_confident": ["c1", "overall"]}])
    pair = read_pairs(path, check_audio=False)[0]
    assert pair.human == {"overall": "A", "C1": "B"} and pair.human_confident == ("C1", "overall")
    cases = [
        ({"human": {"overall": "A", "C9": "A"}}, "pair 'p': human label 'C9' is neither overall nor a dimension"),
        ({"human_confident": "C1"}, "pair 'p': human_confident must be a list of dimension ids"),
        ({"human_confident": ["Z1"]}, "pair 'p': human_confident entry 'Z1' is neither overall nor a dimension"),
    ]
    for extra, message in cases:
        with pytest.raises(InputError, match=message):
            read_pairs(pairs_file([{**row, **extra}], "bad.jsonl"), check_audio=False)
    # a reader that discards the labels (the studio) takes a file labelled under any rubric
    other = pairs_file([{**row, "human": {"X1": "A"}, "human_confident": ["X1"]}], "other.jsonl")
    assert read_pairs(other, check_audio=False, labels=False)[0].human == {}
    # a custom rubric's ids are the ones labels may name
    assert read_pairs(pairs_file([{**row, "human": {"x1": "A"}}], "x.jsonl"), check_audio=False, dimensions=["X1"])[
        0
    ].human == {"X1": "A"}
