"""The request and response types every backend speaks. Plain data, no provider specifics."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from voxjudge.errors import InputError

Role = Literal["system", "user", "assistant"]
AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg", "flac": "audio/flac", "ogg": "audio/ogg"}


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class AudioPart:
    """Audio bytes with their container format; the cache keys it by content hash, not by path."""

    data: bytes = field(repr=False)
    format: str = "wav"

    def __post_init__(self) -> None:
        if self.format not in AUDIO_FORMATS:
            raise InputError(f"audio format {self.format!r} not supported; use one of {', '.join(AUDIO_FORMATS)}")

    @classmethod
    def from_path(cls, path: str | Path) -> AudioPart:
        """The clip after the one audio validation every path shares (format from the content,
        not the suffix; silence-free decoding checked), so no judge is sent bytes that are not audio."""
        from voxjudge.io.audio import audio_part

        return audio_part(path)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    @property
    def mime_type(self) -> str:
        return AUDIO_FORMATS[self.format]

    def seconds(self) -> float | None:
        """Duration for WAV (from the header); None for compressed formats."""
        if self.format != "wav":
            return None
        import io
        import wave

        try:
            with wave.open(io.BytesIO(self.data)) as w:
                return w.getnframes() / float(w.getframerate())
        except (wave.Error, EOFError):
            return None


Part = TextPart | AudioPart


@dataclass(frozen=True)
class Message:
    role: Role
    parts: tuple[Part, ...]

    @classmethod
    def text(cls, role: Role, text: str) -> Message:
        return cls(role, (TextPart(text),))

    @property
    def text_content(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def audio(self) -> list[AudioPart]:
        return [p for p in self.parts if isinstance(p, AudioPart)]


@dataclass(frozen=True)
class Request:
    """What a judge asks a model. ``schema`` is a JSON Schema for the answer (structured output).

    ``template`` names the prompt template (its hash is recorded); ``n`` is the number of samples.
    """

    messages: tuple[Message, ...]
    schema: dict[str, Any] | None = None
    schema_name: str = "answer"
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 1024
    n: int = 1
    template: str = ""
    template_hash: str = ""  # content hash of the task that rendered the messages

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("a request needs at least one message")
        if self.n < 1:
            raise ValueError("n must be at least 1")

    @classmethod
    def simple(cls, prompt: str, system: str | None = None, **kw: Any) -> Request:
        msgs = ([Message.text("system", system)] if system else []) + [Message.text("user", prompt)]
        return cls(tuple(msgs), **kw)

    def with_n(self, n: int) -> Request:
        from dataclasses import replace

        return replace(self, n=n)

    @property
    def system_text(self) -> str:
        """System messages joined, for APIs that take the system prompt separately."""
        return "\n\n".join(m.text_content for m in self.messages if m.role == "system")

    @property
    def has_audio(self) -> bool:
        return any(m.audio for m in self.messages)


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    audio_seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "audio_seconds": self.audio_seconds,
        }


@dataclass
class Completion:
    """One sample of a model's answer, as the provider returned it."""

    text: str
    finish_reason: str | None = None


@dataclass
class ProviderResult:
    """What a backend returns for one call: ``len(samples)`` samples and the call's usage."""

    samples: list[Completion]
    usage: Usage
    latency: float = 0.0
    structured: bool = False  # the server enforced the schema


@dataclass
class Response:
    """One sample after the wrapper: text, the validated object (or why there is none), accounting."""

    text: str
    parsed: Any = None
    usage: Usage = field(default_factory=Usage)
    latency: float = 0.0
    finish_reason: str | None = None
    sample_index: int = 0
    cache_hit: bool = False
    error: str | None = None  # set when the answer could not be used: the item is unscored
    structured: bool = False  # the server enforced the schema (JSON-schema mode or tool use)

    @property
    def ok(self) -> bool:
        return self.error is None
