"""Judge backends: one interface to real LLMs, with cache, limits, retries and accounting.

``Judge("openai/gpt-4o-mini")`` (or ``anthropic/...``, ``gemini/...``, ``local/model.gguf``,
``fake/<script>``) wraps a provider backend. Provider SDKs are optional extras imported only
when their provider is used. ``label_many(judge, task, items)`` is how evaluators ask a model to
label things: a ``Task`` is data (templates, item schema, batch policy) hashed by content, and
the ``LabelOutcome`` says what was answered, what is unscored and why, and whether a budget
stopped the run. ``open_embedder("default")`` (or ``openai/<model>``, ``gemini/<model>``,
``fake/hash``) is the second model kind: ``embed(texts)`` -> unit vectors, through the same
cache, retries and limits.

Names load on first use: ``from voxjudge.llm.options import JudgeOptions`` (every LASER run)
imports neither the cache (sqlite3), the message types (numpy, for audio) nor the labeller
(asyncio).
"""

from voxjudge._lazy import lazy_exports

_EXPORTS = {
    "Cache": "voxjudge.llm.cache",
    "default_cache_path": "voxjudge.llm.cache",
    "EmbedResult": "voxjudge.llm.embed",
    "Embedder": "voxjudge.llm.embed",
    "EmbedCall": "voxjudge.llm.embed_registry",
    "EmbedLimits": "voxjudge.llm.embed_registry",
    "TooLarge": "voxjudge.llm.embed_registry",
    "register_embedder": "voxjudge.llm.embed_registry",
    "BudgetExceeded": "voxjudge.llm.errors",
    "ConfigError": "voxjudge.llm.errors",
    "LLMError": "voxjudge.llm.errors",
    "PermanentError": "voxjudge.llm.errors",
    "TransientError": "voxjudge.llm.errors",
    "Judge": "voxjudge.llm.judge",
    "LabelOutcome": "voxjudge.llm.label",
    "Labelled": "voxjudge.llm.label",
    "label_many": "voxjudge.llm.label",
    "planned_requests": "voxjudge.llm.label",
    "JudgeOptions": "voxjudge.llm.options",
    "open_embedder": "voxjudge.llm.options",
    "Capabilities": "voxjudge.llm.registry",
    "register_provider": "voxjudge.llm.registry",
    "RetryPolicy": "voxjudge.llm.retry",
    "JudgeSpec": "voxjudge.llm.spec",
    "parse_spec": "voxjudge.llm.spec",
    "Item": "voxjudge.llm.task",
    "Task": "voxjudge.llm.task",
    "batch_schema": "voxjudge.llm.task",
    "load_tasks": "voxjudge.llm.task",
    "AudioPart": "voxjudge.llm.types",
    "Message": "voxjudge.llm.types",
    "Request": "voxjudge.llm.types",
    "Response": "voxjudge.llm.types",
    "TextPart": "voxjudge.llm.types",
    "Usage": "voxjudge.llm.types",
    "PriceTable": "voxjudge.llm.usage",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
