"""Studio under load: 50 concurrent annotators, p95 page time, beside a bare Starlette route.

    python bench/studio.py [--annotators 50] [--rounds 10] [--items 5000] [--no-postgres]

For SQLite (the default study database) and PostgreSQL (a throwaway cluster on 127.0.0.1 when
the server binaries are installed), a study of --items phrase-break items, 3 annotators per
item, is served by `voxjudge studio serve` in its own process. Each simulated annotator signs
in, then --rounds times: opens the next item (GET /next, redirected to the item page) and
submits an answer (POST, redirected to the next item). As a peer in the same run, the same
number of concurrent clients hit one bare Starlette route (a small HTML page, no database)
served by uvicorn in its own process: the ratio is what the studio's pages cost beyond the web
stack itself.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

BARE_APP = """
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route
PAGE = "<!doctype html><title>x</title>" + "<p>hello</p>" * 50
async def page(request):
    return HTMLResponse(PAGE)
app = Starlette(routes=[Route("/", page)])
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(url: str, proc: subprocess.Popen) -> None:
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def start_postgres(folder: Path) -> tuple[str, callable] | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        return None
    bindir = Path(found[-1]).parent
    data, port = folder / "pg", free_port()
    root = os.geteuid() == 0
    if root:
        os.chmod(folder, 0o777)

    def run(*cmd):
        subprocess.run(
            (["runuser", "-u", "postgres", "--"] if root else []) + list(cmd),
            check=True,
            capture_output=True,
            timeout=120,
        )

    run(str(bindir / "initdb"), "-D", str(data), "-U", "vj", "--auth=trust", "--no-sync")
    run(
        str(bindir / "pg_ctl"),
        "-D",
        str(data),
        "-l",
        str(folder / "pg.log"),
        "-w",
        "-o",
        f"-h 127.0.0.1 -p {port} -k {folder} -c max_connections=200",
        "start",
    )
    return f"postgresql+psycopg://vj@127.0.0.1:{port}/postgres", lambda: run(
        str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"
    )


async def annotate(url: str, token: str, rounds: int, page_times: list, submit_times: list) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        # as a browser opening a pasted link, then "start" on the instructions page
        r = await c.get(f"/a/{token}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=True)
        csrf = re.search(r'name="csrf" value="([^"]+)"', r.text).group(1)
        await c.post("/intro", data={"csrf": csrf}, headers={"Origin": url})
        for k in range(rounds):
            t0 = time.perf_counter()
            r = await c.get("/next", follow_redirects=True)
            page_times.append(time.perf_counter() - t0)
            found = re.search(r"/item/(\d+)$", str(r.url))
            if not found:
                raise RuntimeError(f"/next gave HTTP {r.status_code} at {r.url}: {r.text[:300]}")
            seq = found.group(1)
            csrf = re.search(r'name="csrf" value="([^"]+)"', r.text).group(1)
            sid = re.search(r'name="submission_id" value="([^"]+)"', r.text).group(1)
            t0 = time.perf_counter()
            form = {"csrf": csrf, "submission_id": sid, "version": "0", "action": "save", "score": str(1 + k % 5)}
            r = await c.post(f"/item/{seq}", data=form, headers={"Origin": url})
            submit_times.append(time.perf_counter() - t0)
            assert r.status_code == 303, r.status_code


async def bare(url: str, n: int, times: list) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        await c.get("/")  # open the connection untimed, as the annotators' sign-in does
        for _ in range(n):
            t0 = time.perf_counter()
            r = await c.get("/")
            times.append(time.perf_counter() - t0)
            assert r.status_code == 200


async def gather(coros) -> None:
    await asyncio.gather(*coros)


def run_backend(name: str, folder: Path, db: str | None, args) -> dict:
    from voxjudge.studio.study import init_study, invite

    items = folder / f"{name}.tsv"
    items.write_text(
        "id\tannotation\n" + "".join(f"u{i}\tword{i} goes <AP> home now <SB>\n" for i in range(args.items))
    )
    study = folder / name
    init_study(study, "breaks", items, per_item=3, db=db)
    tokens = [invite(study, f"a{i}", db=db)[0] for i in range(args.annotators)]
    port = free_port()
    cmd = [sys.executable, "-m", "voxjudge.cli.main", "studio", "serve", str(study), "--port", str(port)]
    log = open(folder / f"{name}.log", "wb")
    proc = subprocess.Popen(cmd + (["--db", db] if db else []), stdout=subprocess.DEVNULL, stderr=log)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_up(url, proc)
        pages: list = []
        submits: list = []
        t0 = time.perf_counter()
        try:
            asyncio.run(gather(annotate(url, t, args.rounds, pages, submits) for t in tokens))
        except Exception:
            print((folder / f"{name}.log").read_text()[-3000:])
            raise
        wall = time.perf_counter() - t0
        cpu = _process_cpu(proc.pid)  # the server's (PostgreSQL's own processes are not counted)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return {"pages": np.array(pages), "submits": np.array(submits), "wall": wall, "cpu": cpu}


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a running process has used so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_bare(folder: Path, args) -> np.ndarray:
    (folder / "bare_app.py").write_text(BARE_APP)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "bare_app:app", "--port", str(port), "--log-level", "warning"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_up(url, proc)
        times: list = []
        asyncio.run(gather(bare(url, args.rounds, times) for _ in range(args.annotators)))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return np.array(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--annotators", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--items", type=int, default=5000)
    ap.add_argument("--no-postgres", action="store_true")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="vj-studio-bench-"))
    stop_pg = None
    try:
        backends = [("sqlite", None)]
        if not args.no_postgres:
            pg = start_postgres(folder)
            if pg:
                backends.append(("postgresql", pg[0]))
                stop_pg = pg[1]
            else:
                print("PostgreSQL server binaries not found: SQLite only")
        peer = run_bare(folder, args)
        p95_bare = float(np.percentile(peer, 95))
        print(
            f"{args.annotators} concurrent annotators x {args.rounds} items, study of {args.items} items; "
            f"{os.cpu_count()} cores"
        )
        print(
            f"bare Starlette route: {len(peer)} requests, p50 {1000 * np.median(peer):.1f} ms, "
            f"p95 {1000 * p95_bare:.1f} ms"
        )
        for name, db in backends:
            r = run_backend(name, folder, db, args)
            p95_page = float(np.percentile(r["pages"], 95))
            p95_submit = float(np.percentile(r["submits"], 95))
            print(
                f"{name:10s} item page p50 {1000 * np.median(r['pages']):.1f} ms, p95 {1000 * p95_page:.1f} ms "
                f"({p95_page / p95_bare:.1f}x bare); submit p95 {1000 * p95_submit:.1f} ms "
                f"({p95_submit / p95_bare:.1f}x); {len(r['submits']) / r['wall']:.0f} answers/s "
                f"({r['wall']:.1f} s wall, server {r['cpu']:.1f} CPU s: "
                f"{1000 * r['cpu'] / max(len(r['submits']), 1):.1f} CPU ms per answer, page views included)"
            )
    finally:
        if stop_pg:
            stop_pg()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
