"""The wrapper's guarantees, exercised through the fake provider (registered like a real one)."""

from __future__ import annotations

import asyncio
import json

import pytest

from voxjudge.llm import BudgetExceeded, Judge, PriceTable, Request, RetryPolicy, register_provider
from voxjudge.llm.errors import ConfigError, PermanentError, TransientError
from voxjudge.llm.limits import TokenBucket
from voxjudge.llm.providers.fake import FakeReply, example_from_schema, register_fake_script
from voxjudge.llm.records import read_records
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import Completion, ProviderResult, Usage

SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 5}},
    "required": ["score"],
    "additionalProperties": False,
}
FAST = RetryPolicy(max_retries=3, base_delay=0.001)


def make(tmp_path, spec="fake/schema", **kw):
    kw.setdefault("cache", tmp_path / "cache.sqlite")
    kw.setdefault("records", tmp_path / "calls.jsonl")
    kw.setdefault("retry", FAST)
    return Judge(spec, **kw)


def test_rerun_is_served_from_cache_with_zero_requests(tmp_path):
    reqs = [(f"i{k}", Request.simple(f"rate item {k}", schema=SCHEMA, n=2)) for k in range(20)]
    j = make(tmp_path)
    first = j.run(j.complete_many(reqs))
    assert j.meter.requests == 20 and j.meter.cache_hits == 0
    j.close()
    j2 = make(tmp_path)
    second = j2.run(j2.complete_many(reqs))
    assert j2.meter.requests == 0 and j2.meter.cache_hits == 40
    assert [[r.parsed for r in rs] for rs in first] == [[r.parsed for r in rs] for rs in second]
    assert all(r.cache_hit for rs in second for r in rs)
    j2.close()


def test_transient_errors_are_retried_and_counted(tmp_path):
    j = make(tmp_path, "fake/schema?fail_first=2")
    r = j.complete_sync(Request.simple("x", schema=SCHEMA))[0]
    assert r.ok and r.parsed == {"score": 1}
    assert j.meter.retries == 2 and j.meter.requests == 1
    events = [rec["event"] for rec in read_records(tmp_path / "calls.jsonl")]
    assert events == ["retry", "retry", "call"]
    j.close()


def test_giving_up_leaves_the_item_unscored_not_lost(tmp_path):
    j = make(tmp_path, "fake/schema?fail_first=99")
    r = j.complete_sync(Request.simple("x", schema=SCHEMA), item_id="item-7")[0]
    assert not r.ok and "gave up after 4 attempts" in r.error
    assert j.meter.failures == 1
    last = read_records(tmp_path / "calls.jsonl")[-1]
    assert last["event"] == "error" and last["item_id"] == "item-7"
    j.close()
    # Nothing was cached for it, so the next run asks again.
    j2 = make(tmp_path)
    assert j2.complete_sync(Request.simple("x", schema=SCHEMA))[0].ok and j2.meter.requests == 1
    j2.close()


def test_invalid_output_gets_one_repair_then_is_unscored(tmp_path):
    answers = iter(["not json at all", '{"score": 4}'])
    register_fake_script("repairable", lambda req, i: next(answers))
    j = make(tmp_path, "fake/repairable")
    r = j.complete_sync(Request.simple("rate", schema=SCHEMA))[0]
    assert r.ok and r.parsed == {"score": 4} and j.meter.requests == 2
    repair_msgs = [rec for rec in read_records(tmp_path / "calls.jsonl") if rec["event"] == "repair"]
    assert len(repair_msgs) == 1 and "no JSON value" in repair_msgs[0]["error"]
    j.close()

    register_fake_script("stubborn", lambda req, i: '{"score": 9}')
    j = make(tmp_path, "fake/stubborn")
    r = j.complete_sync(Request.simple("rate", schema=SCHEMA))[0]
    assert not r.ok and r.parsed is None and r.text == '{"score": 9}'
    assert "invalid output: schema violation at score" in r.error and "after repair" in r.error
    assert j.meter.requests == 2  # the call and exactly one repair
    j.close()


def test_json_is_found_inside_prose_and_fences(tmp_path):
    register_fake_script("chatty", lambda req, i: 'Sure! Here it is:\n```json\n{"score": 3}\n```')
    j = make(tmp_path, "fake/chatty")
    assert j.complete_sync(Request.simple("rate", schema=SCHEMA))[0].parsed == {"score": 3}
    j.close()


