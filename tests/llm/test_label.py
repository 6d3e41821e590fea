"""``label_many``: batching with pinned ids, answers mapped back by id, repair, unscored, budget."""

from __future__ import annotations

import json

import pytest

from voxjudge.llm import Item, Judge, PriceTable, RetryPolicy, Task, batch_schema, label_many, planned_requests
from voxjudge.llm.errors import ConfigError
from voxjudge.llm.label import split_answers
from voxjudge.llm.parse import InvalidOutput, validate
from voxjudge.llm.records import read_records
from voxjudge.llm.usage import Price

ITEM = {
    "type": "object",
    "properties": {"tier": {"type": "string", "enum": ["none", "minor", "major"]}},
    "required": ["tier"],
    "additionalProperties": False,
}
TASK = Task(
    name="test-tiers",
    system="Grade pairs. Language: $lang.",
    user='Answer {"items": [{"id", "tier"}]}.\nItems:\n$items',
    item_schema=ITEM,
    batch_size=4,
)


def ids_in(request):
    return request.schema["properties"]["items"]["items"]["properties"]["id"]["enum"]


def items(n):
    return [Item(f"w{k}", {"pair": f"p{k}"}) for k in range(n)]


def test_schema_pins_ids_and_length():
    s = batch_schema(ITEM, ["a", "b"])
    arr = s["properties"]["items"]
    assert arr["minItems"] == arr["maxItems"] == 2
    assert arr["items"]["properties"]["id"]["enum"] == ["a", "b"] and arr["items"]["required"] == ["id", "tier"]
    validate({"items": [{"id": "a", "tier": "none"}, {"id": "b", "tier": "major"}]}, s)
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


def test_task_hash_is_content_and_renders_items_as_json_data():
    same = Task(**TASK.as_dict())
    assert same.sha256 == TASK.sha256 and len(TASK.sha256) == 16
    assert TASK.with_options(user=TASK.user + " ").sha256 != TASK.sha256
    assert TASK.with_options(item_schema={"type": "object"}).sha256 != TASK.sha256
    assert TASK.with_options(batch_size=8, temperature=1.0).sha256 == TASK.sha256  # policy is in the request
    msgs = TASK.render([Item("a", {"ref": 'say "hi" $x'})], {"lang": "en"})
    assert msgs[0].text_content == "Grade pairs. Language: en."
    shown = msgs[1].text_content.split("Items:\n")[1]
    assert json.loads(shown) == [{"id": "a", "ref": 'say "hi" $x'}]
    req = TASK.request([Item("a"), Item("b")], {"lang": "en"})
    assert req.template == "test-tiers" and req.template_hash == TASK.sha256 and ids_in(req) == ["a", "b"]
    with pytest.raises(ConfigError, match=r"needs a value for \$lang"):
        TASK.render([Item("a")])
    with pytest.raises(ConfigError, match="unknown task field"):
        Task.from_dict({**TASK.as_dict(), "colour": 1}, "t.json")


def test_batches_map_back_by_id_and_retry_missing(tmp_path, fake_script):
    calls = []

    def script(request, index):
        ids = ids_in(request)
        calls.append(ids)
        # Big batches forget their last item; single items are answered properly.
        keep = ids if len(ids) == 1 else ids[:-1]
        return {"items": [{"id": i, "tier": "minor" if i.endswith("3") else "none"} for i in reversed(keep)]}

    j = Judge(fake_script("forgetful", script), cache=tmp_path / "c.sqlite", retry=RetryPolicy(0))
    seen = []
    outcome = j.run(label_many(j, TASK, items(10), context={"lang": "en"}, progress=lambda d, n: seen.append(d)))
    assert set(outcome.answers) == {f"w{k}" for k in range(10)} and outcome.complete
    assert outcome.answer("w3") == {"tier": "minor"} and outcome.answer("w0") == {"tier": "none"}
    assert sorted(outcome.retried_individually) == ["w3", "w7", "w9"]
    assert [len(c) for c in calls] == [4, 4, 2, 1, 1, 1]
    assert seen[-1] == 10 and list(outcome.results) == [f"w{k}" for k in range(10)]
    j.close()


