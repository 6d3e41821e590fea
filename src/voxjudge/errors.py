"""Exceptions that carry a message meant for the user."""

from __future__ import annotations

from collections.abc import Mapping


class VoxjudgeError(Exception):
    """Base class for errors voxjudge raises on purpose."""


class InputError(VoxjudgeError, ValueError):
    """Bad user input: the message says what, where (file, line or id) and how to fix it.

    The CLI prints it as one line and exits with status 2.

    The library does not speak in command-line flags: a message that names a setting writes it as
    ``{name}`` and gives its API wording in ``options`` (``{"allow_partial": "allow_partial=True"}``).
    ``str()`` reads in API terms; the CLI words the same message with its flags (``worded``).
    """

    def __init__(self, message: str, *, options: Mapping[str, str] | None = None):
        self.template = message
        self.options = dict(options or {})
        super().__init__(self.worded({}))

    def worded(self, names: Mapping[str, str]) -> str:
        """The message with each setting named by ``names`` (e.g. the CLI's flags), else by its API
        wording."""
        return fill_settings(self.template, self.options, names)


def fill_settings(template: str, options: Mapping[str, str], names: Mapping[str, str]) -> str:
    """``template`` with each ``{setting}`` of ``options`` named by ``names``, else by its API
    wording (``options``); other braces stay as they are."""
    text = template
    for key, api in options.items():
        text = text.replace("{" + key + "}", names.get(key, api))
    return text


SHOWN_IDS = 5  # ids a message lists before "and N more"
_ID_CHARS = 40  # an id longer than this is cut in a message (a 2 MB "id" made a 4 MB line)


def shown_id(value: object) -> str:
    """An id as a message shows it: quoted (an invisible character or a BOM shows as its escape),
    and cut when long."""
    text = str(value)
    if len(text) <= _ID_CHARS:
        return repr(text)
    return f"{text[:_ID_CHARS]!r}... ({len(text):,} characters)"


def shown_value(value: object) -> str:
    """A value as a message shows it: its repr, cut when long."""
    text = repr(value)
    return text if len(text) <= _ID_CHARS else text[:_ID_CHARS] + "..."


def few_ids(ids: list) -> str:
    """The first ids of a list (``shown_id``), with how many more."""
    shown = ", ".join(map(shown_id, ids[:SHOWN_IDS]))
    return shown + (f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")


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
