"""Retries and fail-fast stops: how one backend call is attempted, retried or given up.

``RetryPolicy`` says how long to wait; ``RetriedCalls`` (the part of ``Judge`` that makes one
backend call) says whether to try again: transient errors (429, 5xx, timeouts) back off and
retry (but not when the server asks for a longer wait than ``max_retry_after``); a permanent error,
or a 500 repeated word for word, is not retried; 401/403/404 and a URL
no request can go to (``UnusableURL``) stop the run; a server that cannot be reached gets two
quick retries, then every later call fails at once.
"""

from __future__ import annotations

import asyncio
import functools
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from voxjudge.llm.cache import Cache
from voxjudge.llm.errors import ConfigError, PermanentError, TransientError, Unreachable, UnusableURL
from voxjudge.llm.limits import RateLimiter
from voxjudge.llm.records import RecordLog
from voxjudge.llm.secrets import redact
from voxjudge.llm.types import Request
from voxjudge.llm.usage import PriceTable, UsageMeter, audio_seconds

if TYPE_CHECKING:
    from voxjudge.llm.registry import Backend
    from voxjudge.llm.spec import JudgeSpec

T = TypeVar("T")
_FATAL_STATUS = {401, 403, 404}  # every later call would fail the same way: stop the run
# A 500 whose body repeats word for word is the server rejecting this request, not a hiccup
# (e.g. a request field it cannot handle): retrying it six more times only costs time.
_DETERMINISTIC_IF_REPEATED = {500, 501}
# A server that cannot be reached (refused, DNS, TLS) gets these quick retries, in seconds (one
# that is still starting up), then the run stops: backing off for minutes would not change it.
_UNREACHABLE_DELAYS = (0.25, 0.75)


