"""How to build a model client, as one value: cache, limits, retries, prices, call log and engine.

An evaluator's library entry takes a ``JudgeOptions`` beside the judge spec and builds the
``Judge`` itself (``options.judge(spec)``), so a caller never assembles one by hand and the
command line maps its flags onto this object once (``cli/judge_options.py``). Embedders are
built from the same options (``open_embedder``); this module sits above both kinds of client and
the Ray engine, which imports neither back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from voxjudge.llm.cache import Cache
    from voxjudge.llm.embed import Embedder


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

    def __post_init__(self) -> None:
        if self.base_url is not None:  # refused here, before any input is read, not after retries
            from voxjudge.llm.spec import server_url

            server_url(self.base_url)

    def judge(self, spec: str, *, dry_run: bool = False):
        """The ``Judge`` these options describe. A dry run creates no backend (no key, no SDK)."""
        from voxjudge.llm.judge import Judge

        settings = self._calls()
        if dry_run:
            settings["records"] = None  # a dry run writes no call log
        if not self.use_cache or self.cache is not None:  # else the Judge's default cache file
            settings["cache"] = self.cache if self.use_cache else None
        judge = Judge(spec, base_url=self.base_url, connect=not dry_run, **settings)
        if self.engine == "ray" and not dry_run:
            judge.engine = self._ray_engine()
        return judge

    def unused_server(self, offline: str, *, embedder: bool = False) -> None:
        """Refuse ``base_url`` where no model judge will call it, rather than drop it in silence;
        ``offline`` says so of the run's judges ("the offline judge 'rules' calls none"),
        ``embedder``: one is given (its server is another setting, which the message names)."""
        if self.base_url is None:
            return
        from voxjudge.errors import InputError

        raise InputError(
            f"{{base_url}} is an LLM judge's server, and {offline}"
            + ("; give the embedder's server with {embedder_base_url}" if embedder else ""),
            options={"base_url": "JudgeOptions(base_url=...)", "embedder_base_url": "embedder_base_url"},
        )

    def _calls(self) -> dict:
        """The settings a ``Judge`` and an ``Embedder`` both take from these options."""
        from voxjudge.llm.retry import RetryPolicy
        from voxjudge.llm.usage import PriceTable

        return {
            "records": self.records,
            "concurrency": self.concurrency,
            "requests_per_minute": self.requests_per_minute,
            "tokens_per_minute": self.tokens_per_minute,
            "retry": RetryPolicy(max_retries=self.max_retries),
            "timeout": self.timeout,
            "max_cost": self.max_cost,
            "prices": PriceTable.load(self.prices) if self.prices else None,
        }

    def _ray_engine(self):
        """Ray is imported only here (an optional extra)."""
        from voxjudge.llm.errors import ConfigError

        try:
            from voxjudge.llm.ray_engine import RayEngine
        except ImportError:
            raise ConfigError("the Ray engine needs Ray: pip install 'voxjudge[ray]'") from None
        return RayEngine(address=self.ray_address, workers=self.ray_workers, shards=self.ray_shards)


def embedder_spec(spec: str | None) -> str | None:
    """An embedder spec as every entry takes it (``LaserOptions``, ``compute_metrics``,
    ``compare_systems``, ``train_files``, the CLI's --embedder): ``none`` in any case, the name the
    summaries give the absence of one, is no embedder, as None is; any other spec is as given."""
    return None if spec is None or spec.strip().lower() == "none" else spec


def open_embedder(
    spec: str,
    *,
    base_url: str | None = None,
    cache: Cache | str | Path | None | bool = True,
    options: JudgeOptions | None = None,
    engine: str = "local",
    dry_run: bool = False,
) -> Embedder:
    """The embedder ``spec`` names: ``default`` (offline, shipped in a wheel), ``e5/...``,
    ``openai/<model>`` (``base_url`` for a compatible server), ``gemini/<model>``, ``fake/hash``.

    ``cache``: True for the default cache file, a path or a ``Cache``, False/None for none.
    ``options`` (a ``JudgeOptions``) gives retries, timeout, rate limits, prices, the call log
    and the engine; ``engine="ray"`` spreads embedding batches over Ray workers (the rate limits
    and ``max_cost`` hold for all of them together). An unknown
    spec, a missing extra or a bad option is a ``ConfigError`` at once; a server that cannot be
    reached stops the first ``embed`` call with an error (no fallback to another model).

    ``dry_run``: an embedder for ``estimate`` only: no key, no client, no SDK, no call log, no
    Ray (the cache is read, so cached texts count as free).
    """
    from voxjudge.llm.embed import Embedder
    from voxjudge.llm.errors import ConfigError

    options = options or JudgeOptions()
    if options.use_cache is False:
        cache = None
    elif cache is True and options.cache is not None:
        cache = options.cache
    chosen = engine if engine != "local" else options.engine
    if chosen not in ("local", "ray"):
        raise ConfigError(f"unknown engine {chosen!r}; use local or ray")
    calls = options._calls()
    if dry_run:
        calls["records"] = None  # a dry run writes no call log
    # base_url is this model's server; options.base_url is the chat judge's
    embedder = Embedder(spec, base_url=base_url, cache=cache, connect=not dry_run, **calls)
    if chosen == "ray" and not dry_run:
        embedder.engine = options._ray_engine()
    return embedder
