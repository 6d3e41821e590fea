"""Keeping API keys out of everything voxjudge writes: records, outputs, error messages.

Servers sometimes echo the request's key in an error body ("Incorrect API key provided: sk-...").
Every message that leaves a model call passes through ``redact`` first.
"""

from __future__ import annotations

import os
import re

KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
_PATTERNS = re.compile(
    r"(?:sk-(?:ant-)?[A-Za-z0-9_\-]{8,}"  # OpenAI and Anthropic key shapes
    r"|AIza[0-9A-Za-z_\-]{20,}"  # Google API keys
    r"|(?<=Bearer )[^\s\"',;]+"  # Authorization headers
    r"|(?<=[?&]key=)[^&\s\"']+"  # keys in query strings
    r"|(?<=x-api-key: )[^\s\"',;]+)",
    re.IGNORECASE,
)
REDACTED = "[REDACTED]"


def known_secrets() -> list[str]:
    """The key values in the environment (long enough not to be ordinary words)."""
    return [v for v in (os.environ.get(name) for name in KEY_VARIABLES) if v and len(v) >= 8]


def redact(text: str | None) -> str | None:
    if not text:
        return text
    for secret in known_secrets():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _PATTERNS.sub(REDACTED, text)