@dataclass
class RetryPolicy:
    max_retries: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    # the longest Retry-After waited out (a minute or a few of rate limiting); a longer one (a
    # daily quota's) is not sat through in silence: the call gives up at once and says so
    max_retry_after: float = 300.0
    rng: random.Random = field(default_factory=lambda: random.Random(0), repr=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if retry_after is not None:
            # The server said when; add a little jitter so parallel workers do not stampede.
            return min(self.max_retry_after, retry_after) * (1 + 0.1 * self.rng.random())
        ceiling = min(self.max_delay, self.base_delay * 2**attempt)
        return ceiling / 2 + self.rng.random() * ceiling / 2  # "equal jitter"


class RetriedCalls:
    """Mixed into ``Judge``: one backend call under the rate limits and a concurrency slot, with a
    timeout, retried or stopped as the module docstring says. Every attempt is logged; the
    meter counts retries and failures. ``unreachable`` and ``stop_reason`` are set when the
    server cannot be reached, so the judge fails later calls at once."""

    # Set by Judge.__init__ (a cluster judge swaps in the cluster's limiter and slots).
    spec: JudgeSpec
    backend: Backend
    meter: UsageMeter
    limiter: RateLimiter
    retry: RetryPolicy
    timeout: float
    concurrency: int
    _slots: Any
    unreachable: str | None
    stop_reason: str | None

    _log: Callable[..., None]  # one call-log record: (request, item_id, **fields)

    def run(self, coro: Any) -> Any:
        """Run a coroutine on this client's own event loop (for code without asyncio). Interrupted
        (Ctrl-C) or failed, the work still pending is cancelled and let finish before the error
        goes on: a loop closed under pending tasks printed their tracebacks after the run's own
        one-line message. What was done is in the cache already."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        task = self._loop.create_task(coro)
        try:
            return self._loop.run_until_complete(task)
        except BaseException:
            pending = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
            for t in pending:
                t.cancel()
            if pending:
                self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            raise

    def _hold(
        self,
        spec: JudgeSpec,
        *,
        cache: Cache | str | Path | None,
        records: RecordLog | str | Path | None,
        concurrency: int,
        requests_per_minute: float | None,
        tokens_per_minute: float | None,
        retry: RetryPolicy | None,
        timeout: float,
        max_cost: float | None,
        prices: PriceTable | None,
    ) -> None:
        """What a judge and an embedder both hold around their backend: the price and usage meter,
        the cost limit, the cache file, the call log, limits, retries and the stop flags."""
        if concurrency < 1:
            raise ConfigError("concurrency must be at least 1")
        # NaN compares false with everything: a NaN limit would never stop a run, a NaN timeout
        # never fire; a negative limit would stop a run before its first call as "reached".
        if max_cost is not None and (
            isinstance(max_cost, bool) or not isinstance(max_cost, (int, float)) or not 0 <= max_cost < math.inf
        ):
            raise ConfigError(
                f"{{max_cost}} must be a number of US dollars, 0 or more (got {max_cost!r})",
                options={"max_cost": "max_cost"},
            )
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ConfigError(
                f"{{timeout}} must be a number of seconds above 0 (got {timeout!r})", options={"timeout": "timeout"}
            )
        table = prices or PriceTable.default()
        self.meter = UsageMeter(table.price(spec.provider, spec.model))
        if max_cost is not None and self.meter.price is None:
            raise ConfigError(
                f"a cost limit needs a price: no price known for {spec.name}; add it to a price table "
                '({"models": {"provider/model": {"input_per_mtok": ..., "output_per_mtok": ...}}})'
            )
        self.max_cost = max_cost
        self.cache = Cache(cache) if isinstance(cache, (str, Path)) else cache
        self.records = RecordLog(records) if isinstance(records, (str, Path)) else records
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        for name, rate in (("requests_per_minute", requests_per_minute), ("tokens_per_minute", tokens_per_minute)):
            if rate is not None and (isinstance(rate, bool) or not isinstance(rate, (int, float)) or not rate > 0):
                raise ConfigError(f"{{{name}}} must be a number above 0 (got {rate!r})", options={name: name})
        self.limiter = RateLimiter(requests_per_minute, tokens_per_minute)
        self.concurrency = concurrency
        self._slots = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.stop_reason = None
        self.unreachable = None
        # None runs every call in this process; a cluster engine (``voxjudge.llm.ray_engine``)
        # spreads a judge's batches or an embedder's texts over its workers instead.
        self.engine: Any = None

    @property
    def call_spec(self) -> JudgeSpec:
        """The spec errors name (an embedder keeps its spec string in ``spec``)."""
        return self.spec

    async def _call_with_retries(self, request: Request, n: int, item_id: str | None, indices: list[int], tokens: int):
        """One chat call: ``n`` samples of ``request``, retried as the module docstring says."""
        log = functools.partial(self._log, request, item_id, sample_indices=indices)
        result, latency, attempt = await self._retried(
            lambda: self.backend.complete(request, n), tokens + request.max_tokens * n, log
        )
        usage = result.usage
        usage.audio_seconds = audio_seconds(request)
        self.meter.add(usage)
        log(
            event="call",
            attempt=attempt,
            usage=usage.as_dict(),
            latency=round(latency, 4),
            finish_reasons=[s.finish_reason for s in result.samples],
            structured=result.structured,
        )
        return result, usage, latency

    async def _retried(self, call: Callable[[], Awaitable[T]], tokens: int, log: Callable[..., None]):
        """``call()`` under the rate limits (``tokens`` for the token bucket) and a concurrency
        slot, with the timeout, retried or stopped as the module docstring says; ``log(**fields)``
        records each failed attempt. Returns (result, latency, attempts before it). Shared by
        every model kind (chat judges, embedders), so they retry and stop alike."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.concurrency)
        attempt = 0
        quick = 0  # quick retries spent on an unreachable server
        previous: str | None = None
        while True:
            await self.limiter.acquire(tokens)
            start = time.perf_counter()
            async with self._slots:
                try:
                    result = await asyncio.wait_for(call(), self.timeout)
                    error: TransientError | Unreachable | None = None
                except asyncio.TimeoutError:
                    error = TransientError(f"{self.call_spec.provider}: no answer within {self.timeout:g}s")
                except (TransientError, Unreachable) as e:
                    error = e
                except PermanentError as e:
                    self.meter.failures += 1
                    message = redact(str(e))
                    log(
                        event="error",
                        attempt=attempt,
                        error=message,
                        status=e.status,
                        latency=time.perf_counter() - start,
                    )
                    if e.status in _FATAL_STATUS or isinstance(e, UnusableURL):
                        raise ConfigError(f"{self.call_spec.name}: {message}") from None
                    # Its kind survives (an embedder halves a batch on ``TooLarge``), its text is redacted.
                    kind = type(e) if type(e).__init__ is PermanentError.__init__ else PermanentError
                    raise kind(message, status=e.status) from None
            latency = time.perf_counter() - start
            if isinstance(error, Unreachable):
                await self._unreachable(error, quick, log, attempt, latency)
                quick += 1
                continue
            if error is None:
                return result, latency, attempt
            message = redact(str(error))
            repeated = error.status in _DETERMINISTIC_IF_REPEATED and message == previous
            previous = message
            # A server that asks for a longer wait than a retry makes (a daily quota) is not waited
            # out a minute at a time in silence: the run is told at once.
            if error.retry_after is not None and error.retry_after > self.retry.max_retry_after:
                message = f"the server asks to wait {error.retry_after:,.0f} s before a retry: {message}"
                final = True
            else:
                final = attempt >= self.retry.max_retries or repeated
            log(
                event="error" if final else "retry",
                attempt=attempt,
                error=message,
                status=error.status,
                latency=latency,
            )
            if repeated:
                self.meter.failures += 1
                raise PermanentError(
                    f"the server gave the same error twice, not retried: {message}", status=error.status
                )
            if final:
                self.meter.failures += 1
                tries = f"{attempt + 1} attempt" + ("s" if attempt else "")
                raise TransientError(f"gave up after {tries}: {message}", status=error.status)
            self.meter.retries += 1
            await asyncio.sleep(self.retry.delay(attempt, error.retry_after))
            attempt += 1

    async def _unreachable(
        self, error: Unreachable, quick: int, log: Callable[..., None], attempt: int, latency: float
    ) -> None:
        """A quick retry or two, then the run stops: later calls fail at once with the same reason."""
        message = redact(str(error))
        final = quick >= len(_UNREACHABLE_DELAYS) or self.unreachable is not None
        log(event="error" if final else "retry", attempt=attempt + quick, error=message, latency=latency)
        if final:
            self.meter.failures += 1
            self.unreachable = self.unreachable or message
            self.stop_reason = self.stop_reason or self.unreachable
            raise Unreachable(self.unreachable, url=error.url)
        self.meter.retries += 1
        await asyncio.sleep(_UNREACHABLE_DELAYS[quick])
