"""Judge backends: one interface to real LLMs, with cache, limits, retries and accounting.

``Judge("openai/gpt-4o-mini")`` (or ``anthropic/...``, ``gemini/...``, ``local/model.gguf``,
``fake/<script>``) wraps a provider backend. Provider SDKs are optional extras imported only
when their provider is used.
"""

from voxjudge.llm.batch import BatchOutcome, batch_schema, judge_in_batches
from voxjudge.llm.cache import Cache, default_cache_path
from voxjudge.llm.errors import (
    BudgetExceeded,
    ConfigError,
    LLMError,
    PermanentError,
    TransientError,
)
from voxjudge.llm.judge import Judge
from voxjudge.llm.registry import register_provider
from voxjudge.llm.retry import RetryPolicy
from voxjudge.llm.spec import JudgeSpec, parse_spec
from voxjudge.llm.types import AudioPart, Message, Request, Response, TextPart, Usage
from voxjudge.llm.usage import PriceTable

__all__ = [
    "AudioPart",
    "BatchOutcome",
    "BudgetExceeded",
    "Cache",
    "ConfigError",
    "Judge",
    "JudgeSpec",
    "LLMError",
    "Message",
    "PermanentError",
    "PriceTable",
    "Request",
    "Response",
    "RetryPolicy",
    "TextPart",
    "TransientError",
    "Usage",
    "batch_schema",
    "default_cache_path",
    "judge_in_batches",
    "parse_spec",
    "register_provider",
]
