"""Starting or joining Ray for every engine (judges, embedders, the offline LASER judge, the
acoustic pairwise judge), quietly: the library never prints, so Ray's own chatter is kept down
and what it insists on printing goes to stderr. Also ``voxjudge_cause``: the judge's own error
out of Ray's wrappers.

Call ``ensure_ray`` on the thread that goes on using Ray (the main thread of a command): a Ray
started from a helper thread answers that thread, and a later call from the main thread waits
for the cluster until Ray gives up ("Failed to connect to GCS within 60 seconds").
"""

from __future__ import annotations

import functools
import logging
from typing import Any

import ray

from voxjudge.errors import VoxjudgeError
from voxjudge.llm.errors import ConfigError

try:  # Ray's own address resolution (documented behaviour; the functions are not public, hence the guard)
    from ray._private.services import canonicalize_bootstrap_address, parse_address
except ImportError:  # another Ray: no running Ray is looked for, and ray.init checks addresses itself
    canonicalize_bootstrap_address = parse_address = None

CONNECT_TIMEOUT = 5.0  # seconds to wait for a cluster's address to answer


def ensure_ray(address: str | None, num_cpus: int = 2) -> None:
    """Connect to ``address`` (e.g. "auto"); without one, to the Ray that Ray itself would join
    (``RAY_ADDRESS``, else the latest started by ``ray start`` on this machine), else start a Ray
    inside this process with ``num_cpus``."""
    if ray.is_initialized():
        return
    quiet: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    where = address or "a new local Ray"
    try:
        if address:
            _reachable(address)
            ray.init(address=address, **quiet)
        elif (running := _running_ray()) is not None:  # joined as Ray's own default does (no CPU count then)
            where = f"{running}, the running Ray that RAY_ADDRESS or `ray start` names"
            _reachable(running)
            ray.init(**quiet)
        else:
            # Ray runs its workers at nice 15 so they cannot starve its own daemons; the workers
            # of a judged run mostly wait on the network, and at nice 15 on a busy machine they
            # lose the CPU to every other process (measured: the Ray run took 1.8x the local one).
            ray.init(num_cpus=num_cpus, _system_config={"worker_niceness": 0}, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as e:
        why = str(e)
        if why.startswith("Could not find any running Ray instance"):  # Ray's advice names its own CLI's flag
            why = (
                "no running Ray found on this machine (start a head node with Ray's `ray start`, or give {ray_address})"
            )
        raise ConfigError(
            f"cannot start or join Ray (address {where}): {why}", options={"ray_address": "its address"}
        ) from None
    except BaseException:  # Ctrl-C or SIGTERM while Ray starts: what it has started stops now
        ray.shutdown()  # (its agents would otherwise run on for a minute or two, orphaned)
        raise
    quiet_ray_logs()
    _raylet_messages_to_stderr()


def quiet_ray_data() -> None:
    """Ray Data's progress bars and start-up lines off. Called where a dataset is built, not in
    ``ensure_ray``: importing Ray Data costs the driver ~1 s (a tenth of a 200k-utterance LASER run
    on Ray, which never uses it)."""
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the library never prints; the CLI shows its own bar
    if hasattr(context, "print_on_execution_start"):
        context.print_on_execution_start = False
    quiet_ray_logs()  # Ray Data sets its loggers up on first use


def _running_ray() -> str | None:
    """The address ``ray.init()`` would join without one, or None where it would start a Ray."""
    return None if canonicalize_bootstrap_address is None else canonicalize_bootstrap_address(None)


def _reachable(address: str) -> None:
    """A ConnectionError at once when nothing answers at the cluster's address: Ray itself retries
    an unreachable cluster for minutes (measured: still waiting after 200 s). Addresses it resolves
    itself ("auto") are resolved first; one it cannot parse is left to ``ray.init`` to refuse."""
    import socket

    if parse_address is None:
        return
    plain = address.removeprefix("ray://")
    resolved = canonicalize_bootstrap_address(plain) if plain == "auto" else plain
    parsed = parse_address(resolved) if resolved else None
    if parsed is None:
        return
    host, port = parsed
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except (OSError, ValueError) as e:
        raise ConnectionError(f"nothing answers at {host}:{port} ({e})") from None


def quiet_ray_logs() -> None:
    for name in ("ray", "ray.data"):  # the library never prints; Ray's own chatter stays quiet
        logging.getLogger(name).setLevel(logging.ERROR)


def _raylet_messages_to_stderr() -> None:
    """Ray's driver prints the raylet's warnings ("8 PYTHON worker processes have been started")
    to stdout from a background thread, whatever ``log_to_driver`` says; on stdout they corrupt
    ``--json`` output, so they go to stderr like every other diagnostic."""
    from ray._private import worker

    printer = worker.print_to_stdstream
    if getattr(printer, "_voxjudge_to_stderr", False):
        return

    @functools.wraps(printer)
    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        printer({**data, "is_err": True}, ignore_prefix=ignore_prefix)

    to_stderr._voxjudge_to_stderr = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = to_stderr


def voxjudge_cause(error: BaseException) -> BaseException:
    """The judge's own error (bad key, bad spec, a model that failed for good, a URL no request
    can go to) out of Ray's wrappers, so the CLI says it in one line: the innermost voxjudge
    error of the chain. Ray's wrapper of an error is an instance of its class too, but says it
    with a traceback; a ``ConfigError`` (an ``InputError``, not an ``LLMError``) raised in a
    worker used to come out as the wrapper, a traceback and exit status 1."""
    found, seen = None, error
    for _ in range(10):
        if isinstance(seen, VoxjudgeError):
            found = seen
        nxt = getattr(seen, "cause", None) or seen.__cause__
        if nxt is None or nxt is seen:
            break
        seen = nxt
    return found or error
