"""The request and response types every backend speaks. Plain data, no provider specifics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# Audio is data that io reads and validates; a message part is just that data (io knows no model).
from voxjudge.io.audio import AUDIO_FORMATS as AUDIO_FORMATS  # re-exported beside the other types
from voxjudge.io.audio import AudioPart as AudioPart

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class TextPart:
    text: str


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
