"""Errors from model calls, split by what the wrapper should do about them."""

from __future__ import annotations

from voxjudge.errors import InputError, VoxjudgeError


class LLMError(VoxjudgeError):
    """A model call failed."""


class TransientError(LLMError):
    """Worth retrying: rate limits, 5xx, timeouts, dropped connections."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class PermanentError(LLMError):
    """Retrying will not help (bad request, auth, unsupported input)."""

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status


class Unreachable(PermanentError):
    """The server cannot be reached at all (connection refused, name not resolved, TLS failure):
    waiting does not fix that, so the wrapper retries it only briefly and then stops the run."""

    def __init__(self, message: str, *, url: str | None = None):
        super().__init__(message)
        self.url = url


class UnusableURL(PermanentError):
    """The client cannot send a request to the URL at all (no http:// or https://, no host: e.g. a
    base URL given as ``127.0.0.1:8080/v1``, or a redirect to ``ftp://``): every call would fail
    alike, so the wrapper neither retries it nor goes on, and stops the run at once."""


class BudgetExceeded(LLMError):
    """The run reached its cost limit; calls already made are kept."""


class ConfigError(InputError):
    """A judge spec, key or option the user must fix."""