def test_items_without_a_valid_answer_are_unscored_with_reason(tmp_path, fake_script):
    j = Judge(fake_script("useless", lambda request, index: "I cannot do that."), cache=tmp_path / "c.sqlite")
    outcome = j.run(label_many(j, TASK.with_options(batch_size=2), items(2), context={"lang": "en"}))
    assert outcome.answers == {} and set(outcome.unscored) == {"w0", "w1"} and not outcome.complete
    assert "no JSON value found" in outcome.unscored["w0"] and outcome.stopped is None
    assert outcome.results["w0"].answers == [None]
    # 1 batch + 2 singles + 2 schema repairs
    assert j.meter.requests == 5
    assert outcome.as_dict()["unscored"] == 2 and outcome.as_dict()["answered"] == 0
    j.close()


def test_a_failed_check_gets_one_repair_then_unscored(tmp_path, fake_script):
    answers = {"good": ["major"], "fixable": ["none", "minor"], "hopeless": ["none", "none"]}
    sent = []

    def script(request, index):
        uid = ids_in(request)[0]
        sent.append((uid, request.messages[-1].text_content))
        return {"items": [{"id": uid, "tier": answers[uid].pop(0)}]}

    def check(item, answer):
        return None if answer["tier"] != "none" else "tier none is not allowed here"

    j = Judge(fake_script("checked", script), cache=None)
    task = TASK.with_options(batch_size=1, repair="Rejected: $reason. Try again.")
    outcome = j.run(
        label_many(j, task, [Item("good"), Item("fixable"), Item("hopeless")], context={"lang": "en"}, check=check)
    )
    assert outcome.answer("good") == {"tier": "major"} and outcome.answer("fixable") == {"tier": "minor"}
    assert outcome.answer("hopeless") is None and outcome.repaired == 1
    assert "tier none is not allowed here" in outcome.unscored["hopeless"]
    repairs = [text for uid, text in sent if text.startswith("Rejected")]
    assert repairs == ["Rejected: tier none is not allowed here. Try again."] * 2
    j.close()


def test_budget_stop_is_reported_never_raised(tmp_path, fake_script):
    prices = PriceTable({"fake/": Price(1e5, 1e5)})
    j = Judge(
        fake_script("priced", lambda r, i: {"items": [{"id": x, "tier": "none"} for x in ids_in(r)]}),
        cache=tmp_path / "c.sqlite",
        prices=prices,
        concurrency=1,
    )
    j.meter.price = Price(1e5, 1e5)  # fake judges are free; price this one to reach the limit
    j.max_cost = 100.0
    outcome = j.run(
        label_many(j, TASK.with_options(batch_size=1, max_tokens_per_item=10), items(30), context={"lang": "en"})
    )
    assert outcome.stopped and "cost limit of 100 USD reached" in outcome.stopped
    done, left = outcome.answers, outcome.not_started
    assert done and left and len(done) + len(left) == 30
    assert all(outcome.unscored[k].startswith("not asked: cost limit") for k in left)
    assert outcome.as_dict()["unscored_reasons"] == {"not asked": len(left)}
    j.close()


def test_items_with_their_own_schema_go_alone_and_unbatched_tasks_take_fields(tmp_path):
    task = Task(
        "one",
        "",
        "Ref: $ref",
        {"type": "object", "properties": {"x": {"type": "string"}}},
        batched=False,
        samples=2,
        temperature=1.0,
    )
    reqs = planned_requests(task, [Item("a", {"ref": "it's"}), Item("b", {"ref": "b"})])
    assert [r.messages[-1].text_content for r in reqs] == ['Ref: "it\'s"', 'Ref: "b"']
    assert reqs[0].n == 2 and reqs[0].schema == task.item_schema
    pinned = {"type": "object", "properties": {"tier": {"const": "major"}}}
    reqs = planned_requests(TASK, [Item("a"), Item("b", schema=pinned), Item("c")], {"lang": "en"})
    assert [ids_in(r) for r in reqs] == [["a", "c"], ["b"]]
    assert reqs[1].schema["properties"]["items"]["items"]["properties"]["tier"] == {"const": "major"}
    with pytest.raises(ConfigError, match="several samples need an unbatched task"):
        TASK.with_options(samples=2)