def test_permanent_error_is_recorded_and_auth_errors_stop_the_run(tmp_path):
    register_fake_script("bad-request", lambda req, i: PermanentError("fake: 400", status=400))
    j = make(tmp_path, "fake/bad-request")
    r = j.complete_sync(Request.simple("x"))[0]
    assert not r.ok and "400" in r.error
    j.close()
    register_fake_script("no-auth", lambda req, i: PermanentError("fake: invalid key", status=401))
    j = make(tmp_path, "fake/no-auth")
    with pytest.raises(ConfigError, match="invalid key"):
        j.complete_sync(Request.simple("x"))
    j.close()


def test_timeouts_are_transient(tmp_path):
    register_fake_script("slow", lambda req, i: FakeReply("late", latency=1.0))
    j = make(tmp_path, "fake/slow", timeout=0.05, retry=RetryPolicy(max_retries=1, base_delay=0.001))
    r = j.complete_sync(Request.simple("x"))[0]
    assert not r.ok and "no answer within 0.05s" in r.error and j.meter.retries == 1
    j.close()


def test_max_cost_stops_cleanly_and_keeps_finished_work(tmp_path):
    prices = PriceTable({"openai/costly": __import__("voxjudge.llm.usage", fromlist=["Price"]).Price(1e5, 1e5)})

    class Costly:
        supports_n = True

        def __init__(self, spec):
            self.spec = spec

        async def complete(self, request, n):
            return ProviderResult([Completion('{"score": 2}')] * n, Usage(10, 5))

        async def aclose(self):
            pass

    spec = JudgeSpec("openai", "costly")
    # 0.1 USD a token: a call costs 1.5 USD but may cost up to ~18 USD (input + max_tokens), and
    # that worst case is held while the call is in flight, so parallel calls cannot overshoot.
    j = Judge(spec, backend=Costly(spec), cache=tmp_path / "c.sqlite", prices=prices, max_cost=30.0)
    reqs = [(f"i{k}", Request.simple(f"item {k}", schema=SCHEMA, max_tokens=100)) for k in range(10)]
    out = j.run(j.complete_many(reqs))
    done = [r for r in out if r is not None]
    assert 0 < len(done) < 10 and j.stop_reason and "--max-cost 30 USD reached" in j.stop_reason
    assert j.meter.cost <= 30.0
    # A call whose worst case does not fit in what is left is refused before it is made.
    paid = j.meter.requests
    with pytest.raises(BudgetExceeded):
        j.complete_sync(Request.simple("one more", schema=SCHEMA, max_tokens=1000))
    assert j.meter.requests == paid
    j.close()


def test_max_cost_needs_a_price(tmp_path):
    with pytest.raises(ConfigError, match="no price known for openai/unknown-model"):
        Judge("openai/unknown-model", base_url="http://127.0.0.1:9", cache=None, max_cost=1.0)


def test_dry_run_estimate_counts_cache_as_free(tmp_path):
    j = make(tmp_path)
    reqs = [Request.simple(f"item {k}", max_tokens=50) for k in range(4)]
    est = j.estimate(reqs)
    assert est["requests"] == 4 and est["output_tokens_max"] == 200 and est["cost_usd_max"] == 0.0
    assert j.meter.requests == 0
    j.complete_sync(reqs[0])
    assert j.estimate(reqs)["requests"] == 3 and j.estimate(reqs)["cached_samples"] == 1
    j.close()


