"""The wrapper's guarantees, exercised through the fake provider (registered like a real one)."""

from __future__ import annotations

import asyncio
import json

import pytest

from voxjudge.llm import BudgetExceeded, Judge, PriceTable, Request, RetryPolicy
from voxjudge.llm.errors import ConfigError, PermanentError, TransientError
from voxjudge.llm.limits import TokenBucket
from voxjudge.llm.providers.fake import FakeReply, example_from_schema
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


def test_invalid_output_gets_one_repair_then_is_unscored(tmp_path, fake_script):
    answers = iter(["not json at all", '{"score": 4}'])
    j = make(tmp_path, fake_script("repairable", lambda req, i: next(answers)))
    r = j.complete_sync(Request.simple("rate", schema=SCHEMA))[0]
    assert r.ok and r.parsed == {"score": 4} and j.meter.requests == 2
    repair_msgs = [rec for rec in read_records(tmp_path / "calls.jsonl") if rec["event"] == "repair"]
    assert len(repair_msgs) == 1 and "no JSON value" in repair_msgs[0]["error"]
    j.close()

    j = make(tmp_path, fake_script("stubborn", lambda req, i: '{"score": 9}'))
    r = j.complete_sync(Request.simple("rate", schema=SCHEMA))[0]
    assert not r.ok and r.parsed is None and r.text == '{"score": 9}'
    assert "invalid output: schema violation at score" in r.error and "after repair" in r.error
    assert j.meter.requests == 2  # the call and exactly one repair
    j.close()


def test_json_is_found_inside_prose_and_fences(tmp_path, fake_script):
    j = make(tmp_path, fake_script("chatty", lambda req, i: 'Sure! Here it is:\n```json\n{"score": 3}\n```'))
    assert j.complete_sync(Request.simple("rate", schema=SCHEMA))[0].parsed == {"score": 3}
    j.close()


def test_permanent_error_is_recorded_and_auth_errors_stop_the_run(tmp_path, fake_script):
    j = make(tmp_path, fake_script("bad-request", lambda req, i: PermanentError("fake: 400", status=400)))
    r = j.complete_sync(Request.simple("x"))[0]
    assert not r.ok and "400" in r.error and j.meter.retries == 0  # a 400 is not retried
    j.close()
    j = make(tmp_path, fake_script("no-auth", lambda req, i: PermanentError("fake: invalid key", status=401)))
    with pytest.raises(ConfigError, match="invalid key"):
        j.complete_sync(Request.simple("x"))
    j.close()


def test_timeouts_are_transient(tmp_path, fake_script):
    # The answer would take 60 s; the timeout cancels the wait, so the margin costs nothing.
    spec = fake_script("slow", lambda req, i: FakeReply("late", latency=60.0))
    j = make(tmp_path, spec, timeout=0.05, retry=RetryPolicy(max_retries=1, base_delay=0.001))
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
    assert 0 < len(done) < 10 and j.stop_reason and "cost limit of 30 USD reached" in j.stop_reason
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


def test_price_table_help_is_in_api_terms():
    """``help(PriceTable)`` told a Python caller to pass ``--prices FILE``."""
    import re

    doc = PriceTable.__doc__
    assert not re.search(r"(?<![\w-])--[a-z]", doc)
    assert "PriceTable.load(" in doc and "JudgeOptions(prices=" in doc


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


def test_samples_without_native_n_are_separate_calls_with_distinct_seeds(tmp_path, provider):
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

    provider("single", OneAtATime)
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


def test_interrupt_loses_only_calls_in_flight(tmp_path, fake_script):
    answered = []
    state = {}

    def script(request, index):
        answered.append(index)
        if len(answered) == 5:
            state["fifth"].set()  # interrupt once five answers have come back, not after a delay
        return {"score": 1}

    j = make(tmp_path, fake_script("counted", script), concurrency=2)
    reqs = [(f"i{k}", Request.simple(f"item {k}", schema=SCHEMA)) for k in range(40)]

    async def interrupted():
        state["fifth"] = asyncio.Event()
        task = asyncio.ensure_future(j.complete_many(reqs))
        await state["fifth"].wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    j.run(interrupted())
    paid_first = j.meter.requests
    assert 5 <= paid_first < 40
    j.close()
    j2 = make(tmp_path, "fake/counted", concurrency=2)
    out = j2.run(j2.complete_many(reqs))
    assert all(r is not None and r[0].ok for r in out)
    assert j2.meter.cache_hits == paid_first and j2.meter.requests == 40 - paid_first
    j2.close()


