from __future__ import annotations

import json

import pytest

from voxjudge.llm import Judge, Message, RetryPolicy, batch_schema, judge_in_batches
from voxjudge.llm.batch import split_answers
from voxjudge.llm.parse import validate
from voxjudge.llm.providers.fake import register_fake_script

ITEM = {
    "type": "object",
    "properties": {"tier": {"type": "string", "enum": ["none", "minor", "major"]}},
    "required": ["tier"],
    "additionalProperties": False,
}


def build(batch):
    return (Message.text("user", "\n".join(f"{uid}: {x}" for uid, x in batch)),)


def ids_in(request):
    return request.schema["properties"]["items"]["items"]["properties"]["id"]["enum"]


def test_schema_pins_ids_and_length():
    s = batch_schema(ITEM, ["a", "b"])
    arr = s["properties"]["items"]
    assert arr["minItems"] == arr["maxItems"] == 2
    assert arr["items"]["properties"]["id"]["enum"] == ["a", "b"] and arr["items"]["required"] == ["id", "tier"]
    validate({"items": [{"id": "a", "tier": "none"}, {"id": "b", "tier": "major"}]}, s)
    from voxjudge.llm.parse import InvalidOutput

    with pytest.raises(InvalidOutput):
        validate({"items": [{"id": "a", "tier": "none"}, {"id": "zz", "tier": "major"}]}, s)


def test_split_answers_is_lenient_per_item():
    text = json.dumps(
        {
            "items": [
                {"id": "a", "tier": "none"},
                {"id": "b", "tier": "catastrophic"},  # invalid label
                {"id": "c", "tier": "minor"},
                {"id": "c", "tier": "major"},  # contradictory duplicate
                {"id": "zz", "tier": "none"},  # never sent
            ]
        }
    )
    good, unknown = split_answers(text, ["a", "b", "c", "d"], ITEM)
    assert good == {"a": {"id": "a", "tier": "none"}} and unknown == ["zz"]
    assert split_answers("no json", ["a"], ITEM) == ({}, [])


def test_batches_map_back_by_id_and_retry_missing(tmp_path):
    calls = []

    def script(request, index):
        ids = ids_in(request)
        calls.append(ids)
        # Big batches forget their last item; single items are answered properly.
        keep = ids if len(ids) == 1 else ids[:-1]
        return {"items": [{"id": i, "tier": "minor" if i.endswith("3") else "none"} for i in reversed(keep)]}

    register_fake_script("forgetful", script)
    j = Judge("fake/forgetful", cache=tmp_path / "c.sqlite", retry=RetryPolicy(0))
    items = [(f"w{k}", f"pair {k}") for k in range(10)]
    seen = []
    outcome = j.run(judge_in_batches(j, items, build, ITEM, batch_size=4, progress=lambda d, n: seen.append(d)))
    assert set(outcome.answers) == {f"w{k}" for k in range(10)}
    assert outcome.answers["w3"]["tier"] == "minor" and outcome.answers["w0"]["tier"] == "none"
    assert sorted(outcome.retried_individually) == ["w3", "w7", "w9"]
    assert [len(c) for c in calls] == [4, 4, 2, 1, 1, 1]
    assert seen[-1] == 10
    j.close()


def test_items_that_never_get_a_valid_answer_are_unscored_with_reason(tmp_path):
    register_fake_script("useless", lambda request, index: "I cannot do that.")
    j = Judge("fake/useless", cache=tmp_path / "c.sqlite", retry=RetryPolicy(0))
    outcome = j.run(judge_in_batches(j, [("a", 1), ("b", 2)], build, ITEM, batch_size=2))
    assert outcome.answers == {} and set(outcome.errors) == {"a", "b"}
    assert "no JSON value found" in outcome.errors["a"]
    # the two singles were each validated and repaired once: 1 batch + 2 singles + 2 repairs
    assert j.meter.requests == 5
    j.close()


def test_batch_input_errors(tmp_path):
    j = Judge("fake/schema", cache=None)
    with pytest.raises(ValueError, match="unique"):
        j.run(judge_in_batches(j, [("a", 1), ("a", 2)], build, ITEM))
    with pytest.raises(ValueError, match="batch_size"):
        j.run(judge_in_batches(j, [("a", 1)], build, ITEM, batch_size=0))
    j.close()
