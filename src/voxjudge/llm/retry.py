"""Retry policy: exponential backoff with jitter, honouring the server's Retry-After."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class RetryPolicy:
    max_retries: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    rng: random.Random = field(default_factory=lambda: random.Random(0), repr=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if retry_after is not None:
            # The server said when; add a little jitter so parallel workers do not stampede.
            return min(self.max_delay, retry_after) * (1 + 0.1 * self.rng.random())
        ceiling = min(self.max_delay, self.base_delay * 2**attempt)
        return ceiling / 2 + self.rng.random() * ceiling / 2  # "equal jitter"
