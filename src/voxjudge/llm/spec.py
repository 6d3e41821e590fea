"""Judge spec strings: ``provider/model[?option=value&...]``.

``openai/gpt-4o-mini``, ``anthropic/claude-sonnet-4-5``, ``gemini/gemini-2.5-flash``,
``local/models/tiny.gguf``, ``fake/echo?latency=0.2``. A ``--base-url`` points ``openai/...`` at any
OpenAI-compatible server (vLLM, Ollama, llama.cpp server, LM Studio).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit

from voxjudge.llm.errors import ConfigError

PROVIDERS = ("openai", "anthropic", "gemini", "local", "vllm", "fake")
# Options that change how a call is made but never what the model answers; every other option
# (structured, grammar, bias, n_ctx, ...) is part of the cache key and the judge's recorded name.
TRANSPORT_OPTIONS = frozenset({"transport", "latency", "error_rate", "fail_first", "n_threads", "verbose"})
# Options whose value is a file the model's answers depend on: the cache key holds the file's
# content hash, so editing the file changes the key and moving it does not.
FILE_OPTIONS = frozenset({"grammar"})
# Where a provider's SDK takes its server from when no base URL is given: the answers come from
# there, so caches and records must tell it from the provider's own endpoint.
SDK_BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "gemini": "GOOGLE_GEMINI_BASE_URL"}


@dataclass(frozen=True)
class JudgeSpec:
    provider: str
    model: str
    base_url: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.base_url is not None:  # a spec made by hand is held to what parse_spec checks
            server_url(self.base_url)

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}"

    @property
    def server(self) -> str | None:
        """The base URL the calls go to: the one given, else the SDK's environment variable, else
        None (the provider's own endpoint)."""
        import os

        return self.base_url or os.environ.get(SDK_BASE_URL_ENV.get(self.provider, ""), "") or None

    @property
    def answer_options(self) -> dict[str, str]:
        return {k: v for k, v in sorted(self.options.items()) if k not in TRANSPORT_OPTIONS}

    @property
    def full_name(self) -> str:
        """The spec with every answer-changing option, as records name the judge."""
        opts = self.answer_options
        return self.name + (f"?{urlencode(opts)}" if opts else "")

    def identity(self) -> dict:
        """What distinguishes this judge in cache keys and records (never a key or secret)."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.server,
            "options": {k: file_digest(v) if k in FILE_OPTIONS else v for k, v in self.answer_options.items()},
        }


def file_digest(path: str) -> str:
    """``sha256:<hex>`` of the file's content, or the path itself when there is no such file (the
    backend then says so)."""
    import os

    try:
        st = os.stat(path)
    except OSError:
        return path
    return _digest(os.path.abspath(path), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=64)
def _digest(path: str, mtime_ns: int, size: int) -> str:  # keyed by mtime and size: an edit rehashes
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def server_url(url: str, setting: str = "base_url") -> str:
    """``url`` (stripped) when it can name a server: http:// or https://, a host, no spaces. Else a
    ``ConfigError`` naming ``setting``, at once: no request can go anywhere else, and retrying
    would only fail alike (``127.0.0.1:8080/v1`` was retried for 98 s, then gave up)."""
    text = url.strip()
    spaced = any(c.isspace() for c in text)
    try:
        parts = urlsplit(text)
        ok = parts.scheme.lower() in ("http", "https") and bool(parts.hostname) and not spaced
        parts.port  # noqa: B018 -- a port that is not a number raises here
    except ValueError:  # e.g. an unclosed [IPv6 literal
        ok = False
    if ok:
        return text
    example = f"http://{text}" if text and "://" not in text and not spaced else "http://127.0.0.1:8080/v1"
    raise ConfigError(
        f"{{{setting}}} {url!r} is not a server URL: it needs http:// or https:// and a host, e.g. {example}",
        options={setting: "base_url"},
    )


def parse_spec(spec: str, base_url: str | None = None) -> JudgeSpec:
    """``provider/model[?options]``; ``base_url`` (an OpenAI-compatible server) is checked here,
    where every judge is made, so a URL no request can go to is refused before the first call."""
    text = spec.strip()
    provider, sep, rest = text.partition("/")
    if not sep or not rest:
        raise ConfigError(
            f"judge {spec!r} is not provider/model; e.g. openai/gpt-4o-mini, anthropic/<model>, "
            "gemini/<model>, local/<file.gguf>, fake/<script>"
        )
    provider = provider.lower()
    if provider not in PROVIDERS and provider not in _REGISTERED:
        raise ConfigError(f"unknown provider {provider!r} in {spec!r}; known: {', '.join(PROVIDERS)}")
    model, _, query = rest.partition("?")
    options = dict(parse_qsl(query, keep_blank_values=True)) if query else {}
    if base_url is not None and provider not in ("openai", "anthropic", "gemini"):
        raise ConfigError(
            f"{{base_url}} applies to openai/, anthropic/ and gemini/ judges, not {provider}/",
            options={"base_url": "base_url"},
        )
    url = server_url(base_url).rstrip("/") if base_url is not None else None
    return JudgeSpec(provider, model, url, options)


# Providers added with ``registry.register_provider`` (the registry tells this module, so a spec
# knows every provider name without importing the registry, which imports specs).
_REGISTERED: set[str] = set()


def note_provider(name: str) -> None:
    _REGISTERED.add(name.lower())