def test_samples_are_unscored_one_by_one(tmp_path, fake_script):
    replies = iter(['{"x": "fine"}', "garbage", "still garbage"])
    j = Judge(fake_script("mixed", lambda r, i: next(replies)), cache=None)
    task = Task(
        "one",
        "",
        "Ref: $ref",
        {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
        batched=False,
        samples=2,
    )
    outcome = j.run(label_many(j, task, [Item("a", {"ref": "r"})]))
    r = outcome.results["a"]
    assert r.answers[0] == {"x": "fine"} and r.answers[1] is None and "invalid output" in r.reasons[1]
    assert not outcome.complete and outcome.unscored == {} and outcome.as_dict()["unscored_samples"] == 1
    j.close()


def test_records_carry_the_task_hash(tmp_path, fake_script):
    j = Judge("fake/schema", cache=None, records=tmp_path / "calls.jsonl")
    j.run(label_many(j, TASK, items(3), context={"lang": "en"}))
    j.close()
    recs = read_records(tmp_path / "calls.jsonl")
    assert recs and all(r["template"] == "test-tiers" and r["template_hash"] == TASK.sha256 for r in recs)


def test_input_errors(tmp_path):
    j = Judge("fake/schema", cache=None)
    with pytest.raises(ValueError, match="unique"):
        j.run(label_many(j, TASK, [Item("a"), Item("a")], context={"lang": "en"}))
    with pytest.raises(ConfigError, match="batch_size"):
        TASK.with_options(batch_size=0)
    j.close()


def test_items_batch_only_with_items_of_the_same_context():
    # e.g. one utterance's pairs per request, so one text cannot steer another's labels
    its = [Item(f"p{k}", {"w": k}, context={"lang": "en", "utt": f"u{k // 3}"}) for k in range(7)]
    reqs = planned_requests(TASK.with_options(batch_size=32), its)
    assert [ids_in(r) for r in reqs] == [["p0", "p1", "p2"], ["p3", "p4", "p5"], ["p6"]]


def test_shipped_tasks_load_and_render():
    from voxjudge.asr.laser import LaserRubric
    from voxjudge.asr.laser.align import rubric_align
    from voxjudge.asr.laser.llm_judges import pair_item, pairs_task, sentence_item, sentence_task
    from voxjudge.breaks.builder import build_task

    rubric = LaserRubric.load()
    msgs = pairs_task(rubric).render([pair_item("p0", "ref", "hyp", rubric, "en")])
    assert "wrong_word" in msgs[0].text_content and '"ref": "ref"' in msgs[1].text_content
    pairs = rubric_align('a "b"'.split(), ["c"])
    msgs = sentence_task(rubric).render([sentence_item("u", 'a "b"', "c", "hi", rubric, pairs)])
    assert 'Reference: "a \\"b\\""' in msgs[1].text_content and "Language: hi" in msgs[1].text_content
    assert '{"id": "p1", "ref": "\\"b\\"", "hyp": ""}' in msgs[1].text_content
    assert build_task().name == "lmre-build" and len({pairs_task(rubric).sha256, build_task().sha256}) == 2


def test_task_files_are_checked(tmp_path):
    from voxjudge.llm import load_tasks

    with pytest.raises(ConfigError, match="t.json:1: not valid JSON"):
        load_tasks("{", "t.json")
    with pytest.raises(ConfigError, match=r"task 'x'.*needs user, item_schema"):
        load_tasks('{"tasks": {"x": {"name": "x", "system": ""}}}', "t.json")
    with pytest.raises(ConfigError, match="bad placeholder in the user template"):
        Task("x", "", "price: $", {})


def test_a_batch_that_exhausts_its_retries_is_not_asked_again_item_by_item(tmp_path, fake_script):
    from voxjudge.llm.errors import TransientError

    spec = fake_script("down", lambda r, i: TransientError("fake: 503", status=503))
    j = Judge(spec, cache=None, retry=RetryPolicy(max_retries=1, base_delay=0.001))
    outcome = j.run(label_many(j, TASK.with_options(batch_size=4), items(4), context={"lang": "en"}))
    assert set(outcome.unscored) == {"w0", "w1", "w2", "w3"} and "gave up after 2 attempts" in outcome.unscored["w0"]
    assert j.meter.failures == 1 and outcome.batches == 1  # one batch, two attempts, no singles
    j.close()
