"""A paid embedder under the same rules in every command that takes one (asr score, metrics,
compare): --dry-run sends nothing, needs no key and says what would be sent and cost; --max-cost
and the other call limits are the judge options' own flags with the same meaning. Against a local
server that counts what it is sent (``FakeLLMServer``)."""

from __future__ import annotations

import json
import sys

import pytest

from voxjudge.cli.main import build_parser, main
from voxjudge.llm import JudgeOptions, open_embedder
from voxjudge.llm.fakeserver import FakeLLMServer

# 6 utterances: one identical pair, one empty hypothesis and a reference seen twice, so the run
# embeds 7 distinct texts (the dedup SemDist does: identical pairs and empty sides are never sent)
REFS = ["u1 the cat sat", "u2 hello world", "u3 same text", "u4 the cat sat", "u5 nothing here", "u6 a b c"]
HYPS = ["u1 the cat sat down", "u2 hello word", "u3 same text", "u4 the cat sat on", "u5", "u6 a b d"]
SENT = {"the cat sat", "the cat sat down", "hello world", "hello word", "the cat sat on", "a b c", "a b d"}
BATCHES = -(-len(SENT) // 2)  # in batches of 2
PRICEY = {"input_per_mtok": 1_000_000.0, "output_per_mtok": 0.0}  # 1 USD a token


@pytest.fixture
def files(tmp_path):
    ref, hyp, hyp_b = tmp_path / "ref.txt", tmp_path / "hyp.txt", tmp_path / "hyp_b.txt"
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    hyp_b.write_text("\n".join(REFS) + "\n", encoding="utf-8")  # system B is perfect: it adds no text
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"models": {"openai/pricey": PRICEY}}), encoding="utf-8")
    return {"ref": str(ref), "hyp": str(hyp), "hyp_b": str(hyp_b), "prices": str(prices), "dir": tmp_path}


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


def command(name: str, files, *extra: str) -> list[str]:
    """``asr score|metrics|compare`` on the files (score with the rules judge), the cache in tmp."""
    base = {
        "score": ["asr", "score", "--ref", files["ref"], "--hyp", files["hyp"], "--judge", "rules"],
        "metrics": ["asr", "metrics", "--ref", files["ref"], "--hyp", files["hyp"]],
        "compare": ["asr", "compare", "--ref", files["ref"], "--hyp-a", files["hyp"], "--hyp-b", files["hyp_b"]],
    }[name]
    return [*base, "--ids", "--cache", str(files["dir"] / "cache.sqlite"), *extra]


COMMANDS = ("score", "metrics", "compare")


