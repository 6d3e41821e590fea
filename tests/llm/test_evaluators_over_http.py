"""The evaluators' LLM paths over real sockets: OpenAI-compatible and Gemini wire formats."""

from __future__ import annotations

import json

import pytest

from voxjudge.cli.main import main
from voxjudge.llm.fakeserver import FakeLLMServer


def test_laser_pairs_over_an_openai_compatible_server(tmp_path, capsys):
    (tmp_path / "r.txt").write_text("the cat sat on the mat\n")
    (tmp_path / "h.txt").write_text("the bat sat on mat\n")
    with FakeLLMServer() as srv:
        code = main(
            [
                "asr",
                "score",
                "--ref",
                str(tmp_path / "r.txt"),
                "--hyp",
                str(tmp_path / "h.txt"),
                "--judge",
                "openai/judge-model",
                "--base-url",
                srv.url + "/v1",
                "--no-cache",
                "--json",
            ]
        )
        body = srv.requests[0][1]
    s = json.loads(capsys.readouterr().out)
    assert code == 0 and s["llm"]["sent_to_model"] == 2 and s["n"] == 1
    schema = body["response_format"]["json_schema"]
    assert schema["strict"] is True  # closed objects, every field required: strict structured output
    items = schema["schema"]["properties"]["items"]
    assert items["minItems"] == items["maxItems"] == 2 and items["items"]["properties"]["id"]["enum"] == ["p1", "p4"]


@pytest.mark.parametrize("spec, base", [("openai/omni-model", "/v1"), ("gemini/gemini-model", "")])
def test_pairwise_audio_judge_over_http(examples, tmp_path, spec, base):
    pairs = examples / "pairwise" / "pairs.jsonl"
    one = tmp_path / "one.jsonl"
    first = pairs.read_text().splitlines()[0]
    rec = json.loads(first)
    rec["audio_a"] = str(pairs.parent / rec["audio_a"])
    rec["audio_b"] = str(pairs.parent / rec["audio_b"])
    one.write_text(json.dumps(rec) + "\n")
    out = tmp_path / "j.jsonl"
    with FakeLLMServer() as srv:
        code = main(
            [
                "pairwise",
                "judge",
                "--pairs",
                str(one),
                "--judge",
                spec,
                "--base-url",
                srv.url + base,
                "--samples",
                "4",
                "--no-cache",
                "--out",
                str(out),
            ]
        )
        bodies = [b for _, b in srv.requests]
    assert code == 0 and len(bodies) == 2  # one request per order, two samples each
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 4 and all(not r["abstained"] for r in records)
    if spec.startswith("openai"):
        parts = bodies[0]["messages"][1]["content"]
        assert [p["type"] for p in parts].count("input_audio") == 2 and bodies[0]["n"] == 2
    else:
        parts = bodies[0]["contents"][0]["parts"]
        assert sum(1 for p in parts if "inlineData" in p or "inline_data" in p) == 2
