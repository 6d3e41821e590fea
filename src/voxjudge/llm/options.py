"""How to build an LLM judge, as one value: cache, limits, retries, prices, call log and engine.

An evaluator's library entry takes a ``JudgeOptions`` beside the judge spec and builds the
``Judge`` itself (``options.judge(spec)``), so a caller never assembles one by hand and the
command line maps its flags onto this object once (``cli/judge_options.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class JudgeOptions:
    base_url: str | None = None
    use_cache: bool = True
    cache: str | Path | None = None  # None: $VOXJUDGE_CACHE or the user cache dir
    records: str | Path | None = None  # one JSONL record per model call (not written by a dry run)
    concurrency: int = 8
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    max_retries: int = 6
    timeout: float = 120.0
    max_cost: float | None = None
    prices: str | Path | None = None  # a price table JSON overriding the shipped one
    engine: str = "local"  # local | ray
    ray_address: str | None = None
    ray_workers: int = 2
    ray_shards: str | Path | None = None

    def judge(self, spec: str, *, dry_run: bool = False):
        """The ``Judge`` these options describe. A dry run creates no backend (no key, no SDK)."""
        from voxjudge.llm.judge import Judge
        from voxjudge.llm.retry import RetryPolicy
        from voxjudge.llm.usage import PriceTable

        kwargs = {} if self.use_cache and self.cache is None else {"cache": self.cache if self.use_cache else None}
        judge = Judge(
            spec,
            base_url=self.base_url,
            records=None if dry_run else self.records,
            concurrency=self.concurrency,
            requests_per_minute=self.requests_per_minute,
            tokens_per_minute=self.tokens_per_minute,
            retry=RetryPolicy(max_retries=self.max_retries),
            timeout=self.timeout,
            max_cost=self.max_cost,
            prices=PriceTable.load(self.prices) if self.prices else None,
            connect=not dry_run,
            **kwargs,
        )
        if self.engine == "ray" and not dry_run:
            judge.engine = self._ray_engine()
        return judge

    def _ray_engine(self):
        """Ray is imported only here (an optional extra)."""
        from voxjudge.llm.errors import ConfigError

        try:
            from voxjudge.llm.ray_engine import RayEngine
        except ImportError:
            raise ConfigError("the Ray engine needs Ray: pip install 'voxjudge[ray]'") from None
        return RayEngine(address=self.ray_address, workers=self.ray_workers, shards=self.ray_shards)