def test_records_name_everything_and_never_a_key(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret-123")
    j = make(tmp_path)
    j.complete_sync(Request.simple("x", schema=SCHEMA, template="rubric-v1", seed=7), item_id="u1")
    j.complete_sync(Request.simple("x", schema=SCHEMA, template="rubric-v1", seed=7), item_id="u1")
    j.close()
    recs = read_records(tmp_path / "calls.jsonl")
    call, hit = recs
    assert call["event"] == "call" and hit["event"] == "cache_hit"
    for key in ("judge", "provider", "model", "base_url", "template", "template_hash", "params", "usage", "latency"):
        assert key in call
    assert call["params"] == {"temperature": 0.0, "seed": 7, "max_tokens": 1024, "n": 1}
    for f in tmp_path.iterdir():
        assert b"sk-very-secret" not in f.read_bytes()


def test_samples_without_native_n_are_separate_calls_with_distinct_seeds(tmp_path):
    seen = []

    class OneAtATime:
        supports_n = False

        def __init__(self, spec):
            self.spec = spec

        async def complete(self, request, n):
            assert n == 1
            seen.append(request.seed)
            return ProviderResult([Completion(f"seed {request.seed}")], Usage(1, 1))

        async def aclose(self):
            pass

    register_provider("single", OneAtATime)
    j = Judge("single/m", cache=tmp_path / "c.sqlite")
    out = j.complete_sync(Request.simple("x", n=3, seed=10, temperature=1.0))
    assert sorted(seen) == [10, 11, 12] and [r.text for r in out] == ["seed 10", "seed 11", "seed 12"]
    j.close()


def test_concurrency_limit_is_respected(tmp_path):
    live = {"now": 0, "max": 0}

    class Counting:
        supports_n = True

        def __init__(self, spec):
            self.spec = spec

        async def complete(self, request, n):
            live["now"] += 1
            live["max"] = max(live["max"], live["now"])
            await asyncio.sleep(0.01)
            live["now"] -= 1
            return ProviderResult([Completion("ok")] * n, Usage())

        async def aclose(self):
            pass

    spec = JudgeSpec("fake", "counting")
    j = Judge(spec, backend=Counting(spec), cache=None, concurrency=3)
    j.run(j.complete_many([(str(k), Request.simple(str(k))) for k in range(30)]))
    assert live["max"] == 3
    j.close()


def test_token_bucket_waits_for_refill(monkeypatch):
    clock = {"t": 0.0}
    sleeps = []

    async def fake_sleep(seconds):
        sleeps.append(seconds)
        clock["t"] += seconds

    monkeypatch.setattr("voxjudge.llm.limits.time.monotonic", lambda: clock["t"])
    monkeypatch.setattr("voxjudge.llm.limits.asyncio.sleep", fake_sleep)
    bucket = TokenBucket(per_minute=60)  # one per second, burst of 60

    async def take(n):
        for _ in range(n):
            await bucket.take(1)

    asyncio.run(take(62))
    assert sleeps == [pytest.approx(1.0), pytest.approx(1.0)]


def test_retry_after_is_honoured():
    policy = RetryPolicy(max_retries=3, base_delay=1.0)
    assert 7.0 <= policy.delay(0, retry_after=7.0) <= 7.7
    assert 0.5 <= policy.delay(0) <= 1.0 and 2.0 <= policy.delay(2) <= 4.0
    assert policy.delay(20) <= 60.0


def test_fake_jsonl_script_and_schema_examples(tmp_path):
    script = tmp_path / "script.jsonl"
    script.write_text(
        "\n".join(
            json.dumps(x) for x in [{"error": "transient", "status": 503}, {"json": {"score": 5}}, {"text": "plain"}]
        )
    )
    j = make(tmp_path, f"fake/{script}")
    assert j.complete_sync(Request.simple("a", schema=SCHEMA))[0].parsed == {"score": 5}
    assert j.complete_sync(Request.simple("b"))[0].text == "plain"
    assert j.meter.retries == 1
    j.close()
    batch = {
        "type": "array",
        "minItems": 3,
        "items": {"type": "object", "properties": {"id": {"enum": ["a", "b", "c"]}}, "required": ["id"]},
    }
    assert [x["id"] for x in example_from_schema(batch)] == ["a", "b", "c"]


def test_interrupt_loses_only_calls_in_flight(tmp_path):
    j = make(tmp_path, "fake/schema?latency=0.02", concurrency=2)
    reqs = [(f"i{k}", Request.simple(f"item {k}", schema=SCHEMA)) for k in range(40)]

    async def interrupted():
        task = asyncio.ensure_future(j.complete_many(reqs))
        await asyncio.sleep(0.15)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    j.run(interrupted())
    paid_first = j.meter.requests
    assert 0 < paid_first < 40
    j.close()
    j2 = make(tmp_path, "fake/schema?latency=0.02", concurrency=2)
    out = j2.run(j2.complete_many(reqs))
    assert all(r is not None and r[0].ok for r in out)
    assert j2.meter.cache_hits == paid_first and j2.meter.requests == 40 - paid_first
    j2.close()


def test_transient_error_type_carries_retry_after():
    e = TransientError("x", status=429, retry_after=2.0)
    assert e.retry_after == 2.0 and e.status == 429
