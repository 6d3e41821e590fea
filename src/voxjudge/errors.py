"""Exceptions that carry a message meant for the user."""

from __future__ import annotations


class VoxjudgeError(Exception):
    """Base class for errors voxjudge raises on purpose."""


class InputError(VoxjudgeError, ValueError):
    """Bad user input: the message says what, where (file, line or id) and how to fix it.

    The CLI prints it as one line and exits with status 2.
    """
