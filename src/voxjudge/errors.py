"""Exceptions that carry a message meant for the user."""

from __future__ import annotations


class VoxjudgeError(Exception):
    """Base class for errors voxjudge raises on purpose."""


class InputError(VoxjudgeError, ValueError):
    """Bad user input: the message says what, where (file, line or id) and how to fix it.

    The CLI prints it as one line and exits with status 2.
    """


_OBJECT_REPR = None
_EMPTY_REASONS = {
    "EOFError": "the file ends too early (truncated or empty)",
    "UnpicklingError": "the file is not a saved model",
}


def reason(exc: BaseException, path: object = None) -> str:
    """A readable, never empty reason for a low-level exception, for an error message.

    Object reprs such as ``<_io.BytesIO object at 0x...>`` (from libraries that were handed an
    in-memory file) are replaced by ``path`` or dropped."""
    global _OBJECT_REPR
    if _OBJECT_REPR is None:
        import re

        _OBJECT_REPR = re.compile(r"(?:Error opening )?<[\w.]+ object at 0x[0-9a-fA-F]+>:?\s*")
    text = _OBJECT_REPR.sub("" if path is None else f"{path}: ", str(exc)).strip().rstrip(":").strip()
    if path is not None and text.startswith(f"{path}: "):
        text = text[len(f"{path}: ") :]
    return text or _EMPTY_REASONS.get(type(exc).__name__, type(exc).__name__)
