"""Studio fixtures: studies on the shipped examples, a live server on 127.0.0.1, a throwaway PostgreSQL."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("starlette")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """uvicorn serving the studio app in a thread; stop() and start() again to simulate a restart."""

    def __init__(self, make_app, port: int | None = None, limits=None, behind_proxy: bool = False):
        self.make_app = make_app
        self.limits = limits
        self.behind_proxy = behind_proxy
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = None
        self.thread = None

    def start(self) -> LiveServer:
        import uvicorn

        from voxjudge.studio.limits import Limits
        from voxjudge.studio.server import config_for

        # as `studio serve` runs it: its protocol and limits; uvicorn itself trusts no X-Forwarded-* headers
        config = config_for(
            self.make_app(),
            "127.0.0.1",
            self.port,
            self.limits or Limits(),
            behind_proxy=self.behind_proxy,
            log_level="error",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 20
        while not self.server.started:
            if time.time() > deadline or not self.thread.is_alive():
                raise RuntimeError("studio server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(timeout=20)
            self.server = None


@pytest.fixture
def live():
    servers = []

    def start(make_app, limits=None, behind_proxy: bool = False):
        s = LiveServer(make_app, limits=limits, behind_proxy=behind_proxy).start()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


@pytest.fixture
def serve_pairwise(tmp_path, live):
    """Serve the example pairwise study live: ``serve_pairwise(limits=None, behind_proxy=False,
    per_item=2)`` -> (server, store), the server run with those limits as `studio serve` runs it."""
    from voxjudge.studio.app import create_app
    from voxjudge.studio.store import Store, default_url
    from voxjudge.studio.study import init_study, open_store

    def serve(limits=None, behind_proxy: bool = False, per_item: int = 2):
        init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=per_item)
        store = open_store(tmp_path / "s")
        server = live(
            lambda: create_app(Store(default_url(tmp_path / "s")), limits=limits, behind_proxy=behind_proxy),
            limits=limits,
            behind_proxy=behind_proxy,
        )
        return server, store

    return serve


@pytest.fixture
def pairwise_study(serve_pairwise):
    """The example pairwise study served live, 2 raters per item: (server, tokens of ann, bob and the
    admin boss, store)."""
    server, store = serve_pairwise()
    tokens = {n: store.invite(n) for n in ("ann", "bob")}
    tokens["boss"] = store.invite("boss", admin=True)
    return server, tokens, store


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


@pytest.fixture(scope="session")
def postgres_url():
    """A throwaway PostgreSQL cluster on 127.0.0.1 (initdb + pg_ctl), removed at the end."""
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries not found (apt-get install postgresql)")
    pytest.importorskip("psycopg")
    import tempfile

    # not under pytest's tmp folder: that is private to root, and the server runs as another user
    base = Path(tempfile.mkdtemp(prefix="voxjudge-pg-"))
    data = base / "data"
    port = free_port()
    as_root = os.geteuid() == 0
    if as_root:
        if shutil.which("runuser") is None:
            pytest.skip("running as root and runuser is missing: cannot start PostgreSQL as another user")
        os.chmod(base, 0o777)

    def run(*cmd: str) -> None:
        full = ["runuser", "-u", "postgres", "--", *cmd] if as_root else list(cmd)
        subprocess.run(full, check=True, capture_output=True, timeout=120)

    run(str(bindir / "initdb"), "-D", str(data), "-U", "vj", "--auth=trust", "-E", "UTF8", "--no-sync")
    log = base / "pg.log"
    run(
        str(bindir / "pg_ctl"),
        "-D",
        str(data),
        "-l",
        str(log),
        "-w",
        "-t",
        "60",
        "-o",
        f"-h 127.0.0.1 -p {port} -k {base} -c fsync=off -c max_connections=200",
        "start",
    )
    url = f"postgresql+psycopg://vj@127.0.0.1:{port}/postgres"
    try:
        yield url
    finally:
        run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_db(postgres_url):
    """A fresh database in the throwaway cluster for one test."""
    import sqlalchemy as sa

    name = f"t{time.time_ns()}"
    eng = sa.create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with eng.connect() as c:
        c.exec_driver_sql(f"CREATE DATABASE {name}")
    eng.dispose()
    yield postgres_url.rsplit("/", 1)[0] + f"/{name}"
