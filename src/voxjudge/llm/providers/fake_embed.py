"""``fake/<name>``: deterministic embedding vectors for tests and demos, registered like a real provider.

``fake/hash``: a bag of character trigrams (of `` text ``, lower-cased) hashed into ``dim``
dimensions (default 64), so texts that share letters get close vectors and equal texts equal
ones. ``fake/words``: the same over whole words. Neither is normalised: the ``Embedder`` does it.

Options: ``dim``; ``max_batch`` (texts per request: a larger batch fails as too large, as a server
with a cap does); ``max_chars`` (a batch holding a longer text fails as too large, as a model
with a context limit does); ``latency`` (seconds per call); ``fail_first`` (the first k calls fail with 429);
``reject`` (a text containing this string fails its whole batch, as one bad input does on a server).
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from voxjudge.llm.embed_registry import EmbedCall, EmbedLimits, TooLarge, int_option
from voxjudge.llm.errors import ConfigError, PermanentError, TransientError
from voxjudge.llm.scripts import hashed_vector
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import Usage
from voxjudge.llm.usage import estimate_tokens


class FakeEmbedBackend:
    def __init__(self, spec: JudgeSpec, *, connect: bool = True):  # connect: nothing to connect to
        if spec.model not in ("hash", "words"):
            raise ConfigError(f"fake: no embedder {spec.model!r}; use fake/hash or fake/words")
        self.spec = spec
        self.dim = int_option(spec, "dim", 64)
        self.max_batch = int_option(spec, "max_batch", 10_000)
        self.max_chars = int_option(spec, "max_chars", 10**9)
        self.limits = EmbedLimits(max_batch=int_option(spec, "batch_size", 64))
        self.fail_first = int_option(spec, "fail_first", 0, low=0)
        self.reject = spec.options.get("reject")
        try:
            self.latency = float(spec.options.get("latency", 0))
        except ValueError:
            raise ConfigError(f"fake: latency={spec.options['latency']!r} is not a number") from None
        self.options: dict[str, str] = {"dim": str(self.dim)}
        self.calls = 0
        self.sent: list[list[str]] = []  # every batch asked for, in order (tests read it)

    def identity(self) -> dict[str, Any]:
        return {"fake": 1}

    async def embed(self, texts: list[str]) -> EmbedCall:
        self.calls += 1
        self.sent.append(list(texts))
        if self.latency:
            await asyncio.sleep(self.latency)
        if self.calls <= self.fail_first:
            raise TransientError("fake: rate limited", status=429, retry_after=0.0)
        if len(texts) > self.max_batch:
            raise TooLarge(f"fake: batch of {len(texts)} is too large (max {self.max_batch})", status=413)
        longest = max(map(len, texts))
        if longest > self.max_chars:
            raise TooLarge(f"fake: input is too large ({longest} > {self.max_chars} characters)", status=500)
        if self.reject is not None and any(self.reject in t for t in texts):
            raise PermanentError(f"fake: input rejected (contains {self.reject!r})", status=400)
        vectors = np.stack([hashed_vector(self.spec.model, t, self.dim) for t in texts])
        return EmbedCall(vectors, Usage(input_tokens=sum(estimate_tokens(t) for t in texts)))

    async def aclose(self) -> None:
        return None
