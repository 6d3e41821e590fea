"""One utterance as read from a file."""

from __future__ import annotations

from typing import NamedTuple


class TextRecord(NamedTuple):
    """One utterance. A NamedTuple: reading builds one per line, and a frozen dataclass cost
    ten times as much to build (half of the reading time of ``asr metrics``)."""

    id: str
    text: str
    line: int
    speaker: str | None = None
