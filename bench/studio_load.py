"""The studio bench's load: simulated annotators (sign in, open the next item, submit, again), the
bare route's clients, and the processes they run in, timed into a ``Tally``; the server process's
CPU, memory and descriptors from /proc."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from studio_attacks import big_body, slow_client  # noqa: E402


def hidden(html: str, name: str) -> str:
    """The value of a form's hidden field."""
    return re.search(rf'name="{name}" value="([^"]+)"', html).group(1)


class Tally:
    def __init__(self) -> None:
        self.pages: list[float] = []
        self.submits: list[float] = []
        self.accepted: dict[str, set[int]] = {}  # annotator -> seqs whose submit was answered 303
        self.errors: dict[str, int] = {}
        self.retries = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    def merge(self, other: Tally) -> None:
        self.pages += other.pages
        self.submits += other.submits
        self.accepted.update(other.accepted)
        for k, v in other.errors.items():
            self.errors[k] = self.errors.get(k, 0) + v
        self.retries += other.retries


async def sign_in(url: str, token: str) -> httpx.AsyncClient:
    """A browser opening a pasted link, then "start" on the instructions page (untimed)."""
    c = httpx.AsyncClient(base_url=url, timeout=120)
    for attempt in range(5):
        try:
            r = await c.get(f"/a/{token}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=True)
            csrf = hidden(r.text, "csrf")
            await c.post("/intro", data={"csrf": csrf}, headers={"Origin": url})
            return c
        except (httpx.TransportError, AttributeError):
            await asyncio.sleep(1 + attempt)
    raise RuntimeError("could not sign in")


async def retried(tally: Tally, call):
    """A request as a browser makes it: sent again when the connection broke before an answer (a
    browser retries an idempotent GET by itself; a person presses submit again, with the same
    submission id, which the studio stores once)."""
    for attempt in range(4):
        try:
            return await call()
        except httpx.TransportError as e:
            if attempt == 3:
                raise
            tally.retries += 1
            last = e
    raise last  # pragma: no cover


async def annotate(c: httpx.AsyncClient, url: str, name: str, deadline: float, tally: Tally) -> None:
    mine = tally.accepted.setdefault(name, set())
    k = 0
    while time.monotonic() < deadline:
        k += 1
        t0 = time.perf_counter()
        try:
            r = await retried(tally, lambda: c.get("/next", follow_redirects=True))
        except httpx.HTTPError as e:
            tally.error(f"page {type(e).__name__}")
            continue
        found = re.search(r"/item/(\d+)$", str(r.url))
        if r.status_code == 200 and r.url.path == "/next":  # nothing left for this annotator
            return
        if r.status_code != 200 or not found:
            tally.error(f"page HTTP {r.status_code}")
            await asyncio.sleep(1)
            continue
        tally.pages.append(time.perf_counter() - t0)
        seq = int(found.group(1))
        form = {
            "csrf": hidden(r.text, "csrf"),
            "submission_id": hidden(r.text, "submission_id"),
            "version": "0",
            "action": "save",
            "score": str(1 + k % 5),
        }
        t0 = time.perf_counter()
        try:
            r = await retried(tally, lambda s=seq, f=form: c.post(f"/item/{s}", data=f, headers={"Origin": url}))
        except httpx.HTTPError as e:
            tally.error(f"submit {type(e).__name__}")
            continue
        if r.status_code == 303:
            tally.submits.append(time.perf_counter() - t0)
            mine.add(seq)
        else:
            tally.error(f"submit HTTP {r.status_code}")


async def bare_client(url: str, deadline: float, tally: Tally) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=120) as c:
        while time.monotonic() < deadline:
            t0 = time.perf_counter()
            try:
                r = await retried(tally, lambda: c.get("/"))
            except httpx.HTTPError as e:
                tally.error(f"bare {type(e).__name__}")
                continue
            if r.status_code == 200:
                tally.pages.append(time.perf_counter() - t0)
            else:
                tally.error(f"bare HTTP {r.status_code}")


def proc_stats(pid: int) -> tuple[float, int, int]:
    """(CPU seconds, peak resident MB, open descriptors) of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    peak = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1]) // 1024
    return cpu, peak, len(os.listdir(f"/proc/{pid}/fd"))


def worker(kind: str, url: str, port: int, tokens: list[tuple[str, str]], args, barrier, out) -> None:
    """One client process: annotators (signed in first), the bare route's clients, or the attacks;
    all processes start their clocks together at the barrier."""

    async def go():
        tally, seen = Tally(), {"slow": {}, "big": {}}
        clients = await asyncio.gather(*(sign_in(url, t) for _, t in tokens)) if kind == "annotators" else []
        barrier.wait()
        deadline = time.monotonic() + args.duration
        if kind == "annotators":
            await asyncio.gather(*(annotate(c, url, n, deadline, tally) for c, (n, _) in zip(clients, tokens)))
        elif kind == "bare":
            await asyncio.gather(*(bare_client(url, deadline, tally) for _ in range(len(tokens))))
        else:
            jobs = [slow_client(port, deadline, seen["slow"]) for _ in range(args.slow_clients)]
            jobs += [big_body(port, deadline, seen["big"]) for _ in range(args.big_bodies)]
            await asyncio.gather(*jobs)
        await asyncio.gather(*(c.aclose() for c in clients))
        return tally, seen

    tally, seen = asyncio.run(go())
    out.put((kind, tally, seen))


def load(kind: str, url: str, port: int, tokens: list[tuple[str, str]], args, pid: int | None) -> tuple[Tally, dict]:
    """Run the clients in --client-procs processes (one Python process cannot drive hundreds of
    clients without becoming the bottleneck), beside one attack process; sample the server's
    descriptors while they run."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    n = max(1, min(args.client_procs, len(tokens)))
    slices = [tokens[i::n] for i in range(n)]
    attacks = kind == "annotators" and not args.no_attacks
    barrier = ctx.Barrier(n + attacks + 1)
    out = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(kind, url, port, sl, args, barrier, out)) for sl in slices]
    if attacks:
        procs.append(ctx.Process(target=worker, args=("attacks", url, port, [], args, barrier, out)))
    for p in procs:
        p.start()
    barrier.wait(timeout=1800)
    t0 = time.perf_counter()
    deadline = time.monotonic() + args.duration
    watch = {"max fds": 0, "slow": {}, "big": {}}
    while pid is not None and time.monotonic() < deadline:
        watch["max fds"] = max(watch["max fds"], proc_stats(pid)[2])
        time.sleep(1)
    tally = Tally()
    for _ in procs:
        got_kind, t, seen = out.get(timeout=args.duration + 1800)
        tally.merge(t)
        if got_kind == "attacks":
            watch["slow"], watch["big"] = seen["slow"], seen["big"]
    for p in procs:
        p.join(timeout=60)
    watch["wall"] = time.perf_counter() - t0
    return tally, watch
