"""The Ray engine on a local Ray (num_cpus=2): the same outcomes as the local engine, limits that
hold for the whole cluster (counted at the server), and a worker killed mid-run that loses
nothing and pays again only for what was in flight."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

ray = pytest.importorskip("ray", reason="the Ray engine needs the [ray] extra")

from voxjudge.cli.main import main  # noqa: E402
from voxjudge.llm import Item, Judge, Task, label_many  # noqa: E402
from voxjudge.llm.fakeserver import FakeLLMServer, default_responder  # noqa: E402
from voxjudge.llm.ray_engine import RayEngine, ensure_ray  # noqa: E402

pytestmark = pytest.mark.slow

TASK = Task(
    "grade",
    "You grade.",
    "Grade each item: $items",
    {"type": "object", "properties": {"grade": {"type": "integer", "minimum": 0}}, "required": ["grade"]},
    batch_size=4,
)


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ensure_ray(None, num_cpus=2)
    yield
    ray.shutdown()


def items(n, prefix="i"):
    # two contexts: batches never mix them, on either engine
    return [Item(f"{prefix}{k}", {"text": f"item {k}"}, context={"lang": "en" if k % 3 else "fr"}) for k in range(n)]


def summary(outcome):
    return {k: (r.answers, r.reasons) for k, r in outcome.results.items()}, outcome.as_dict()


def graded(provider, body):
    """An answer that depends on the item: each id graded by its number."""
    answer = default_responder(provider, body)
    if isinstance(answer, dict) and isinstance(answer.get("items"), list):
        for entry in answer["items"]:
            entry["grade"] = int(entry["id"].lstrip("iabc"))
    return answer


def test_label_many_on_ray_equals_local_with_the_fake_judge(tmp_path):
    task = TASK.with_options(user="Grade each item ($lang): $items")
    check = lambda item, answer: None if answer["grade"] >= 0 else "negative"  # noqa: E731
    local = Judge("fake/schema", cache=tmp_path / "a.sqlite")
    expected = local.run(label_many(local, task, items(30), check=check))
    judge = Judge("fake/schema", cache=tmp_path / "b.sqlite")
    judge.engine = RayEngine(workers=2)
    seen = []
    got = judge.run(label_many(judge, task, items(30), check=check, progress=lambda d, t: seen.append((d, t))))
    assert list(got.results) == [f"i{k}" for k in range(30)]  # input order restored
    assert summary(got) == summary(expected)
    assert judge.meter.requests == local.meter.requests == expected.batches
    assert seen[-1] == (30, 30)


def test_label_many_over_http_on_ray_equals_local_and_reruns_from_the_cache(tmp_path):
    with FakeLLMServer(responder=graded) as srv:
        local = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "a.sqlite")
        expected = local.run(label_many(local, TASK, items(40)))
        sent = srv.count()
        judge = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "b.sqlite", records=tmp_path / "log.jsonl")
        judge.engine = RayEngine(workers=2)
        got = judge.run(label_many(judge, TASK, items(40)))
        assert summary(got) == summary(expected)
        assert got.answer("i17") == {"grade": 17}
        assert srv.count() == 2 * sent  # same requests, each once
        again = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "b.sqlite")
        again.engine = RayEngine(workers=2)
        assert summary(again.run(label_many(again, TASK, items(40)))) == summary(expected)
        assert srv.count() == 2 * sent and again.meter.cache_hits == sent
    calls = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert sum(c["event"] == "call" for c in calls) == sent  # the workers share one call log


def test_llm_run_cli_on_ray_writes_what_the_local_engine_writes(tmp_path, capsys):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps({"id": f"p{k}", "prompt": f"say {k}"}) + "\n" for k in range(25)))
    outs = {}
    with FakeLLMServer() as srv:
        for engine in ("local", "ray"):
            out = tmp_path / f"{engine}.jsonl"
            argv = ["llm", "run", str(prompts), "--judge", "openai/m", "--base-url", srv.url + "/v1"]
            argv += ["--cache", str(tmp_path / f"{engine}.sqlite"), "--n", "2", "--engine", engine, "--out", str(out)]
            assert main(argv) == 0
            outs[engine] = sorted(out.read_text().splitlines())
            assert "25/25 items, 25 requests" in capsys.readouterr().err
    assert outs["ray"] == outs["local"] and len(outs["ray"]) == 25


def test_the_cost_limit_holds_for_the_whole_cluster(tmp_path):
    from voxjudge.llm import PriceTable

    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"models": {"openai/m": {"input_per_mtok": 1000.0, "output_per_mtok": 0.0}}}))
    prices = PriceTable.load(table)
    with FakeLLMServer(responder=graded) as srv:
        task = TASK.with_options(batch_size=1)
        local = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "a.sqlite", prices=prices, max_cost=0.5)
        expected = local.run(label_many(local, task, items(60)))
        sent = srv.count()
        judge = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "c.sqlite", prices=prices, max_cost=0.5)
        judge.engine = RayEngine(workers=2)
        got = judge.run(label_many(judge, task, items(60)))
        assert got.stopped and "cost limit of 0.5 USD reached" in got.stopped
        assert 0 < len(got.answers) < 60 and got.not_started
        # per-worker budgets would each spend what one local run spends; the cluster spends it once
        assert srv.count() - sent == judge.meter.requests == local.meter.requests == len(expected.answers)
        # which items get the budget may differ (their prompts differ by a token), not how many
        assert judge.meter.cost == pytest.approx(local.meter.cost, rel=0.05)


def test_rpm_holds_across_workers_counted_at_the_server(tmp_path):
    arrivals = []

    def timed(provider, body):
        arrivals.append(time.monotonic())
        return graded(provider, body)

    rpm, n = 60, 72  # a one-minute burst of 60, then one a second
    with FakeLLMServer(responder=timed) as srv:
        judge = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "r.sqlite", requests_per_minute=rpm)
        judge.engine = RayEngine(workers=2)
        got = judge.run(label_many(judge, TASK.with_options(batch_size=1), items(n)))
    assert len(got.answers) == n and len(arrivals) == n
    start = arrivals[0]
    for k, t in enumerate(sorted(arrivals), 1):
        # a per-worker limit would let 2 x 60 through at once; the cluster's lets 60 + 1/s
        assert k <= rpm + (t - start) * rpm / 60 + 1
    assert arrivals[-1] - start >= (n - rpm) * 60 / rpm - 1.5


def test_a_worker_killed_mid_run_loses_nothing_and_pays_only_for_calls_in_flight(tmp_path):
    with FakeLLMServer(latency=0.15, responder=graded) as srv:
        judge = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "k.sqlite", concurrency=4)
        engine = judge.engine = RayEngine(workers=2)
        task = TASK.with_options(batch_size=1)
        result = {}
        run = threading.Thread(target=lambda: result.update(out=judge.run(label_many(judge, task, items(160)))))
        run.start()
        deadline = time.monotonic() + 120
        while srv.count() < 30 and time.monotonic() < deadline:
            time.sleep(0.05)
        limiter = next(iter(engine.limiters.values()))
        workers = ray.get(limiter.worker_handles.remote())
        assert workers, "no worker registered"
        assert srv.count() < 160  # mid-run
        ray.kill(workers[0], no_restart=False)
        run.join(300)
        assert not run.is_alive()
        outcome = result["out"]
        assert len(outcome.answers) == 160 and outcome.complete
        assert all(outcome.answer(f"i{k}") == {"grade": k} for k in range(160))
        bodies = [json.dumps(b["messages"], sort_keys=True) for _, b in srv.requests]
        paid_twice = len(bodies) - len(set(bodies))
        assert len(set(bodies)) == 160 and paid_twice <= 4  # at most the calls in flight (--concurrency)


def _without_timing(text):
    """A JSON view without the wall-clock fields (they differ between any two runs)."""
    value = json.loads(text)

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k != "wall_seconds"}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    return strip(value)


@pytest.mark.parametrize("mode", ["coupled", "per-dimension"])
def test_pairwise_judge_on_ray_writes_what_the_local_engine_writes(tmp_path, capsys, examples, mode):
    pairs = examples / "pairwise" / "pairs.jsonl"
    outs, status = {}, {}
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.jsonl"
        argv = ["pairwise", "judge", "--pairs", str(pairs), "--judge", "fake/prosody", "--samples", "4"]
        argv += ["--mode", mode, "--cache", str(tmp_path / f"{engine}.sqlite"), "--engine", engine, "--out", str(out)]
        assert main(argv) == 0
        # the status line without the output path and the wall time: counts, usage, cost
        status[engine] = re.sub(r", [0-9.]+s$", "", capsys.readouterr().err.strip().replace(str(out), "OUT"))
        outs[engine] = sorted(out.read_text().splitlines())
    assert outs["ray"] == outs["local"] and status["ray"] == status["local"]
    assert len(outs["ray"]) == 4 * len(pairs.read_text().splitlines())


def test_pairwise_select_on_ray_equals_local(tmp_path, capsys, examples):
    candidates = examples / "pairwise" / "candidates.jsonl"
    views, records = {}, {}
    for engine in ("local", "ray"):
        argv = ["pairwise", "select", "--candidates", str(candidates), "--judge", "fake/prosody", "--samples", "2"]
        argv += ["--cache", str(tmp_path / f"{engine}.sqlite"), "--engine", engine, "--json"]
        argv += ["--records", str(tmp_path / f"{engine}.jsonl")]
        assert main(argv) == 0
        views[engine] = _without_timing(capsys.readouterr().out)
        records[engine] = sorted((tmp_path / f"{engine}.jsonl").read_text().splitlines())
    assert views["ray"] == views["local"] and records["ray"] == records["local"]
    assert len(views["ray"]["selections"]) == 6 and views["ray"]["n_judgments"] == 72


def test_pairwise_judge_over_http_on_ray_equals_local(tmp_path, capsys, examples):
    pairs = examples / "pairwise" / "pairs.jsonl"
    outs = {}
    with FakeLLMServer() as srv:
        for engine in ("local", "ray"):
            out = tmp_path / f"{engine}.jsonl"
            argv = ["pairwise", "judge", "--pairs", str(pairs), "--judge", "openai/audio", "--samples", "2"]
            argv += ["--base-url", srv.url + "/v1", "--cache", str(tmp_path / f"{engine}.sqlite")]
            assert main([*argv, "--engine", engine, "--out", str(out)]) == 0
            capsys.readouterr()
            outs[engine] = sorted(out.read_text().splitlines())
        bodies = [json.dumps(b, sort_keys=True) for _, b in srv.requests]
    assert outs["ray"] == outs["local"] and outs["ray"]
    assert len(bodies) == 2 * len(set(bodies))  # each engine sent each request once


class Interrupted(Exception):
    pass


def test_an_interrupted_run_resumes_from_its_shards_losing_nothing(tmp_path):
    task = TASK.with_options(batch_size=2)
    n = 120
    with FakeLLMServer(latency=0.05, responder=graded) as srv:
        whole = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "whole.sqlite")
        whole.engine = RayEngine(workers=2, shards=tmp_path / "shards-whole")
        expected = whole.run(label_many(whole, task, items(n)))
        assert not list((tmp_path / "shards-whole").rglob("*.jsonl"))  # a complete run leaves no shards
        first_sent = srv.count()
        srv.requests.clear()

        def stop_midway(done, total):
            if done >= total // 3:
                raise Interrupted  # the driver dies (Ctrl-C, a lost laptop) while shares are in flight

        judge = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "c.sqlite")
        judge.engine = RayEngine(workers=2, shards=tmp_path / "shards")
        with pytest.raises(Interrupted):
            judge.run(label_many(judge, task, items(n), progress=stop_midway))
        shards = list((tmp_path / "shards").rglob("*.jsonl"))
        recorded = sum(len(p.read_text().splitlines()) for p in shards)
        assert shards and n // 3 <= recorded < n  # written as shares finished, before the end

        again = Judge("openai/m", base_url=srv.url + "/v1", cache=tmp_path / "c.sqlite")
        again.engine = RayEngine(workers=2, shards=tmp_path / "shards")
        got = again.run(label_many(again, task, items(n)))
        # recorded items were not asked again, not even of the cache
        assert again.meter.requests + again.meter.cache_hits <= first_sent - recorded // 2
        assert summary(got)[0] == summary(expected)[0] and got.complete
        assert not list((tmp_path / "shards").rglob("*.jsonl"))  # merged and complete: shards removed
        bodies = [json.dumps(b["messages"], sort_keys=True) for _, b in srv.requests]
    paid_twice = len(bodies) - len(set(bodies))
    assert len(set(bodies)) == first_sent and paid_twice <= whole.concurrency  # at most the calls in flight


def test_asr_score_cli_on_ray_equals_local(tmp_path, capsys):
    (tmp_path / "r.txt").write_text("the cat sat on the mat\nwe went home early\nshe sells sea shells\n")
    (tmp_path / "h.txt").write_text("the bat sat on mat\nwe want home early\nshe sell see shells\n")
    rows, summaries = {}, {}
    with FakeLLMServer() as srv:
        for engine in ("local", "ray"):
            argv = ["asr", "score", "--ref", str(tmp_path / "r.txt"), "--hyp", str(tmp_path / "h.txt")]
            argv += ["--judge", "openai/smol", "--base-url", srv.url + "/v1", "--engine", engine, "--json"]
            argv += ["--cache", str(tmp_path / f"{engine}.sqlite"), "--out", str(tmp_path / f"{engine}.jsonl")]
            assert main(argv) == 0
            summary = json.loads(capsys.readouterr().out)
            assert summary.pop("engine") == engine  # the one field that differs: which engine ran
            for part in ("llm", "usage"):  # wall time differs; counts may not
                summary.get(part, {}).pop("wall_seconds", None)
            summaries[engine] = summary
            rows[engine] = sorted((tmp_path / f"{engine}.jsonl").read_text().splitlines())
    assert summaries["ray"] == summaries["local"] and rows["ray"] == rows["local"]
    assert summaries["ray"]["n"] == 3 and summaries["ray"]["n_unscored"] == 0


def test_breaks_build_refs_cli_on_ray_equals_local(tmp_path, capsys, examples):
    d = examples / "breaks"
    outs, codes = {}, {}
    with FakeLLMServer() as srv:
        for engine in ("local", "ray"):
            out = tmp_path / f"{engine}.jsonl"
            argv = ["breaks", "build-refs", "--texts", str(d / "texts.txt"), "--pool", str(d / "pool.txt")]
            argv += ["--judge", "openai/m", "--base-url", srv.url + "/v1", "--n-iter", "2", "--engine", engine]
            argv += ["--cache", str(tmp_path / f"{engine}.sqlite"), "--out", str(out), "--max-retries", "0"]
            codes[engine] = main(argv)
            err = capsys.readouterr().err
            outs[engine] = (sorted(out.read_text().splitlines()) if out.exists() else None, err.count("unscored"))
    assert codes["local"] in (0, 3) and outs["local"][0]  # a table, complete or resumable
    assert codes["ray"] == codes["local"] and outs["ray"] == outs["local"]


def test_a_refused_port_stops_a_ray_run_in_seconds_naming_the_url(tmp_path):
    import socket

    with socket.socket() as s:  # bound, not listening: connections are refused
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        judge = Judge("openai/m", base_url=url, cache=tmp_path / "c.sqlite")
        judge.engine = RayEngine(workers=2)
        start = time.monotonic()
        outcome = judge.run(label_many(judge, TASK, items(24)))
        took = time.monotonic() - start
        judge.close()
    assert len(outcome.unscored) == 24 and not outcome.answers
    assert outcome.stopped and f"cannot reach {url}: connection refused" in outcome.stopped
    assert took < 60, took  # Ray's own start-up included; each worker gives up after its quick retries


def test_the_raylets_warnings_go_to_stderr_never_into_json_on_stdout(capsys):
    # Ray's driver thread prints raylet warnings to stdout whatever log_to_driver says; one such
    # warning once corrupted `asr score --engine ray --json`.
    from ray._private import worker

    ensure_ray(None)
    ensure_ray(None)  # idempotent: wrapped once
    capsys.readouterr()
    worker.print_to_stdstream(
        {"lines": ["WARNING: 8 PYTHON worker processes"], "pid": "raylet", "is_err": False}, False
    )
    captured = capsys.readouterr()
    assert captured.out == "" and "8 PYTHON worker processes" in captured.err


def test_an_error_that_stops_the_run_in_a_worker_comes_out_as_one_line(tmp_path, capsys):
    # A URL no request can go to (here a redirect off HTTP) stops the run like a 401: a ConfigError
    # raised in a worker. Ray Data kept only its traceback, as text: the command printed Ray's
    # traceback and exited 1 instead of one line and exit status 2.
    from tests.servers import redirects_off_http

    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps({"id": f"p{k}", "prompt": f"item {k}"}) + "\n" for k in range(4)))
    with redirects_off_http() as url:
        argv = ["llm", "run", str(prompts), "--judge", "openai/m", "--base-url", url, "--engine", "ray"]
        code = main([*argv, "--ray-workers", "1", "--no-cache", "--out", str(tmp_path / "o.jsonl")])
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("voxjudge:")]
    assert (
        code == 2 and len(err) == 1 and err[0].startswith("voxjudge: error: openai/m: openai: no request can be sent")
    )