def test_transient_error_type_carries_retry_after():
    e = TransientError("x", status=429, retry_after=2.0)
    assert e.retry_after == 2.0 and e.status == 429


def test_spec_options_that_change_answers_are_in_the_key_and_the_records(tmp_path, fake_script):
    calls = []

    def script(request, index, options):
        calls.append(options.get("bias"))
        return f"bias {options.get('bias')}"

    script.takes_options = True
    fake_script("biased", script)
    req = Request.simple("x")
    for spec in ("fake/biased?bias=0", "fake/biased?bias=0.8", "fake/biased?bias=0&latency=0"):
        j = make(tmp_path, spec)
        j.complete_sync(req)
        j.close()
    # bias changes the answer: two calls; latency does not: the third is a cache hit
    assert calls == ["0", "0.8"]
    judges = [r["judge"] for r in read_records(tmp_path / "calls.jsonl")]
    assert judges == ["fake/biased?bias=0", "fake/biased?bias=0.8", "fake/biased?bias=0"]
    assert read_records(tmp_path / "calls.jsonl")[1]["options"] == {"bias": "0.8"}


@pytest.mark.parametrize("supports_n", [True, False])
def test_more_samples_on_a_warm_cache_get_new_seeds(tmp_path, provider, supports_n):
    seen = []

    class Seeded:
        def __init__(self, spec):
            self.spec = spec
            self.supports_n = supports_n

        async def complete(self, request, n):
            seen.append((request.seed, n))
            # a deterministic sampler: the same seed gives the same samples
            return ProviderResult([Completion(f"seed {request.seed} choice {k}") for k in range(n)], Usage(1, 1))

        async def aclose(self):
            pass

    provider("seeded", Seeded)
    j = Judge("seeded/m", cache=tmp_path / "c.sqlite")
    first = j.complete_sync(Request.simple("x", n=1, seed=10, temperature=1.0))
    more = j.complete_sync(Request.simple("x", n=4, seed=10, temperature=1.0))
    j.close()
    texts = [r.text for r in more]
    assert texts[0] == first[0].text and more[0].cache_hit and len(set(texts)) == 4
    assert seen[0] == (10, 1) and seen[1][0] == 11  # the new samples start from seed + 1


def test_missing_sdk_is_one_line_naming_the_extra(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "anthropic", None)  # import anthropic -> ModuleNotFoundError
    with pytest.raises(ConfigError, match=r"pip install 'voxjudge\[anthropic\]'"):
        Judge("anthropic/claude-x", cache=None)


def test_dry_run_needs_no_key_and_no_backend(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="no API key"):
        Judge("openai/gpt-4o-mini", cache=None)
    j = Judge("openai/gpt-4o-mini", cache=None, connect=False)
    est = j.estimate([Request.simple("hello", n=3, max_tokens=10)])
    assert est["requests"] == 1 and est["output_tokens_max"] == 30 and est["cost_usd_max"] is not None
    assert j._backend is None
    j.close()


def test_capabilities_are_declared_not_guessed_from_names(tmp_path, provider):
    from voxjudge.llm import Capabilities

    assert Judge("fake/schema", cache=None, connect=False).capabilities == Capabilities(True, True, False)
    assert Judge("fake/schema?constrained=1", cache=None).capabilities.constrained
    assert not Judge("anthropic/claude-x", cache=None, connect=False).capabilities.n_samples

    class Undeclared:
        supports_n = False

        def __init__(self, spec):
            self.spec = spec

    provider("plain", Undeclared)
    assert Judge("plain/m", cache=None).capabilities == Capabilities(n_samples=False, audio=True)
