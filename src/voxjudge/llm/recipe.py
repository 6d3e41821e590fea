"""What a worker process needs to build a driver's model client again (a judge or an embedder
holds open files, the cache and the call log, so it is not sent itself): its spec, the paths of
its cache and call log, its concurrency, retries, timeout and price. The Ray engines extend it
with what their kind of client needs besides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from voxjudge.llm.retry import RetryPolicy
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.usage import Price


@dataclass
class ClientRecipe:
    spec: JudgeSpec
    cache: str | None
    records: str | None
    concurrency: int
    retry: RetryPolicy
    timeout: float
    price: Price | None

    @staticmethod
    def parts(client: Any) -> tuple:
        """This recipe's fields, in order, taken from a live ``Judge`` or ``Embedder``."""
        return (
            client.call_spec,
            None if client.cache is None else str(client.cache.path),
            None if client.records is None else str(client.records.path),
            client.concurrency,
            client.retry,
            client.timeout,
            client.meter.price,
        )

    def built(self, kind: type) -> Any:
        """A new client of ``kind`` (``Judge``, ``Embedder`` or a subclass) as the recipe says."""
        client = kind(
            self.spec,
            cache=self.cache,
            records=self.records,
            concurrency=self.concurrency,
            retry=self.retry,
            timeout=self.timeout,
        )
        client.meter.price = self.price
        return client
