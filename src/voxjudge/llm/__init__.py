"""Judge backends: one interface to real LLMs, with cache, limits, retries and accounting.

``Judge("openai/gpt-4o-mini")`` (or ``anthropic/...``, ``gemini/...``, ``local/model.gguf``,
``fake/<script>``) wraps a provider backend. Provider SDKs are optional extras imported only
when their provider is used. ``label_many(judge, task, items)`` is how evaluators ask a model to
label things: a ``Task`` is data (templates, item schema, batch policy) hashed by content, and
the ``LabelOutcome`` says what was answered, what is unscored and why, and whether a budget
stopped the run. ``open_embedder("default")`` (or ``openai/<model>``, ``gemini/<model>``,
``fake/hash``) is the second model kind: ``embed(texts)`` -> unit vectors, through the same
cache, retries and limits.
"""

from voxjudge.llm.cache import Cache, default_cache_path
from voxjudge.llm.embed import Embedder, EmbedResult
from voxjudge.llm.embed_registry import EmbedCall, EmbedLimits, TooLarge, register_embedder
from voxjudge.llm.errors import (
    BudgetExceeded,
    ConfigError,
    LLMError,
    PermanentError,
    TransientError,
)
from voxjudge.llm.judge import Judge
from voxjudge.llm.label import Labelled, LabelOutcome, label_many, planned_requests
from voxjudge.llm.options import JudgeOptions, open_embedder
from voxjudge.llm.registry import Capabilities, register_provider
from voxjudge.llm.retry import RetryPolicy
from voxjudge.llm.spec import JudgeSpec, parse_spec
from voxjudge.llm.task import Item, Task, batch_schema, load_tasks
from voxjudge.llm.types import AudioPart, Message, Request, Response, TextPart, Usage
from voxjudge.llm.usage import PriceTable

__all__ = [
    "AudioPart",
    "BudgetExceeded",
    "Cache",
    "Capabilities",
    "ConfigError",
    "EmbedCall",
    "EmbedLimits",
    "EmbedResult",
    "Embedder",
    "Item",
    "Judge",
    "JudgeOptions",
    "JudgeSpec",
    "LLMError",
    "LabelOutcome",
    "Labelled",
    "Message",
    "PermanentError",
    "PriceTable",
    "Request",
    "Response",
    "RetryPolicy",
    "Task",
    "TextPart",
    "TooLarge",
    "TransientError",
    "Usage",
    "batch_schema",
    "default_cache_path",
    "label_many",
    "load_tasks",
    "open_embedder",
    "parse_spec",
    "planned_requests",
    "register_embedder",
    "register_provider",
]
