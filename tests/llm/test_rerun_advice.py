""" "Rerun" advice only when a rerun can help: answers that came back unusable are cached, so a
rerun sends no request for them and gets them again; the advice says so and what would change
them, and never speaks of the cache under --no-cache."""

from __future__ import annotations

import json

from voxjudge.cli.wording import worded
from voxjudge.llm.advice import ANSWERED, FAILED, NOT_ASKED, kinds_of, reason_key, rerun_advice
from voxjudge.llm.fakeserver import FakeLLMServer, request_schema
from voxjudge.llm.providers.fake import example_from_schema


def test_reasons_are_told_apart_by_what_a_rerun_would_do():
    assert reason_key("call failed: openai: cannot reach http://127.0.0.1:9/v1: connection refused") == "call failed"
    assert reason_key("invalid output: not JSON; repair failed: call failed: gave up after 7 attempts") == "call failed"
    assert reason_key("answer rejected: the words changed; after repair: the words changed") == "answer rejected"
    assert reason_key("not asked: cost limit of 1 USD reached") == "not asked"
    tally = {"pairs with call failed": 2, "pairs with invalid output": 3, "words changed": 4, "not asked": 1}
    assert kinds_of(tally) == {FAILED: 2, ANSWERED: 7, NOT_ASKED: 1}


def test_the_library_names_settings_and_the_cli_words_them_as_flags():
    advice = rerun_advice({ANSWERED: 5}, cached=True, varies=("draw_seed",))
    assert "cache=None" in str(advice) and "--" not in str(advice)
    cli = worded(advice)
    assert "another model (--judge)" in cli and "a different --draw-seed" in cli and "--no-cache" in cli
    assert "sends no request for them and gets the same answers" in cli and "Rerun the same command" not in cli
    mixed = worded(rerun_advice({FAILED: 2, ANSWERED: 1}, cached=True))
    assert mixed.startswith("Rerun the same command to resume") and "1 of them got an answer" in mixed
    sampled = worded(rerun_advice({ANSWERED: 1}, cached=False, varies=("temperature", "sampling_seed"), sampled=True))
    assert "cache" not in sampled.replace("--no-cache", "") and "a sampled model may answer otherwise" in sampled
    assert "sampling (--temperature above 0)" in sampled and "a different --sampling-seed" in sampled
    assert rerun_advice({}, cached=True) is None


def changed_words(provider, body):
    """Every annotation of the batch alters the text (a model that rewrites)."""
    answer = example_from_schema(request_schema(provider, body))
    for item in answer["items"]:
        item["annotation"] = "some other words entirely <SB>"
    return answer


def build(build_refs, srv, tmp_path, *extra):
    judge = ["--judge", "openai/m", "--base-url", srv.url + "/v1", "--n-iter", "2"]
    return build_refs(*judge, "--cache", str(tmp_path / "cache.sqlite"), "--json", *extra, texts=4)


def test_build_refs_with_changed_words_says_a_rerun_cannot_help(build_refs, tmp_path, capsys):
    with FakeLLMServer(responder=changed_words) as srv:
        assert build(build_refs, srv, tmp_path) == 3
        first = capsys.readouterr()
        sent = srv.count()
        assert build(build_refs, srv, tmp_path) == 3
        again = capsys.readouterr()
        assert srv.count() == sent  # the rerun sent 0 requests: every answer came from the cache
        assert build(build_refs, srv, tmp_path, "--no-cache") == 3
        no_cache = capsys.readouterr().err
    assert json.loads(first.out)["dropped"] == {"words changed": 8}
    err = first.err
    assert "8 of 8 (text, iteration) annotations unscored (8 words changed)" in err
    assert "Rerun the same command" not in err and "come from the cache" not in err
    assert "they are cached, so rerunning the same command sends no request for them" in err
    assert "another model (--judge)" in err and "a different --draw-seed" in err and "--no-cache" in err
    assert again.err == err
    assert "cache" not in no_cache.replace("--no-cache", "") and "mostly answers the same" in no_cache


def test_failed_calls_are_advised_a_rerun(build_refs, tmp_path, capsys):
    with FakeLLMServer() as srv:
        srv.faults = ["500"] * 200
        assert build(build_refs, srv, tmp_path, "--max-retries", "0", "--no-cache") == 3
    err = capsys.readouterr().err
    assert "call failed" in err and "Rerun the same command to ask again" in err and "come from the cache" not in err
