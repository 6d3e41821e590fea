"""``Judge``: one wrapper around any backend that owns caching, limits, retries, validation,
accounting and the call log. Every model-based judgment in voxjudge goes through it.

A call's life: cache lookup per sample index -> budget check -> rate limits -> concurrency slot ->
backend call with a timeout -> retries with backoff on transient errors -> answer cached at once
-> JSON extracted and validated against the schema -> one repair request if invalid -> else the
sample is returned *unscored* with the raw text and the reason. The limits, timeout, retries and
fail-fast stops of one backend call live in ``voxjudge.llm.retry`` (``RetriedCalls``).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from voxjudge.llm.cache import Cache, default_cache_path, request_keys
from voxjudge.llm.errors import BudgetExceeded, PermanentError, TransientError
from voxjudge.llm.parse import InvalidOutput, parse_structured
from voxjudge.llm.records import RecordLog
from voxjudge.llm.registry import Backend, Capabilities, backend_class, capabilities_of, create_backend
from voxjudge.llm.retry import RetriedCalls, RetryPolicy
from voxjudge.llm.secrets import redact
from voxjudge.llm.spec import JudgeSpec, parse_spec
from voxjudge.llm.types import Message, Request, Response, Usage
from voxjudge.llm.usage import PriceTable, estimate_request_tokens

REPAIR_PROMPT = (
    "Your previous answer could not be used: {reason}. Reply again with only the JSON value, "
    "exactly as the schema requires."
)
_DEFAULT = object()


class Judge(RetriedCalls):
    def __init__(
        self,
        spec: JudgeSpec | str,
        *,
        base_url: str | None = None,
        cache: Cache | str | Path | None | object = _DEFAULT,
        records: RecordLog | str | Path | None = None,
        concurrency: int = 8,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = 120.0,
        max_cost: float | None = None,
        prices: PriceTable | None = None,
        backend: Backend | None = None,
        connect: bool = True,
    ):
        """``connect=False`` defers creating the backend (SDK import, API key) to the first call,
        so a dry run needs neither."""
        self.spec = parse_spec(spec, base_url) if isinstance(spec, str) else spec
        self._hold(
            self.spec,
            cache=default_cache_path() if cache is _DEFAULT else cache,  # type: ignore[arg-type]
            records=records,
            concurrency=concurrency,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
            retry=retry,
            timeout=timeout,
            max_cost=max_cost,
            prices=prices,
        )
        self._backend = backend
        if self._backend is None and connect:
            self._backend = create_backend(self.spec)
        self._reserved = 0.0
        self._one_sample_per_call = False  # set when the server answers n > 1 with fewer samples

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = create_backend(self.spec)
        return self._backend

    @property
    def capabilities(self) -> Capabilities:
        """What the backend can do (known without creating it, so a dry run needs no key)."""
        return capabilities_of(self._backend if self._backend is not None else backend_class(self.spec), self.spec)

    # ---- one request -------------------------------------------------------------------------

    async def complete(self, request: Request, *, item_id: str | None = None, validate: bool = True) -> list[Response]:
        """``request.n`` samples. Samples that could not be obtained or validated carry ``error``."""
        keys = request_keys(self.spec, request, request.n)
        got: dict[int, Response] = {}
        if self.cache is not None:
            for i, key in enumerate(keys):
                hit = self.cache.get(key)
                if hit is not None:
                    got[i] = _from_cache(hit, i)
                    self.meter.cache_hits += 1
                    self._log(request, item_id, event="cache_hit", sample_indices=[i])
        missing = [i for i in range(request.n) if i not in got]
        if missing and self.unreachable:
            # Every call would fail the same way: the samples not cached fail at once.
            for i in missing:
                got[i] = Response("", sample_index=i, error=f"call failed: {self.unreachable}")
            missing = []
        if missing:
            together = self.capabilities.n_samples and not self._one_sample_per_call
            groups = [missing] if together else [[i] for i in missing]
            outcomes = await asyncio.gather(
                *(self._fetch(request, g, keys, item_id) for g in groups), return_exceptions=True
            )
            for group, outcome in zip(groups, outcomes):
                if isinstance(outcome, BaseException):
                    if not isinstance(outcome, (TransientError, PermanentError)):
                        raise outcome
                    for i in group:
                        got[i] = Response("", sample_index=i, error=redact(f"call failed: {outcome}"))
                else:
                    got.update(outcome)
        responses = [got[i] for i in range(request.n)]
        if validate and request.schema is not None:
            for r in responses:
                if r.ok and r.parsed is None:
                    await self._validate(request, r, item_id)
        return responses

    async def _fetch(
        self, request: Request, indices: list[int], keys: list[str], item_id: str | None
    ) -> dict[int, Response]:
        call = request
        if indices[0] > 0 and request.seed is not None:
            # Samples from index k on get seed + k, one call for all or one call each: raising n
            # on a warm cache must not repeat sample 0's seed for the new samples.
            call = replace(request, seed=request.seed + indices[0])
        result, usage, latency = await self._call(call, len(indices), item_id, indices)
        out = {}
        to_cache = []
        for k, (i, sample) in enumerate(zip(indices, result.samples)):
            share = usage if k == 0 else Usage()
            parsed = _try_parse(sample.text, request.schema)
            value = {
                "text": sample.text,
                "finish_reason": sample.finish_reason,
                "usage": share.as_dict(),
                "latency": latency,
                "structured": result.structured,
            }
            if parsed is not _INVALID:
                # The schema is part of the key, so a valid answer stays valid: reruns skip validation.
                value["parsed"] = parsed
            to_cache.append((keys[i], value))
            out[i] = Response(
                sample.text,
                None if parsed is _INVALID else parsed,
                share,
                latency,
                sample.finish_reason,
                i,
                False,
                structured=result.structured,
            )
        if self.cache is not None and to_cache:
            self.cache.put_many(self.spec, to_cache)
        if len(result.samples) < len(indices):
            # The server ignores n (llama-cpp-python's does): from now on one sample per call,
            # and the missing ones are asked for now, each with its own seed.
            if not self._one_sample_per_call:
                self._one_sample_per_call = True
                from voxjudge.llm import negotiate

                negotiate.note(
                    self.spec.base_url,
                    self.spec.model,
                    f"returned {len(result.samples)} of {len(indices)} samples asked in one request; "
                    "asking one sample per request for this run",
                )
            rest = indices[len(result.samples) :]
            for got in await asyncio.gather(*(self._fetch(request, [i], keys, item_id) for i in rest)):
                out.update(got)
        return out

    async def _call(self, request: Request, n: int, item_id: str | None, indices: list[int]):
        tokens = estimate_request_tokens(request)
        reserved = self._reserve_budget(tokens, request.max_tokens * n)
        try:
            return await self._call_with_retries(request, n, item_id, indices, tokens)
        finally:
            self._reserved -= reserved

    async def _validate(self, request: Request, response: Response, item_id: str | None) -> None:
        try:
            response.parsed = parse_structured(response.text, request.schema)  # type: ignore[arg-type]
            return
        except InvalidOutput as first:
            reason = str(first)
        repair = replace(
            request,
            messages=request.messages
            + (
                Message.text("assistant", response.text),
                Message.text("user", REPAIR_PROMPT.format(reason=reason)),
            ),
            n=1,
        )
        self._log(request, item_id, event="repair", sample_indices=[response.sample_index], error=reason)
        fixed = (await self.complete(repair, item_id=item_id, validate=False))[0]
        if fixed.ok:
            try:
                response.parsed = parse_structured(fixed.text, request.schema)  # type: ignore[arg-type]
                response.text = fixed.text
                return
            except InvalidOutput as second:
                reason = f"{reason}; after repair: {second}"
        else:
            reason = f"{reason}; repair failed: {fixed.error}"
        response.error = f"invalid output: {reason}"

    # ---- many requests -----------------------------------------------------------------------

    async def complete_many(
        self,
        items: Sequence[tuple[str, Request]],
        *,
        validate: bool = True,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[list[Response] | None]:
        """All items, in input order. If the judge's cost limit (its ``max_cost=`` setting) stops
        the run, items not started are None and ``stop_reason`` says why; everything finished is
        already cached and logged."""
        if self.engine is not None:
            return await self.engine.complete_many(self, items, validate=validate, progress=progress)
        results: list[list[Response] | None] = [None] * len(items)
        queue = iter(range(len(items)))
        done = 0

        async def worker() -> None:
            nonlocal done
            for k in queue:
                if self.stop_reason:
                    return
                item_id, request = items[k]
                try:
                    results[k] = await self.complete(request, item_id=item_id, validate=validate)
                except BudgetExceeded:
                    self.stop_reason = self._budget_message()
                    return
                done += 1
                if progress is not None:
                    progress(done, len(items))

        workers = max(1, min(len(items), self.concurrency * 2))
        await asyncio.gather(*(worker() for _ in range(workers)))
        if self.stop_reason and self.max_cost is not None and self.stop_reason.startswith("cost limit of "):
            # worded again now the calls in flight when it stopped are paid: what the run spent in the end
            self.stop_reason = self._budget_message()
        return results

    def estimate(self, requests: Sequence[Request]) -> dict[str, Any]:
        """Dry run: what the requests would cost, counting cached samples as free.

        Output tokens are bounded by each request's ``max_tokens``, so the cost is an upper bound.
        """
        calls = input_tokens = output_tokens = cached = 0
        for r in requests:
            keys = request_keys(self.spec, r, r.n)
            missing = [i for i in range(r.n) if self.cache is None or self.cache.get(keys[i]) is None]
            cached += r.n - len(missing)
            if not missing:
                continue
            n_calls = 1 if self.capabilities.n_samples else len(missing)
            calls += n_calls
            input_tokens += estimate_request_tokens(r) * n_calls
            output_tokens += r.max_tokens * len(missing)
        price = self.meter.price
        cost = None if price is None else price.cost(Usage(input_tokens, output_tokens))
        return {
            "judge": self.spec.full_name,
            "requests": calls,
            "cached_samples": cached,
            "input_tokens_estimate": input_tokens,
            "output_tokens_max": output_tokens,
            "cost_usd_max": None if cost is None else round(cost, 4),
        }

    # ---- sync convenience and housekeeping ---------------------------------------------------

    def complete_sync(self, request: Request, *, item_id: str | None = None, validate: bool = True) -> list[Response]:
        return self.run(self.complete(request, item_id=item_id, validate=validate))

    async def aclose(self) -> None:
        if self._backend is not None:
            await self._backend.aclose()
        if self.records is not None:
            self.records.close()
        if self.cache is not None:
            self.cache.close()

    def close(self) -> None:
        self.run(self.aclose())
        if self._loop is not None:
            self._loop.close()
            self._loop = None

    def _reserve_budget(self, input_tokens: int, max_output_tokens: int) -> float:
        """Hold the worst-case cost of a call about to start, so parallel calls cannot overshoot."""
        if self.max_cost is None or self.meter.price is None:
            return 0.0
        worst = self.meter.price.cost(Usage(input_tokens, max_output_tokens))
        if (self.meter.cost or 0.0) + self._reserved + worst > self.max_cost:
            raise BudgetExceeded(self._budget_message())
        self._reserved += worst
        return worst

    def _budget_message(self) -> str:
        """Why a cost limit stopped the run: what it has spent, and that the next call's worst case
        (every answer as long as its token limit allows) would have passed the limit."""
        return (
            f"cost limit of {self.max_cost:g} USD reached: this run spent {self.meter.cost or 0.0:.4f} USD, and the "
            "next call's worst case (every answer as long as its token limit) would have passed it; rerun with a "
            "higher limit to continue" + (" from the cache" if self.cache is not None else "")
        )

    def _log(self, request: Request, item_id: str | None, **fields: Any) -> None:
        if self.records is None:
            return
        self.records.write(
            {
                "item_id": item_id,
                "judge": self.spec.full_name,
                **self.spec.identity(),
                "template": request.template,
                "template_hash": request.template_hash
                or hashlib.sha256(request.template.encode("utf-8")).hexdigest()[:16],
                "params": {
                    "temperature": request.temperature,
                    "seed": request.seed,
                    "max_tokens": request.max_tokens,
                    "n": request.n,
                },
                **fields,
            }
        )


_INVALID = object()


def _try_parse(text: str, schema: dict[str, Any] | None) -> Any:
    if schema is None:
        return _INVALID
    try:
        return parse_structured(text, schema)
    except InvalidOutput:
        return _INVALID


def _from_cache(value: dict[str, Any], index: int) -> Response:
    u = value.get("usage") or {}
    return Response(
        value.get("text", ""),
        value.get("parsed"),
        Usage(int(u.get("input_tokens", 0)), int(u.get("output_tokens", 0)), float(u.get("audio_seconds", 0.0))),
        float(value.get("latency", 0.0)),
        value.get("finish_reason"),
        index,
        True,
        structured=bool(value.get("structured", False)),
    )
