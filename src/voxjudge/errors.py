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
        text = self.template
        for key, api in self.options.items():
            text = text.replace("{" + key + "}", names.get(key, api))
        return text