def _ratings(folder):
    """The utterances rated (0-4) in a ratings file, for asr train: it embeds the same texts."""
    text = lambda line: line.partition(" ")[2]  # noqa: E731 -- the line without its id
    rows = [f'en,u{k},"{text(r)}","{text(h)}",{k % 5}' for k, (r, h) in enumerate(zip(REFS, HYPS))]
    path = folder / "ratings.csv"
    path.write_text("lang,utterance,ref,hyp,human_mean\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _embedding(estimate: dict, name: str) -> dict:
    return estimate["embedder"] if name == "score" else estimate


@pytest.mark.parametrize("name", COMMANDS)
def test_a_dry_run_sends_nothing_and_says_what_the_real_run_sends(name, files, server, capsys):
    url = ["--embedder-base-url", server.url + "/v1", "--prices", files["prices"]]
    out = files["dir"] / "out.jsonl"
    assert (
        main(command(name, files, "--embedder", "openai/pricey?batch_size=2", *url, "--dry-run", "--out", str(out)))
        == 0
    )
    estimate = _embedding(json.loads(capsys.readouterr().out), name)
    assert server.count() == 0 and not out.exists()  # nothing sent, nothing scored or written
    tokens = sum(-(-len(t.encode()) // 4) for t in SENT)
    assert estimate == {
        "embedder": "openai/pricey",
        "texts": len(SENT),
        "cached_texts": 0,
        "texts_to_send": len(SENT),
        "batch_size": 2,
        "requests": BATCHES,
        "input_tokens_estimate": tokens,
        "cost_usd_estimate": pytest.approx(tokens * 1.0),
    }
    # the real run sends exactly those texts, in as many requests; its dry run then finds them cached
    assert main(command(name, files, "--embedder", "openai/pricey?batch_size=2", *url)) == 0
    capsys.readouterr()
    sent = [t for _, body in server.requests for t in body["input"]]
    assert sorted(sent) == sorted(SENT) and server.count() == BATCHES
    assert main(command(name, files, "--embedder", "openai/pricey?batch_size=2", *url, "--dry-run")) == 0
    again = _embedding(json.loads(capsys.readouterr().out), name)
    assert again["cached_texts"] == len(SENT) and again["requests"] == 0 and again["cost_usd_estimate"] == 0
    assert server.count() == BATCHES


def test_a_judge_cards_dry_run_says_what_its_embedder_would_be_sent(files, server, capsys, monkeypatch):
    # the card's rated hypotheses are the six utterances: its SemDist embeds the same 7 texts
    ratings = files["dir"] / "ratings.csv"
    text = lambda line: line.partition(" ")[2]  # noqa: E731 -- the line without its id
    rows = [f'"{text(r)}","{text(h)}",{k % 5}' for k, (r, h) in enumerate(zip(REFS, HYPS))]
    ratings.write_text("ref,hyp,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    card = ["asr", "judge-card", "--ratings", str(ratings), "--judge", "rules", "--resamples", "50"]
    url = ["--embedder-base-url", server.url + "/v1", "--prices", files["prices"]]
    argv = [*card, "--cache", str(files["dir"] / "cache.sqlite"), "--embedder", "openai/pricey?batch_size=2", *url]
    assert main([*argv, "--dry-run"]) == 0
    estimate = json.loads(capsys.readouterr().out)
    assert server.count() == 0 and estimate["judges"] == {}  # nothing sent, no key needed
    assert estimate["embedder"]["texts"] == len(SENT) and estimate["embedder"]["requests"] == BATCHES
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert main(argv) == 0  # the real card sends what its dry run said
    capsys.readouterr()
    assert server.count() == BATCHES and sorted(t for _, b in server.requests for t in b["input"]) == sorted(SENT)


def test_asr_train_takes_the_embedders_limits_and_dry_run(files, server, capsys, monkeypatch):
    # fitting laser_calibrated with meaning embeds the ratings' texts: the same 7 as the other commands
    ratings = _ratings(files["dir"])
    out = files["dir"] / "calibration.json"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    url = ["--embedder-base-url", server.url + "/v1", "--prices", files["prices"], "--concurrency", "1"]
    argv = ["asr", "train", "--ratings", str(ratings), "--out", str(out), "--cache", str(files["dir"] / "c.sqlite")]
    assert main([*argv, "--embedder", "openai/pricey?batch_size=2", *url, "--dry-run"]) == 0
    estimate = json.loads(capsys.readouterr().out)
    assert server.count() == 0 and not out.exists()  # nothing sent, no key, nothing written
    assert estimate["texts"] == len(SENT) and estimate["requests"] == BATCHES and estimate["cost_usd_estimate"] > 0
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    spec = "openai/pricey?batch_size=1"
    assert main([*argv, "--embedder", spec, *url, "--max-cost", "8"]) == 3
    assert "cost limit of 8 USD reached" in capsys.readouterr().err
    assert 0 < server.count() < len(SENT) and not out.exists()
    assert main([*argv, "--embedder", spec, *url, "--max-cost", "1000"]) == 0  # the rest, from the cache on
    assert server.count() == len(SENT) and out.exists()
    assert main([*argv, "--max-cost", "1"]) == 2  # a limit without an embedder is refused, not ignored
    assert "--max-cost applies to the embedder's calls" in capsys.readouterr().err


@pytest.mark.parametrize("name", COMMANDS)
def test_a_dry_run_needs_no_key_and_says_when_the_cost_is_unknown(name, files, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setitem(sys.modules, "openai", None)  # no client either: the SDK cannot even be imported
    assert main(command(name, files, "--embedder", "openai/text-embedding-3-small", "--dry-run")) == 0
    priced = _embedding(json.loads(capsys.readouterr().out), name)
    assert priced["texts"] == len(SENT) and priced["requests"] == 1 and priced["cost_usd_estimate"] > 0
    assert "cost" not in priced
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")  # with a key: still no client, nothing sent to OpenAI's host
    assert main(command(name, files, "--embedder", "openai/text-embedding-3-small", "--dry-run")) == 0
    assert _embedding(json.loads(capsys.readouterr().out), name) == priced
    assert main(command(name, files, "--embedder", "openai/unpriced-model", "--dry-run")) == 0
    unknown = _embedding(json.loads(capsys.readouterr().out), name)
    assert (
        unknown["cost_usd_estimate"] is None
        and unknown["cost"] == "unknown: no price known for openai/unpriced-model in the price table"
    )


@pytest.mark.parametrize("name", COMMANDS)
def test_a_dry_run_with_nothing_to_pay_for_plans_nothing_and_says_so(name, files, capsys):
    out = files["dir"] / "out.jsonl"
    assert main(command(name, files, "--dry-run", "--out", str(out))) == 0
    captured = capsys.readouterr()
    estimate = json.loads(captured.out)
    assert estimate["requests"] == 0 and estimate["note"].startswith("nothing to send")
    assert "nothing was" in estimate["note"] and not out.exists()


def test_a_dry_run_refuses_what_the_real_run_refuses(files, capsys):
    # the default judge has no laser_calibrated model for this embedder: refused before any call, dry or not
    argv = command("score", files, "--embedder", "openai/text-embedding-3-small", "--dry-run")
    argv[argv.index("rules")] = "default"
    assert main(argv) == 2
    assert "no model fitted with the embedder openai/text-embedding-3-small" in capsys.readouterr().err


@pytest.mark.parametrize("name", COMMANDS)
def test_max_cost_stops_an_embedding_run_in_every_command_alike(name, files, server, capsys):
    out = files["dir"] / "out.jsonl"
    url = ["--embedder-base-url", server.url + "/v1", "--prices", files["prices"], "--concurrency", "1"]
    spec = "openai/pricey?batch_size=1"
    code = main(command(name, files, "--embedder", spec, *url, "--max-cost", "8", "--out", str(out)))
    err = capsys.readouterr().err
    assert code == 3 and "cost limit of 8 USD reached" in err and "Traceback" not in err
    assert 0 < server.count() < len(SENT) and not out.exists()
    # a higher limit goes on from the cache: nothing is paid twice
    assert main(command(name, files, "--embedder", spec, *url, "--max-cost", "1000", "--out", str(out))) == 0
    assert server.count() == len(SENT) and out.exists()


@pytest.mark.parametrize("name", ("metrics", "compare"))
def test_call_limits_need_an_embedder(name, files, capsys):
    for extra in (["--max-cost", "1"], ["--rpm", "60"], ["--engine", "ray"], ["--log", "calls.jsonl"]):
        assert main(command(name, files, *extra)) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"voxjudge: error: {extra[0]} applies to the embedder's calls: give --embedder SPEC with it"


@pytest.mark.parametrize("name", ("metrics", "compare"))
def test_the_limits_are_asr_scores_own_flags_with_the_same_meaning(name, files, server, capsys):
    parsers = {p.prog.split()[-1]: p for p in _asr_parsers()}

    def options(parser):
        return {
            a.option_strings[0]: (a.dest, a.default, a.type, a.help)
            for a in parser._actions
            if a.option_strings and a.option_strings[0] in SHARED
        }

    assert options(parsers[name]) == options(parsers["score"]) | _own_help(parsers[name])
    # --log writes the embedder's calls, as in asr score
    log = files["dir"] / "calls.jsonl"
    url = ["--embedder-base-url", server.url + "/v1", "--no-cache", "--log", str(log)]
    assert main(command(name, files, "--embedder", "openai/x", *url, "--rpm", "6000", "--timeout", "30")) == 0
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [c["event"] for c in calls] == ["call"] and calls[0]["texts"] == len(SENT)


SHARED = (
    "--concurrency", "--rpm", "--tpm", "--max-retries", "--timeout", "--max-cost", "--prices", "--log",
    "--engine", "--ray-address", "--ray-workers", "--dry-run",
)  # fmt: skip


def _own_help(parser):  # --dry-run and --engine say what they cover in each command; the rest is identical
    return {
        a.option_strings[0]: (a.dest, a.default, a.type, a.help)
        for a in parser._actions
        if a.option_strings and a.option_strings[0] in ("--dry-run", "--engine", "--ray-workers")
    }


def _asr_parsers():
    parser = build_parser(["asr"])
    asr = next(a for a in parser._actions if a.dest == "group").choices["asr"]
    cmds = next(a for a in asr._actions if a.dest == "command").choices
    return [cmds["score"], cmds["metrics"], cmds["compare"]]


def test_a_cost_limit_is_taken_for_an_embedder_on_ray():
    # its workers hold --max-cost in one ledger (tests/llm/test_embed_ray.py spends it on a local Ray)
    pytest.importorskip("ray", reason="the Ray engine needs the [ray] extra")
    embedder = open_embedder("fake/hash", cache=False, options=JudgeOptions(max_cost=1.0), engine="ray")
    assert embedder.max_cost == 1.0 and embedder.engine is not None
    embedder.close()


def test_a_judge_card_without_cache_embeds_each_text_once_for_all_its_offline_judges(files, server, capsys):
    """--no-cache keeps nothing between runs, but within one card its offline judges share what
    was embedded (a card-long store, deleted afterwards): each text is sent once, as the dry run says."""
    ratings = _ratings(files["dir"])
    embedder = ["--embedder", "openai/pricey?batch_size=2", "--embedder-base-url", server.url + "/v1"]
    embedder += ["--prices", files["prices"]]
    calibration = files["dir"] / "calibration.json"  # fitted with this embedder: the default judge takes it
    train = ["asr", "train", "--ratings", str(ratings), "--out", str(calibration), "--no-cache", *embedder]
    assert main(train) == 0
    trained = server.count()
    card = ["asr", "judge-card", "--ratings", str(ratings), "--judge", "rules", "--judge", "default"]
    argv = [*card, "--calibration", str(calibration), "--no-cache", *embedder, "--resamples", "50"]
    capsys.readouterr()
    assert main([*argv, "--dry-run"]) == 0
    estimate = json.loads(capsys.readouterr().out)["embedder"]
    assert server.count() == trained and estimate["requests"] == BATCHES
    assert main([*argv, "--json"]) == 0
    capsys.readouterr()
    sent = [t for _, body in server.requests[trained:] for t in body["input"]]
    assert server.count() - trained == BATCHES and sorted(sent) == sorted(SENT)
    assert not list(files["dir"].glob("*.sqlite*"))  # nothing kept


def test_a_calibration_fitted_with_one_server_is_refused_with_another(files, capsys, monkeypatch):
    """A model named alike on another server may be another model: its laser_calibrated was given
    in silence with the first server's weights."""
    ratings = _ratings(files["dir"])
    cal = files["dir"] / "cal.json"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    cache = ["--cache", str(files["dir"] / "c.sqlite")]
    with FakeLLMServer() as first, FakeLLMServer() as second:
        fit = ["asr", "train", "--ratings", str(ratings), "--embedder", "openai/toy", "--out", str(cal), *cache]
        assert main([*fit, "--embedder-base-url", first.url + "/v1"]) == 0
        assert json.loads(cal.read_text(encoding="utf-8"))["people"]["openai/toy"]["server"] == first.url + "/v1"
        score = ["asr", "score", "--ref", files["ref"], "--hyp", files["hyp"], "--ids", "--embedder", "openai/toy"]
        score += ["--calibration", str(cal), *cache, "--json"]
        capsys.readouterr()
        assert main([*score, "--embedder-base-url", first.url + "/v1"]) == 0
        assert json.loads(capsys.readouterr().out)["laser_calibrated"] is not None
        sent = second.count()
        for extra in ([], ["--dry-run"]):
            assert main([*score, "--embedder-base-url", second.url + "/v1", *extra]) == 2
            err = capsys.readouterr().err
            assert f"fitted with the server at {first.url}/v1" in err and f"{second.url}/v1" in err
        assert second.count() == sent  # refused before any text was sent


def test_no_model_for_the_embedder_offers_default_only_where_the_file_has_it(files, capsys, tmp_path):
    """It offered '--embedder default' to a run that used it, with a file that had no model for it."""
    cal = tmp_path / "none.json"
    ratings = _ratings(tmp_path)
    assert main(["asr", "train", "--ratings", str(ratings), "--out", str(cal)]) == 0
    capsys.readouterr()
    argv = ["asr", "score", "--ref", files["ref"], "--hyp", files["hyp"], "--ids", "--calibration", str(cal)]
    assert main([*argv, "--embedder", "fake/hash", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "no model with an embedder" in err and "has a model for" not in err
    # the shipped calibration has the default embedder's model: offered to another embedder
    assert (
        main(
            [
                "asr",
                "score",
                "--ref",
                files["ref"],
                "--hyp",
                files["hyp"],
                "--ids",
                "--embedder",
                "fake/hash",
                "--dry-run",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "models for: e5/multilingual-e5-small?prefix=query (that is, default)" in err
    assert "or --embedder with one the file has a model for" in err


def test_a_calibration_fitted_with_a_providers_own_endpoint_is_refused_elsewhere(files, capsys, monkeypatch):
    """The check did nothing when the model was fitted without a base URL (the provider's own API):
    a server with a model of that name got its weights."""
    ratings = _ratings(files["dir"])
    cal = files["dir"] / "cal.json"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    cache = ["--cache", str(files["dir"] / "c.sqlite")]
    with FakeLLMServer() as first, FakeLLMServer() as second:
        monkeypatch.setenv("OPENAI_BASE_URL", first.url + "/v1")  # the SDK's own endpoint, for this test
        fit = ["asr", "train", "--ratings", str(ratings), "--embedder", "openai/toy", "--out", str(cal), *cache]
        assert main(fit) == 0
        assert json.loads(cal.read_text(encoding="utf-8"))["people"]["openai/toy"]["server"] == first.url + "/v1"
        monkeypatch.delenv("OPENAI_BASE_URL")
        score = ["asr", "score", "--ref", files["ref"], "--hyp", files["hyp"], "--ids", "--embedder", "openai/toy"]
        score += ["--calibration", str(cal), *cache, "--dry-run"]
        capsys.readouterr()
        assert main([*score, "--embedder-base-url", second.url + "/v1"]) == 2
        assert f"fitted with the server at {first.url}/v1" in capsys.readouterr().err
        assert main(score) == 2  # the provider's default endpoint is another server too
        assert "this run's is openai's default endpoint" in capsys.readouterr().err


def test_vectors_from_the_sdks_environment_server_are_cached_as_that_servers(files, capsys, monkeypatch):
    """With OPENAI_BASE_URL set, vectors were cached under the provider's own endpoint: a later run
    against OpenAI itself (or another server) was served the first server's vectors."""
    from voxjudge.llm.spec import parse_spec

    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    argv = ["asr", "metrics", "--ref", files["ref"], "--hyp", files["hyp"], "--ids", "--embedder", "openai/toy"]
    argv += ["--cache", str(files["dir"] / "c.sqlite"), "--json"]
    with FakeLLMServer() as first, FakeLLMServer() as second:
        for server, cached in ((first, False), (second, False), (first, True)):
            monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
            assert main(argv) == 0
            out = json.loads(capsys.readouterr().out)
            assert out["embedder_server"] == server.url + "/v1"
            assert (out["embedder_usage"]["requests"] == 0) == cached, server.url
        monkeypatch.setenv("OPENAI_BASE_URL", first.url + "/v1")
        judged = parse_spec("openai/gpt-x").identity()
        monkeypatch.delenv("OPENAI_BASE_URL")
        assert judged["base_url"] == first.url + "/v1" and parse_spec("openai/gpt-x").identity()["base_url"] is None
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")  # the google-genai SDK's own variable
    assert parse_spec("gemini/g-x").identity()["base_url"] == "http://127.0.0.1:9"
