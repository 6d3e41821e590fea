"""Token estimates, prices and the per-run usage meter."""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from voxjudge.llm.errors import ConfigError
from voxjudge.llm.types import Request, Usage

# Audio is billed by the second (or by audio tokens); ~32 tokens per second is the order of
# magnitude providers quote, used only for estimates when a provider does not report it.
AUDIO_TOKENS_PER_SECOND = 32


def estimate_tokens(text: str) -> int:
    """Rough token count: UTF-8 bytes / 4 (fair for English, conservative for Indic scripts)."""
    return math.ceil(len(text.encode("utf-8")) / 4) if text else 0


def estimate_request_tokens(request: Request) -> int:
    tokens = 4 * len(request.messages)  # per-message framing
    for m in request.messages:
        tokens += estimate_tokens(m.text_content)
        for a in m.audio:
            tokens += int((a.seconds() or len(a.data) / 32000) * AUDIO_TOKENS_PER_SECOND)
    if request.schema is not None:
        tokens += estimate_tokens(json.dumps(request.schema))
    return tokens


def audio_seconds(request: Request) -> float:
    return sum((a.seconds() or 0.0) for m in request.messages for a in m.audio)


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens; audio per minute where a provider bills it that way."""

    input_per_mtok: float
    output_per_mtok: float
    audio_per_minute: float = 0.0

    def cost(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input_per_mtok / 1e6
            + usage.output_tokens * self.output_per_mtok / 1e6
            + usage.audio_seconds / 60 * self.audio_per_minute
        )


FREE = Price(0.0, 0.0)


class PriceTable:
    """Prices by ``provider/model`` (exact, then longest matching prefix). Local and fake are free.

    The shipped table (``prices.json``) is dated; when prices change or for models it does not
    list, write your own in the same format and give it as ``JudgeOptions(prices=FILE)``, or as
    ``prices=PriceTable.load(FILE)`` (its models over the shipped ones) to a judge or an embedder.
    """

    def __init__(self, entries: dict[str, Price], as_of: str = ""):
        self.entries = entries
        self.as_of = as_of

    @classmethod
    def default(cls) -> PriceTable:
        data = json.loads(resources.files("voxjudge.llm").joinpath("prices.json").read_text(encoding="utf-8"))
        return cls._from_data(data, "shipped price table")

    @classmethod
    def load(cls, path: str | Path) -> PriceTable:
        from voxjudge.io.readers import read_json

        data = read_json(path, "price table")
        table = cls.default()
        table.entries.update(cls._from_data(data, str(path)).entries)
        return table

    @classmethod
    def _from_data(cls, data: Any, where: str) -> PriceTable:
        models = data.get("models") if isinstance(data, dict) else None
        if not isinstance(models, dict):
            raise ConfigError(f'{where}: expected {{"models": {{"provider/model": {{...}}}}}}')
        entries = {}
        for name, p in models.items():
            try:
                entries[name] = Price(
                    float(p["input_per_mtok"]), float(p["output_per_mtok"]), float(p.get("audio_per_minute", 0))
                )
            except (KeyError, TypeError, ValueError):
                raise ConfigError(f"{where}: model {name!r} needs input_per_mtok and output_per_mtok numbers") from None
        return cls(entries, str(data.get("as_of", "")))

    def price(self, provider: str, model: str) -> Price | None:
        if provider in ("local", "fake", "e5"):  # on this machine: free
            return FREE
        name = f"{provider}/{model}"
        if name in self.entries:
            return self.entries[name]
        matches = [k for k in self.entries if name.startswith(k)]
        return self.entries[max(matches, key=len)] if matches else None


@dataclass
class UsageMeter:
    """What a run has used so far. Costs count only calls actually made (cache hits are free)."""

    price: Price | None
    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    audio_seconds: float = 0.0
    started: float = field(default_factory=time.perf_counter)

    def add(self, usage: Usage) -> None:
        self.requests += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.audio_seconds += usage.audio_seconds

    @property
    def cost(self) -> float | None:
        if self.price is None:
            return None
        return self.price.cost(Usage(self.input_tokens, self.output_tokens, self.audio_seconds))

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "retries": self.retries,
            "failures": self.failures,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "audio_seconds": round(self.audio_seconds, 3),
            "cost_usd": None if self.cost is None else round(self.cost, 6),
            "wall_seconds": round(time.perf_counter() - self.started, 3),
        }
