"""Client-side rate limits: requests per minute and tokens per minute, as async token buckets."""

from __future__ import annotations

import asyncio
import time


class TokenBucket:
    """Holds up to one minute of budget, refilled continuously at ``per_minute / 60`` per second."""

    def __init__(self, per_minute: float):
        if per_minute <= 0:
            raise ValueError("a rate limit must be positive")
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.level = self.capacity
        self.updated = time.monotonic()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.updated) * self.rate)
        self.updated = now

    async def take(self, amount: float) -> None:
        amount = min(amount, self.capacity)  # one huge request must still be able to pass
        async with self._lock:
            while True:
                self._refill()
                if self.level >= amount:
                    self.level -= amount
                    return
                await asyncio.sleep((amount - self.level) / self.rate)


class RateLimiter:
    def __init__(self, requests_per_minute: float | None = None, tokens_per_minute: float | None = None):
        self.requests = TokenBucket(requests_per_minute) if requests_per_minute else None
        self.tokens = TokenBucket(tokens_per_minute) if tokens_per_minute else None

    async def acquire(self, tokens: int) -> None:
        if self.requests is not None:
            await self.requests.take(1)
        if self.tokens is not None:
            await self.tokens.take(tokens)
