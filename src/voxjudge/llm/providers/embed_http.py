"""Embedding servers: OpenAI's ``/v1/embeddings`` (and every compatible server: vLLM, Ollama,
llama.cpp, text-embeddings-inference) and Gemini's ``batchEmbedContents``.

``openai/<model>``: OpenAI itself through the official SDK (``OPENAI_API_KEY``); with a base URL,
the lean aiohttp transport. Floats are asked for (``encoding_format=float``: some servers lack
base64). Options: ``dimensions`` (changes the vectors), ``batch_size`` (texts per request,
default 64; text-embeddings-inference takes 32 by default: set it lower for such a server),
``pooling=mean`` (average the per-token vectors of a server without pooling, such as
llama-cpp-python's with a chat GGUF; otherwise such an answer is refused with that advice).

``gemini/<model>``: google-genai (``GEMINI_API_KEY``/``GOOGLE_API_KEY``), at most 100 texts per
request. Options: ``task_type`` (default ``SEMANTIC_SIMILARITY``), ``output_dimensionality``.
Vectors cut below the full size are not normalised by the server: the ``Embedder`` normalises all.

A request refused as too large (HTTP 413, or an error saying the input is too large or too long,
as llama.cpp's server answers with a 500) raises ``TooLarge``, so the ``Embedder`` halves the batch
instead of retrying the same request.
"""

from __future__ import annotations

import re
import time
import warnings
from typing import Any

from voxjudge.llm.embed_registry import EmbedCall, EmbedLimits, TooLarge, int_option
from voxjudge.llm.errors import ConfigError, PermanentError, TransientError, Unreachable
from voxjudge.llm.providers._common import api_key, classify, token_count
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import Usage
from voxjudge.llm.usage import estimate_tokens

SERVER = "embedder_base_url"  # the setting that points an embedder at a local server (its own flag)
_TOO_LARGE = re.compile(
    r"too (large|long|big)|exceeds? (the )?(maximum|max|context|batch)|maximum context length|physical batch size"
    r"|too many (inputs|texts|items|strings)",  # a cap on the count, said with a 400
    re.I,
)


def too_large(error: PermanentError | TransientError) -> bool:
    # a rate limit or a gateway's timeout ("took too long") is no verdict on the input
    if isinstance(error, Unreachable) or error.status in (429, 502, 503, 504):
        return False
    return error.status == 413 or bool(_TOO_LARGE.search(str(error)))


def from_openai_embeddings(data: dict[str, Any], count: int, pooling: str | None = None) -> EmbedCall:
    """Rows in input order (by ``index``), and the usage; a malformed body is a ``PermanentError``.
    A server without pooling answers one vector per token: ``pooling="mean"`` averages them (what
    llama.cpp's ``--pooling mean`` does server-side); without it that answer is refused."""
    items = data.get("data")
    if not isinstance(items, list):
        raise PermanentError("openai: embeddings response has no data list")
    rows: list[Any] = [None] * count
    for position, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("embedding"), list):
            raise PermanentError("openai: an embeddings item has no embedding list (base64 not asked for)")
        index = item.get("index", position)
        if not isinstance(index, int) or not 0 <= index < count or rows[index] is not None:
            raise PermanentError(f"openai: embeddings item index {index!r} does not match the {count} texts sent")
        embedding = item["embedding"]
        if embedding and isinstance(embedding[0], list):
            # llama.cpp's servers with pooling "none" return one vector per token: not a sentence vector.
            if pooling != "mean":
                raise PermanentError(
                    "openai: the server answers one vector per token, not per text: start it with mean "
                    "pooling (llama-server's pooling setting) or add ?pooling=mean to the embedder"
                )
            try:
                embedding = [sum(column) / len(embedding) for column in zip(*embedding)]
            except TypeError:
                raise PermanentError("openai: malformed per-token vectors") from None
        rows[index] = embedding
    if any(r is None for r in rows):
        raise PermanentError(f"openai: {sum(r is not None for r in rows)} embeddings for {count} texts")
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    # a count that is negative or no number is not believed (it would lower the cost past its limit)
    tokens = token_count(usage.get("prompt_tokens")) or token_count(usage.get("total_tokens"))
    return EmbedCall(rows, Usage(input_tokens=tokens))


