"""Review: a chat-completions body of the wrong shape is the server's error (the item unscored),
not a traceback; token counts a server reports are never negative (or a cost limit would open)."""

from __future__ import annotations

import pytest

from voxjudge.llm.errors import PermanentError
from voxjudge.llm.providers._common import token_count
from voxjudge.llm.providers.openai import from_openai_response


def _ok(content="hi", usage=None):
    return {"choices": [{"index": 0, "message": {"content": content}}], "usage": usage or {}}


@pytest.mark.parametrize(
    "body",
    [
        {"choices": "nope"},
        {"choices": ["nope"]},
        {"choices": [{"message": "text"}]},
        _ok(content={"a": 1}),
    ],
)
def test_review_wrong_shapes_are_permanent_errors(body):
    with pytest.raises(PermanentError, match="unexpected response"):
        from_openai_response(body)


def test_review_odd_but_usable_bodies():
    # indices that do not compare keep the server's order; unreadable usage counts 0
    body = {"choices": [{"index": "a", "message": {"content": "x"}}, {"index": 0, "message": {"content": "y"}}]}
    assert [s.text for s in from_openai_response(body).samples] == ["x", "y"]
    for usage in ({"prompt_tokens": "ten", "completion_tokens": 5}, [1]):
        result = from_openai_response({**_ok(), "usage": usage})
        assert result.usage.input_tokens == 0
    parts = {"choices": [{"message": {"content": [{"text": "a"}, {"text": 5}, "x", {"text": "b"}]}}]}
    assert from_openai_response(parts).samples[0].text == "ab"


def test_review_negative_usage_is_not_believed():
    result = from_openai_response(_ok(usage={"prompt_tokens": -1_000_000, "completion_tokens": -5}))
    assert (result.usage.input_tokens, result.usage.output_tokens) == (0, 0)


@pytest.mark.parametrize(
    "value, expected",
    [(12, 12), ("12", 12), (12.7, 12), (-3, 0), (None, 0), (True, 0), ("x", 0), (float("nan"), 0), ([1], 0)],
)
def test_review_token_count(value, expected):
    assert token_count(value) == expected


def test_review_negative_usage_cannot_open_the_cost_limit(tmp_path, capsys):
    """End to end against a server on 127.0.0.1 that reports negative token counts: the run used
    to show "cost -20000.1000 USD" and no longer held its --max-cost."""
    import asyncio
    import json
    import threading

    from aiohttp import web

    from voxjudge.cli.main import main

    async def handle(request):
        await request.read()
        body = {
            "choices": [{"index": 0, "message": {"content": "hello"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": -1_000_000, "completion_tokens": -5},
        }
        return web.json_response(body)

    async def notfound(request):
        return web.json_response({"detail": "Not Found"}, status=404)

    loop = asyncio.new_event_loop()
    started = threading.Event()
    state = {}

    async def start():
        app = web.Application()
        app.router.add_post("/{t:.*}", handle)
        app.router.add_get("/{t:.*}", notfound)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        state["runner"], state["port"] = runner, site._server.sockets[0].getsockname()[1]

    def serve():
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert started.wait(10)
    try:
        prompts = tmp_path / "p.jsonl"
        prompts.write_text("".join(json.dumps({"id": f"p{i}", "prompt": "q"}) + "\n" for i in range(3)))
        prices = tmp_path / "prices.json"
        prices.write_text(json.dumps({"models": {"openai/m": {"input_per_mtok": 1000, "output_per_mtok": 1000}}}))
        url = f"http://127.0.0.1:{state['port']}/v1"
        argv = ["llm", "run", str(prompts), "--judge", "openai/m", "--base-url", url, "--no-cache"]
        argv += ["--prices", str(prices), "--max-cost", "1", "--max-tokens", "10", "--timeout", "20"]
        assert main(argv) == 0
        err = capsys.readouterr().err
        assert "0+0 tokens, cost 0.0000 USD" in err, err
    finally:
        asyncio.run_coroutine_threadsafe(state["runner"].cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def test_review_an_embedding_servers_token_counts_are_not_believed_below_zero():
    """The embeddings parser took ``int(...)`` of any count: -1000000 made the cost negative (and
    opened --max-cost), "ten" was a traceback."""
    from voxjudge.llm.providers.embed_http import from_openai_embeddings

    body = {"data": [{"index": 0, "embedding": [1.0, 0.0]}]}
    for usage, expected in (
        ({"prompt_tokens": -1000000}, 0),
        ({"prompt_tokens": "ten", "total_tokens": 5}, 5),
        ([1], 0),
    ):
        assert from_openai_embeddings({**body, "usage": usage}, 1).usage.input_tokens == expected
