"""Studio under load and under attack: many annotators at once, beside a bare Starlette route.

    python bench/studio.py [--annotators 200] [--duration 300] [--items 20000] [--no-postgres]
                           [--slow-clients 1000] [--big-bodies 4] [--no-attacks]

For SQLite (the default study database) and PostgreSQL (a throwaway cluster on 127.0.0.1 when the
server binaries are installed), a study of --items phrase-break items, 3 annotators per item, is
served by `voxjudge studio serve` in its own process with its default limits (except
--connections-per-address, raised to 250 so that the 200 annotators, who all come from
127.0.0.1 here, fit). For --duration seconds each simulated annotator opens the next item (GET
/next, redirected to the item page: the "item page" time) and submits an answer (POST: the
"submit" time), over and over. Beside them, from another loopback address (127.0.0.2):

- slow clients: --slow-clients connections that send their request headers a byte every few
  seconds and never finish them, reopened as soon as the server drops them;
- big bodies: --big-bodies clients that announce a 900 MB POST /signout and stream it.

The peer, in the same run: the same number of concurrent clients, for the same duration, on one
bare Starlette route (a small HTML page, no database) served by uvicorn in its own process; the
figures are the studio's p50/p95 as a ratio to the bare route's. At the end every answer the
clients saw accepted (303) is looked up in the database: none may be lost or stored twice.
CPU seconds of the server process are shown beside wall seconds (the machine is shared).
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from studio_load import Tally, load, proc_stats  # noqa: E402

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
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
        try:
            httpx.get(url, timeout=5)
            return
        except httpx.TransportError:
            time.sleep(0.2)
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
        "-t",
        "120",
        "-o",
        f"-h 127.0.0.1 -p {port} -k {folder} -c max_connections=200",
        "start",
    )
    return f"postgresql+psycopg://vj@127.0.0.1:{port}/postgres", lambda: run(
        str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"
    )


def check_answers(db: str, tally: Tally) -> tuple[int, int, int]:
    """(stored, lost, duplicated): every accepted submit must be one stored answer."""
    import sqlalchemy as sa

    from voxjudge.studio.store import annotators, answers, assignments

    eng = sa.create_engine(db)
    with eng.connect() as c:
        rows = c.execute(
            sa.select(annotators.c.name, assignments.c.seq, assignments.c.item_pk, answers.c.submission_id).select_from(
                answers.join(assignments, assignments.c.pk == answers.c.assignment_pk).join(
                    annotators, annotators.c.pk == assignments.c.annotator_pk
                )
            )
        ).all()
    eng.dispose()
    stored = {(r.name, r.seq) for r in rows}
    lost = sum(1 for name, seqs in tally.accepted.items() for s in seqs if (name, s) not in stored)
    dup_items = len(rows) - len({(r.name, r.item_pk) for r in rows})
    dup_ids = len(rows) - len({r.submission_id for r in rows})
    return len(rows), lost, dup_items + dup_ids


def run_backend(name: str, folder: Path, db: str | None, args) -> dict:
    from voxjudge.studio.store import default_url
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
    cmd += ["--connections-per-address", "250"] + (["--db", db] if db else [])
    log = open(folder / f"{name}.log", "wb")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_up(url, proc)
        cpu0 = proc_stats(proc.pid)[0]
        names = [(f"a{i}", t) for i, t in enumerate(tokens)]
        tally, watch = load("annotators", url, port, names, args, proc.pid)
        wall = watch["wall"]
        cpu, peak_mb, _ = proc_stats(proc.pid)  # (CPU includes the untimed sign-ins)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    stored, lost, dup = check_answers(db or default_url(study), tally)
    log_text = (folder / f"{name}.log").read_text(errors="replace")
    return {
        "tally": tally,
        "wall": wall,
        "cpu": cpu - cpu0,
        "peak_mb": peak_mb,
        "watch": watch,
        "stored": stored,
        "lost": lost,
        "dup": dup,
        "tracebacks": log_text.count("Traceback"),
        "emfile": log_text.count("Too many open files"),
    }


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
        tally, _ = load("bare", url, port, [(f"b{i}", "") for i in range(args.annotators)], args, None)
        times = tally.pages
        if not times:
            raise RuntimeError("the bare route answered nothing in time: give a longer --duration")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return np.array(times)


def ms(x: float) -> str:
    return f"{1000 * x:.0f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--annotators", type=int, default=200)
    ap.add_argument("--duration", type=float, default=300.0, help="seconds of load per backend (default: 300)")
    ap.add_argument("--items", type=int, default=20000)
    ap.add_argument("--slow-clients", type=int, default=1000)
    ap.add_argument("--big-bodies", type=int, default=4)
    ap.add_argument("--no-attacks", action="store_true")
    ap.add_argument("--client-procs", type=int, default=4, help="processes the clients run in (default: 4)")
    ap.add_argument("--no-postgres", action="store_true")
    args = ap.parse_args()
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # the clients hold many sockets themselves
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))
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
        b50, b95 = float(np.median(peer)), float(np.percentile(peer, 95))
        attacks = (
            "no attacks"
            if args.no_attacks
            else f"beside {args.slow_clients} slow clients and {args.big_bodies} 900 MB bodies"
        )
        print(
            f"{args.annotators} annotators for {args.duration:g} s each backend, {attacks}; study of {args.items} "
            f"items; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
        )
        print(f"bare Starlette route: {len(peer)} requests, p50 {ms(b50)}, p95 {ms(b95)}")
        for name, db in backends:
            r = run_backend(name, folder, db, args)
            t = r["tally"]
            pages, submits = np.array(t.pages), np.array(t.submits)
            if not len(pages) or not len(submits):
                print(f"{name}: no page or submit completed; errors {t.errors}")
                continue
            p50, p95 = float(np.median(pages)), float(np.percentile(pages, 95))
            s50, s95 = float(np.median(submits)), float(np.percentile(submits, 95))
            print(
                f"{name:10s} item page p50 {ms(p50)} ({p50 / b50:.1f}x bare), p95 {ms(p95)} ({p95 / b95:.1f}x); "
                f"submit p50 {ms(s50)} ({s50 / b50:.1f}x), p95 {ms(s95)} ({s95 / b95:.1f}x)"
            )
            print(
                f"           {len(submits)} answers accepted in {r['wall']:.0f} s wall "
                f"({len(submits) / r['wall']:.1f}/s), "
                f"server CPU {r['cpu']:.0f} s; stored {r['stored']}, lost {r['lost']}, duplicated {r['dup']}; "
                f"{t.retries} requests sent again after a broken connection; client errors {t.errors or 'none'}"
            )
            if not args.no_attacks:
                print(
                    f"           slow clients: {r['watch']['slow']}; big bodies: {r['watch']['big']}; server peak "
                    f"{r['peak_mb']} MB resident, at most {r['watch']['max fds']} descriptors; "
                    f"{r['tracebacks']} tracebacks, {r['emfile']} 'Too many open files' in its log"
                )
    finally:
        if stop_pg:
            stop_pg()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