class OpenAIEmbedBackend:
    def __init__(self, spec: JudgeSpec, *, connect: bool = True):
        """``connect=False`` (a dry run): the options are checked, but no key is read and no client
        (nor the SDK) is created."""
        unknown = set(spec.options) - {"dimensions", "batch_size", "transport", "pooling"}
        if unknown:
            raise ConfigError(
                f"openai: unknown embedding option {sorted(unknown)[0]!r}; known: dimensions, batch_size, pooling"
            )
        self.pooling = spec.options.get("pooling")
        if self.pooling not in (None, "mean"):
            raise ConfigError(f"openai: pooling={self.pooling!r}; the one client-side pooling is pooling=mean")
        self.spec = spec
        self.limits = EmbedLimits(max_batch=min(2048, int_option(spec, "batch_size", 64)))
        self.options: dict[str, str] = {}
        self.dimensions = int_option(spec, "dimensions", 0, low=0) or None
        self.transport = spec.options.get("transport", "http" if spec.base_url else "sdk")
        if self.transport not in ("http", "sdk"):
            raise ConfigError(f"openai: transport must be sdk or http, not {self.transport!r}")
        if self.transport == "http" and not spec.base_url:
            raise ConfigError("openai: transport=http needs {base_url}", options={"base_url": "base_url"})
        self.connected = connect
        if not connect:
            return
        required = spec.base_url is None
        key = api_key("OPENAI_API_KEY", required=required, provider="openai", server=SERVER) or "not-needed"
        if self.transport == "http":
            from voxjudge.llm.providers._http import JSONTransport

            self.http = JSONTransport(spec.base_url, {"Authorization": f"Bearer {key}"}, "openai")
        else:
            import openai  # the 'openai' extra

            self.client = openai.AsyncOpenAI(api_key=key, base_url=spec.base_url, max_retries=0, timeout=None)

    def identity(self) -> dict[str, Any]:
        return {}

    def endpoint(self) -> str:
        """Where the vectors come from: the base URL, else the SDK's (``OPENAI_BASE_URL``, else its default)."""
        found = self.spec.server
        return found.rstrip("/") if found else "openai's default endpoint"

    async def embed(self, texts: list[str]) -> EmbedCall:
        payload: dict[str, Any] = {"model": self.spec.model, "input": texts, "encoding_format": "float"}
        if self.dimensions:
            payload["dimensions"] = self.dimensions
        start = time.perf_counter()
        try:
            if self.transport == "http":
                data = await self.http.post("/embeddings", payload)
            else:
                try:
                    response = await self.client.embeddings.create(**payload)
                except ValueError as exc:  # a body that is not JSON (JSONDecodeError): as the http transport, retried
                    raise TransientError(f"openai: the server's answer is not JSON ({exc})") from None
                except Exception as exc:
                    raise classify(exc, "openai", str(self.client.base_url)) from exc
                if not hasattr(response, "model_dump"):  # the SDK hands a non-JSON body back as text
                    raise TransientError("openai: the server's answer is not JSON")
                with warnings.catch_warnings():  # pydantic warns of fields of an unexpected type (base64
                    warnings.simplefilter("ignore")  # vectors): the checks below say what is wrong, once
                    data = response.model_dump(mode="json")
        except (PermanentError, TransientError) as e:
            if too_large(e):
                raise TooLarge(str(e), status=e.status) from None
            raise
        call = from_openai_embeddings(data, len(texts), self.pooling)
        call.usage.output_tokens = 0
        if not call.usage.input_tokens:  # a server that reports no usage still bills (and --max-cost counts) tokens
            call.usage.input_tokens = sum(map(estimate_tokens, texts))
        self.latency = time.perf_counter() - start
        return call

    async def aclose(self) -> None:
        if not self.connected:
            return
        if self.transport == "http":
            await self.http.aclose()
        else:
            await self.client.close()


class GeminiEmbedBackend:
    def __init__(self, spec: JudgeSpec, *, connect: bool = True):
        """``connect=False`` (a dry run): the options are checked, but no key is read and no client
        (nor the SDK) is created."""
        unknown = set(spec.options) - {"task_type", "output_dimensionality", "batch_size"}
        if unknown:
            raise ConfigError(
                f"gemini: unknown embedding option {sorted(unknown)[0]!r}; "
                "known: task_type, output_dimensionality, batch_size"
            )
        self.spec = spec
        self.limits = EmbedLimits(max_batch=min(100, int_option(spec, "batch_size", 100)))
        self.options = {"task_type": spec.options.get("task_type", "SEMANTIC_SIMILARITY")}
        self.dimensions = int_option(spec, "output_dimensionality", 0, low=0) or None
        self.client: Any = None
        if not connect:
            return
        from google import genai  # the 'gemini' extra
        from google.genai import types

        key = api_key(
            "GEMINI_API_KEY", "GOOGLE_API_KEY", required=spec.base_url is None, provider="gemini", server=SERVER
        )
        retry = {"retry_options": types.HttpRetryOptions(attempts=1)} if hasattr(types, "HttpRetryOptions") else {}
        http = types.HttpOptions(base_url=spec.base_url, **retry) if (spec.base_url or retry) else None
        self.client = genai.Client(api_key=key or "not-needed", http_options=http)

    def identity(self) -> dict[str, Any]:
        return {}

    def endpoint(self) -> str:
        found = self.spec.server  # the base URL, else GOOGLE_GEMINI_BASE_URL, which the SDK reads
        return found.rstrip("/") if found else "gemini's default endpoint"

    async def embed(self, texts: list[str]) -> EmbedCall:
        config: dict[str, Any] = {"task_type": self.options["task_type"]}
        if self.dimensions:
            config["output_dimensionality"] = self.dimensions
        try:
            response = await self.client.aio.models.embed_content(model=self.spec.model, contents=texts, config=config)
        except Exception as exc:
            error = classify(exc, "gemini", self.spec.base_url)
            if too_large(error):
                raise TooLarge(str(error), status=error.status) from None
            raise error from exc
        data = response.model_dump(mode="json", exclude_none=True)
        rows = [e.get("values") for e in data.get("embeddings") or []]
        if len(rows) != len(texts) or any(not isinstance(r, list) for r in rows):
            raise PermanentError(f"gemini: {len(rows)} embeddings for {len(texts)} texts")
        tokens = sum(int((e.get("statistics") or {}).get("token_count") or 0) for e in data.get("embeddings") or [])
        return EmbedCall(rows, Usage(input_tokens=tokens or sum(len(t) for t in texts) // 4))

    async def aclose(self) -> None:
        if self.client is None:
            return
        close = getattr(self.client.aio, "aclose", None)
        if close is not None:
            await close()
