"""Whether this process runs Ray already, asked without importing Ray (0.8 s): every command asks
(``cli.main``, to stop a Ray it started), and one that never uses Ray does not import it to know."""

from __future__ import annotations

import sys


def ray_running() -> bool:
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


def stop_ray() -> None:
    """Stop the Ray this process runs, at once. Called by a command that started it, when it ends:
    Ray's own exit handler first sleeps half a second ("to let log messages finish printing")."""
    if ray_running():
        sys.modules["ray"].shutdown()
