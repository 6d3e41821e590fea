"""A local stand-in for the OpenAI, Anthropic and Gemini HTTP APIs, for tests, benchmarks and
offline trials of ``--base-url``. It listens on 127.0.0.1 only.

Faults are queued and consumed one per request: ``"429"`` (with ``Retry-After``), ``"500"``,
``"503"``, ``"timeout"`` (answer after ``slow_seconds``), ``"reset"`` (drop the connection),
``"malformed"`` (a 200 with a broken JSON body), ``"wrong_ids"`` (a batch answer that skips one
id and invents another), ``"bad_json"`` (a 200 whose answer text is not JSON), ``"400_schema"``
(reject structured output, like servers without json_schema support), ``"garbage"`` (a 200 whose
body is not JSON at all).

Embeddings: ``POST .../embeddings`` (OpenAI's shape) and ``...:batchEmbedContents`` (Gemini's)
answer each input with ``fake_embed.hashed_vector`` (``embed_dim`` dimensions, unit norm unless
``normalise=False``). A request of more than ``embed_cap`` inputs gets HTTP 413. Embedding faults:
``"413"``, ``"too_large_500"`` (llama.cpp's server: a 500 saying the input is too large),
``"wrong_count"`` (one vector fewer), ``"nan"`` (a NaN in the first vector), ``"per_token"``
(a list of vectors per input, as llama.cpp answers with pooling none), ``"strings"`` (numbers
as JSON strings), ``"no_usage"`` and ``"malformed"``; and for any request ``"429_soon"`` (a
Retry-After that is neither seconds nor a date), ``"429_day"`` (Retry-After: 86400),
``"504_slow"`` (a gateway timeout saying "took too long") and ``"vllm_400"`` (vLLM's error body).

``quirk="llama-cpp"`` mimics llama-cpp-python's OpenAI-compatible server: a ``json_schema``
response format is refused with HTTP 500 naming ``response_format`` (its validation takes only
``text`` or ``json_object`` with a ``schema``), while ``json_object`` + ``schema`` is answered;
and ``n`` is ignored (one choice per request).
``quirk="no-structured"`` refuses every response format with the same HTTP 500 body and names
nothing, so only the repeated-error rule can tell.

``dialect`` makes it publish what a real server publishes about its constrained decoding (GET,
see ``voxjudge.llm.servers``): ``"llama-cpp-python"`` (an OpenAPI document whose chat request has
``grammar``), ``"llama-server"`` (``/props``), ``"vllm"`` / ``"vllm-guided"`` (OpenAPI with
``structured_outputs`` / ``guided_json``), ``"ollama"`` (``/api/version``, and ``POST /api/chat``
answered in Ollama's native shape). The answer comes from ``responder`` as always; the schema it
is given is read from whichever field carried it (a GBNF ``grammar`` carries none).

    python -m voxjudge.llm.fakeserver --latency 0.2     # prints "port N", serves until killed
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from voxjudge.llm.scripts import example_from_schema

Responder = Callable[[str, dict[str, Any]], Any]


def _last_user_text(provider: str, body: dict[str, Any]) -> str:
    if provider == "gemini":
        contents = [c for c in body.get("contents", []) if c.get("role", "user") == "user"]
        parts = contents[-1]["parts"] if contents else []
        return "".join(p.get("text", "") for p in parts)
    msgs = [m for m in body.get("messages", []) if m.get("role") == "user"]
    content = msgs[-1]["content"] if msgs else ""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content


def request_schema(provider: str, body: dict[str, Any]) -> dict[str, Any] | None:
    if provider == "ollama":
        return body.get("format") if isinstance(body.get("format"), dict) else None
    if provider == "openai":
        if isinstance(body.get("structured_outputs"), dict):
            return body["structured_outputs"].get("json")
        for field in ("guided_json", "json_schema"):
            if isinstance(body.get(field), dict):
                return body[field]
        rf = body.get("response_format") or {}
        if rf.get("type") == "json_object":
            return rf.get("schema")
        return (rf.get("json_schema") or {}).get("schema")
    if provider == "anthropic":
        tools = body.get("tools") or []
        return tools[0]["input_schema"] if tools else None
    cfg = body.get("generationConfig") or body.get("generation_config") or {}
    return cfg.get("responseJsonSchema") or cfg.get("response_json_schema")


def default_responder(provider: str, body: dict[str, Any]) -> Any:
    schema = request_schema(provider, body)
    return example_from_schema(schema) if schema else "echo: " + _last_user_text(provider, body)


class FakeLLMServer:
    """Runs an aiohttp server on its own event loop in a background thread (or in the foreground
    with ``serve_forever``). aiohttp keeps the server's own CPU cost small, so a throughput
    benchmark measures the client, not the stand-in."""

    def __init__(
        self,
        latency: float = 0.0,
        responder: Responder | None = None,
        slow_seconds: float = 5.0,
        quirk: str | None = None,
        dialect: str | None = None,
        embed_dim: int = 16,
        embed_cap: int | None = None,
        normalise: bool = True,
    ):
        self.embed_dim, self.embed_cap, self.normalise = embed_dim, embed_cap, normalise
        self.latency = latency
        self.quirk = quirk
        self.dialect = dialect
        self.slow_seconds = slow_seconds
        self.responder = responder or default_responder
        self.faults: list[str] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.probes: list[str] = []  # paths of GET requests (what a client asked the server about itself)
        self.lock = threading.Lock()
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: Any = None
        self._thread: threading.Thread | None = None
        self._release: asyncio.Event | None = None  # set at shutdown: hung "timeout" answers end

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _start(self) -> None:
        from aiohttp import web

        self._release = asyncio.Event()
        app = web.Application(client_max_size=64 * 2**20)
        app.router.add_post("/{tail:.*}", self._handle)
        app.router.add_get("/{tail:.*}", self._published)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port, backlog=1024)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def start(self) -> FakeLLMServer:
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(self._start())  # type: ignore[union-attr]
            ready.set()
            self._loop.run_forever()  # type: ignore[union-attr]

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._release.set)  # type: ignore[union-attr]
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)  # type: ignore[union-attr]
        self._loop.close()
        self._loop = None

    def serve_forever(self, on_ready: Callable[[int], None]) -> None:
        async def main() -> None:
            await self._start()
            on_ready(self.port)
            await asyncio.Event().wait()

        asyncio.run(main())

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def count(self, provider: str | None = None) -> int:
        with self.lock:
            return sum(1 for p, _ in self.requests if provider is None or p == provider)

    # ---- request handling ------------------------------------------------------------------------

    async def _published(self, request: Any) -> Any:
        """What the server publishes about itself (GET), per ``dialect``; 404 otherwise."""
        from aiohttp import web

        with self.lock:
            self.probes.append(request.path)
        chat = {"messages": {"type": "array"}, "response_format": {}}
        found: Any = None
        if request.path == "/openapi.json" and self.dialect == "llama-cpp-python":
            found = _openapi("🦙 llama.cpp Python API", "CreateChatCompletionRequest", {**chat, "grammar": {}})
        elif request.path == "/openapi.json" and self.dialect in ("vllm", "vllm-guided"):
            field = "structured_outputs" if self.dialect == "vllm" else "guided_json"
            found = _openapi("vLLM", "ChatCompletionRequest", {**chat, field: {}})
        elif request.path == "/props" and self.dialect == "llama-server":
            found = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}
        elif request.path == "/api/version" and self.dialect == "ollama":
            found = {"version": "0.12.0"}
        if found is None:
            return web.json_response({"detail": "Not Found"}, status=404)
        return web.json_response(found)

    async def _handle(self, request: Any) -> Any:
        from aiohttp import web

        body = await request.json()
        path = request.path
        provider = "anthropic" if path.endswith("/messages") else "gemini" if ":generateContent" in path else "openai"
        if path == "/api/chat":
            provider = "ollama"
        if path.endswith("/embeddings"):
            provider = "openai-embed"
        elif ":batchEmbedContents" in path:
            provider = "gemini-embed"
        with self.lock:
            self.requests.append((provider, body))
            fault = self.faults.pop(0) if self.faults else "ok"
        if self.latency:
            await asyncio.sleep(self.latency)
        if fault == "reset":
            request.transport.abort()  # drop the connection without an answer
            raise asyncio.CancelledError
        if fault == "timeout":
            # Hang until slow_seconds pass or the server stops: a client timeout shorter than
            # slow_seconds always fires first, however loaded the machine is.
            try:
                await asyncio.wait_for(self._release.wait(), self.slow_seconds)  # type: ignore[union-attr]
            except asyncio.TimeoutError:
                pass
        if fault in ("429_soon", "429_day"):  # a Retry-After no client can read; a daily quota's
            headers = {"Retry-After": "soon" if fault == "429_soon" else "86400"}
            return web.json_response({"error": {"message": "rate limited"}}, status=429, headers=headers)
        if fault == "504_slow":  # a gateway's timeout, worded like a size limit
            return web.Response(status=504, text="upstream server took too long to respond")
        if fault == "vllm_400":  # vLLM's error body: no "error" object
            message = "Model does not support matryoshka representation, changing output dimensions will lead to poor "
            message += "results."
            return web.json_response(
                {"object": "error", "message": message, "type": "BadRequestError", "code": 400}, status=400
            )
        if fault in ("429", "500", "503"):
            headers = {"Retry-After": "0.05"} if fault == "429" else {}
            return web.json_response(
                {"error": {"message": f"fake {fault}", "type": "fake"}}, status=int(fault), headers=headers
            )
        quirk = self._quirk(provider, body)
        if quirk is not None:
            return quirk
        if fault == "400_schema" and request_schema(provider, body) is not None:
            msg = {
                "error": {"message": "response_format json_schema is not supported", "type": "invalid_request_error"}
            }
            return web.json_response(msg, status=400)
        if fault == "echo_key":  # a careless server that quotes the credentials it was sent
            message = f"invalid request from {request.headers.get('Authorization', '')}"
            return web.json_response({"error": {"message": message}}, status=400)
        if fault == "malformed":
            return web.Response(body=b'{"id": "x", "choices": [', content_type="application/json")
        if fault == "garbage":
            return web.Response(body=b"\x00\xffnot json at all", content_type="text/html")
        if provider.endswith("-embed"):
            return self._embeddings(provider, body, fault)
        answer = self.responder(provider, body)
        if (
            fault == "wrong_ids"
            and isinstance(answer, dict)
            and isinstance(answer.get("items"), list)
            and answer["items"]
        ):
            answer = dict(answer, items=answer["items"][1:] + [dict(answer["items"][0], id="invented-id")])
        text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
        if fault == "bad_json":
            text = "I think the answer is yes."
        return web.json_response(self._wrap(provider, body, text))

    def _embeddings(self, provider: str, body: dict[str, Any], fault: str) -> Any:
        from aiohttp import web

        from voxjudge.llm.scripts import hashed_vector

        if provider == "openai-embed":
            texts = body.get("input")
            texts = [texts] if isinstance(texts, str) else list(texts or [])
        else:
            texts = ["".join(p.get("text", "") for p in r["content"]["parts"]) for r in body.get("requests", [])]
        if fault == "413" or (self.embed_cap is not None and len(texts) > self.embed_cap):
            return web.json_response({"error": {"message": "Payload Too Large"}}, status=413)
        if fault == "too_large_500":
            message = "input is too large to process. increase the physical batch size"
            return web.json_response({"error": {"code": 500, "message": message, "type": "server_error"}}, status=500)
        if any(t == "" for t in texts):
            return web.json_response({"error": {"message": "input cannot be empty"}}, status=400)
        vectors = []
        for t in texts:
            v = hashed_vector("hash", t, self.embed_dim).astype(float)
            vectors.append((v / (sum(v * v) ** 0.5) if self.normalise else v * 3.5).tolist())
        if fault == "wrong_count":
            vectors = vectors[:-1]
        if fault == "nan":
            vectors[0][0] = float("nan")
        if fault == "per_token":
            vectors = [[v, v] for v in vectors]
        if fault == "strings":  # numbers as JSON strings
            vectors = [[str(x) for x in v] for v in vectors]
        tokens = sum(len(t) for t in texts) // 4 + len(texts)
        if provider == "gemini-embed":
            out: dict[str, Any] = {"embeddings": [{"values": v} for v in vectors]}
        else:
            out = {
                "object": "list",
                "model": body.get("model"),
                "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
            if fault == "no_usage":  # servers that bill but do not say
                del out["usage"]
        return web.Response(text=json.dumps(out, allow_nan=True), content_type="application/json")

    def _quirk(self, provider: str, body: dict[str, Any]) -> Any:
        from aiohttp import web

        rf = body.get("response_format") if provider == "openai" else None
        if not rf or self.quirk is None:
            return None
        if self.quirk == "llama-cpp" and rf.get("type") != "json_object":
            # What llama-cpp-python's server sends: its route handler turns FastAPI's request
            # validation error into an OpenAI-style error with HTTP 500 (llama_cpp/server/errors.py).
            message = (
                "1 validation errors:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                "'msg': \"Input should be 'text' or 'json_object'\", 'input': '" + str(rf.get("type")) + "', "
                "'ctx': {'expected': \"'text' or 'json_object'\"}}"
            )
            error = {"message": message, "type": "internal_server_error", "param": None, "code": None}
            return web.json_response({"error": error}, status=500)
        if self.quirk == "no-structured":
            return web.json_response(
                {"error": {"message": "Internal Server Error", "type": "server_error"}}, status=500
            )
        return None

    def _wrap(self, provider: str, body: dict[str, Any], text: str) -> dict[str, Any]:
        tokens_in, tokens_out = len(json.dumps(body)) // 4, max(1, len(text) // 4)
        if provider == "ollama":
            return {
                "model": body.get("model"),
                "message": {"role": "assistant", "content": text},
                "done": True,
                "done_reason": "stop",
                "prompt_eval_count": tokens_in,
                "eval_count": tokens_out,
            }
        if provider == "anthropic":
            if request_schema(provider, body) is not None:
                try:
                    content = [
                        {"type": "tool_use", "id": "t1", "name": body["tools"][0]["name"], "input": json.loads(text)}
                    ]
                except json.JSONDecodeError:
                    content = [{"type": "text", "text": text}]
            else:
                content = [{"type": "text", "text": text}]
            return {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": content,
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
            }
        if provider == "gemini":
            n = int((body.get("generationConfig") or {}).get("candidateCount") or 1)
            return {
                "candidates": [
                    {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": i}
                    for i in range(n)
                ],
                "usageMetadata": {"promptTokenCount": tokens_in, "candidatesTokenCount": tokens_out * n},
            }
        n = 1 if self.quirk == "llama-cpp" else int(body.get("n") or 1)  # llama-cpp-python drops n
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [
                {"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                for i in range(n)
            ],
            "usage": {
                "prompt_tokens": tokens_in,
                "completion_tokens": tokens_out * n,
                "total_tokens": tokens_in + tokens_out * n,
            },
        }


def _openapi(title: str, name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": title}, "components": {"schemas": {name: {"properties": properties}}}}


def main() -> None:
    ap = argparse.ArgumentParser(description="Fake OpenAI/Anthropic/Gemini server on 127.0.0.1")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    args = ap.parse_args()
    try:
        FakeLLMServer(latency=args.latency).serve_forever(lambda port: print(f"port {port}", flush=True))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
