"""The studio on an open network (issue 32): each attack of the review, bounded in count and time,
over real sockets on 127.0.0.1. Each test failed on the code before its fix."""

from __future__ import annotations

import csv
import json
import os
import socket
import threading
import time

import httpx
import pytest

from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import client_for, form_fields, sign_in, work
from tests.studio.mos_data import mos_files, tone, write_wav
from voxjudge.studio.app import cookie_names, create_app
from voxjudge.studio.limits import Limits, Throttle
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.stored_answers import all_answers
from voxjudge.studio.study import export_study, init_study, open_store

DIMS = ("C1", "C2", "C3", "C4", "overall")


def _raw(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it (or the timeout)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        got = b""
        try:
            while chunk := s.recv(65536):
                got += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return got


def _status(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else 0


def _study(tmp_path, live, limits=None, behind_proxy=False, per_item=2):
    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=per_item)
    store = open_store(tmp_path / "s")
    server = live(
        lambda: create_app(Store(default_url(tmp_path / "s")), limits=limits, behind_proxy=behind_proxy),
        limits=limits,
        behind_proxy=behind_proxy,
    )
    return server, store


# --- 1. request bodies are bounded before any form is parsed --------------------------------------


def test_a_huge_body_is_413_before_it_is_read(tmp_path, live):
    server, store = _study(tmp_path, live)
    port = server.port
    # a 900 MB body announced, 64 kB sent: refused at once, not read (before: parsed whole, 3.5 GB)
    head = (
        b"POST /signout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: 943718400\r\n\r\n"
    )
    t0 = time.monotonic()
    reply = _raw(port, head + b"a=" + b"x" * 65536, timeout=10)
    assert _status(reply) == 413 and b"Too large" in reply and time.monotonic() - t0 < 5
    # chunked, no length: refused once it passes the limit
    chunk = b"x" * 8192
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(12)) + b"0\r\n\r\n"
    reply = _raw(
        port,
        b"POST /signout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + body,
    )
    assert _status(reply) == 413
    # multipart (which spools files to disk) is not parsed at all
    r = httpx.post(server.url + "/signout", files={"f": ("a.bin", b"x" * 1000)})
    assert r.status_code == 415 and r.headers["x-content-type-options"] == "nosniff"
    # a small form is still a form
    ann = client_for(server, store.invite("ann"))
    csrf = form_fields(ann.get("/item/1").text)["csrf"]
    assert ann.post("/signout", data={"csrf": csrf}, headers={"Origin": server.url}).status_code == 200


def test_a_stalled_body_is_408(tmp_path, live):
    server, _ = _study(tmp_path, live, limits=Limits(idle_timeout=0.5))
    head = (
        b"POST /signout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: 1000\r\n\r\ncsrf="
    )
    t0 = time.monotonic()
    reply = _raw(server.port, head, timeout=10)
    assert _status(reply) == 408 and time.monotonic() - t0 < 5


# --- 2. slow clients cannot exhaust the server ------------------------------------------------------


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_slow_clients_are_timed_out_and_capped(tmp_path, live):
    limits = Limits(header_timeout=3.0, max_connections=40, connections_per_address=0)
    server, _ = _study(tmp_path, live, limits=limits)
    before = _open_fds()
    slow = []
    for _ in range(120):  # connections that never finish their headers (the attack: 1,100 of them)
        s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        slow.append(s)
    try:
        time.sleep(0.3)
        # the server holds at most its cap, however many connect
        assert _open_fds() - before <= 120 + limits.max_connections + 10  # (our own 120 sockets are here too)
        r = httpx.get(server.url + "/", timeout=5)  # over the cap: a 429 at once, not a hang
        assert r.status_code == 429 and "retry-after" in r.headers
        replies = []
        for s in slow:
            try:
                replies.append(s.recv(4096))
            except (TimeoutError, ConnectionResetError):
                replies.append(b"")
        statuses = [_status(x) for x in replies]
        # the ones over the cap were refused at once; the others ran out of time for their headers
        assert statuses.count(429) >= 120 - limits.max_connections
        assert statuses.count(408) <= limits.max_connections and set(statuses) <= {408, 429}
        assert statuses.count(408) >= limits.max_connections - 5
        assert httpx.get(server.url + "/", timeout=5).status_code == 200  # and the door is open again
    finally:
        for s in slow:
            s.close()


def test_connections_per_address(tmp_path, live):
    server, _ = _study(tmp_path, live, limits=Limits(connections_per_address=5, header_timeout=2.0))
    held = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(5)]
    try:
        time.sleep(0.2)
        assert httpx.get(server.url + "/", timeout=5).status_code == 429
    finally:
        for s in held:
            s.close()
    time.sleep(0.2)
    assert httpx.get(server.url + "/", timeout=5).status_code == 200


# --- 3. a new link ends the old sessions; sessions per person are capped ------------------------------


def test_reinviting_ends_the_old_sessions(tmp_path, live):
    server, store = _study(tmp_path, live)
    boss = client_for(server, store.invite("boss", admin=True), admin=True)
    ann = client_for(server, store.invite("ann"))
    assert boss.get("/admin").status_code == 200 and boss.get("/admin-export").status_code in (200, 409)
    store.invite("boss", admin=True)  # the link leaked: a new one
    store.invite("ann")
    assert boss.get("/admin").status_code == 403 and boss.get("/admin-export").status_code == 403
    assert ann.get("/next").status_code == 403


def test_sessions_per_person_are_capped(tmp_path, live):
    server, store = _study(tmp_path, live, limits=Limits(sessions_per_person=3))
    token = store.invite("ann")
    browsers = [client_for(server, token) for _ in range(5)]
    alive = [b.get("/next", follow_redirects=False).status_code != 403 for b in browsers]
    assert alive == [False, False, True, True, True]  # the newest three


# --- 4. numbers and NUL in forms ----------------------------------------------------------------------


def _hostile_forms(server, store):
    ann = client_for(server, store.invite("ann"))
    answer = {"action": "save", **{d: "tie" for d in DIMS}}
    first = {**form_fields(ann.get("/item/1").text), **answer, "go": "stay"}
    assert ann.post("/item/1", data=first).status_code == 200  # stored: the forms below are edits of it
    codes = []
    for bad in (
        {"version": "9223372036854775808"},
        {"version": "2147483648"},
        {"version": "-1"},
        {"version": "1e400"},
        {"note": "a\x00b"},
        {"submission_id": "ab\x00cd"},
        {"submission_id": "x" * 65},
    ):
        form = {**form_fields(ann.get("/item/1").text), **answer, **bad}
        codes.append(ann.post("/item/1", data=form).status_code)
    assert codes == [422] * 7, codes  # before: 500 (an integer overflow, or DataError for NUL on PostgreSQL)
    [stored] = all_answers(store)
    assert stored["version"] == 1 and stored["note"] == ""
    good = {**form_fields(ann.get("/item/1").text), **answer, "C1": "first", "note": "fine"}
    assert ann.post("/item/1", data=good).status_code == 200
    assert all_answers(store)[0]["version"] == 2


def test_unbounded_numbers_and_nul_are_422_on_sqlite(tmp_path, live):
    server, store = _study(tmp_path, live)
    _hostile_forms(server, store)


@pytest.mark.slow
def test_unbounded_numbers_and_nul_are_422_on_postgresql(tmp_path, live, pg_db):
    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=1, db=pg_db)
    store = Store(pg_db)
    server = live(lambda: create_app(Store(pg_db)))
    _hostile_forms(server, store)


# --- 5 and 6. the file served is the file checked; a FIFO blocks nothing ---------------------------------


def _breaks_with_audio(tmp_path, seconds=0.2):
    src, out = tmp_path / "src", tmp_path / "other"
    src.mkdir()
    out.mkdir()
    write_wav(src / "clip.wav", tone(seconds, 200))
    (out / "secret.wav").write_bytes(b"RIFF\0\0\0\0WAVEsecret-outside-the-root")
    items = src / "items.tsv"
    items.write_text("id\tannotation\taudio\nu1\tone two <SB>\tclip.wav\n")
    init_study(tmp_path / "s", "breaks", items, per_item=1)
    return src, out, open_store(tmp_path / "s")


def test_a_symlink_swapped_in_a_loop_never_serves_the_outside_file(tmp_path, live):
    src, out, store = _breaks_with_audio(tmp_path)
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    ann = client_for(server, store.invite("ann"))
    real = (src / "clip.wav").read_bytes()
    os.rename(src / "clip.wav", src / "real.wav")
    stop = threading.Event()

    def swap() -> None:  # clip.wav is the real file, then a symlink out of the root, over and over
        while not stop.is_set():
            for target in (src / "real.wav", out / "secret.wav"):
                tmp = src / "swap.tmp"
                try:
                    if target.parent == src:
                        os.link(target, tmp)
                    else:
                        os.symlink(target, tmp)
                    os.replace(tmp, src / "clip.wav")
                except FileExistsError:
                    os.unlink(tmp)

    t = threading.Thread(target=swap, daemon=True)
    t.start()
    served = {"real": 0, "outside": 0, "refused": 0}
    try:
        for _ in range(400):
            r = ann.get("/clip/1/0")
            if r.status_code == 404:
                served["refused"] += 1
            elif b"secret-outside" in r.content:
                served["outside"] += 1
            else:
                assert r.content[:4] == real[:4] and r.content[8 : len(real)] == real[8:]  # (padded: below)
                served["real"] += 1
    finally:
        stop.set()
        t.join(5)
    assert served["outside"] == 0, served
    assert served["real"] > 0 and served["refused"] > 0, served  # both states were met


def test_a_fifo_in_the_audio_root_blocks_nothing(tmp_path, live):
    src, _, store = _breaks_with_audio(tmp_path)
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    (src / "clip.wav").unlink()
    os.mkfifo(src / "clip.wav")  # before: opened without O_NONBLOCK, the worker thread waited for a writer
    ann = client_for(server, store.invite("ann"))
    boss = client_for(server, store.invite("boss", admin=True), admin=True)
    t0 = time.monotonic()
    assert ann.get("/clip/1/0", timeout=5).status_code == 404
    assert boss.get("/admin-audio/1", timeout=5).status_code == 404
    r = boss.get("/admin", timeout=10)
    assert r.status_code == 200 and "audio clip.wav is not a regular file" in r.text
    assert ann.get("/next", timeout=5).status_code == 200
    assert time.monotonic() - t0 < 10


def test_audio_carries_no_etag_and_serves_ranges(tmp_path, live):
    src, _, store = _breaks_with_audio(tmp_path)
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    ann = client_for(server, store.invite("ann"))
    whole = ann.get("/clip/1/0")
    assert whole.status_code == 200 and "etag" not in whole.headers and "last-modified" not in whole.headers
    part = ann.get("/clip/1/0", headers={"Range": "bytes=10-19"})
    assert part.status_code == 206 and part.content == whole.content[10:20]
    assert part.headers["content-range"] == f"bytes 10-19/{len(whole.content)}"
    assert ann.get("/clip/1/0", headers={"Range": f"bytes={len(whole.content)}-"}).status_code == 416


# --- must-listen counts the audio bytes sent ---------------------------------------------------------------


def test_must_listen_counts_bytes_sent_not_a_head(tmp_path, live):
    files = mos_files(tmp_path / "data", seconds=0.6, n_per_system=1)
    init_study(tmp_path / "s", "mos", files["items"], per_item=1)
    store = open_store(tmp_path / "s")
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    ann = client_for(server, store.invite("ann"))
    form = {**form_fields(ann.get("/item/1").text), "action": "save", "score": "3"}
    assert ann.head("/clip/1/0").status_code == 200  # the attack: a HEAD, then wait
    assert ann.get("/clip/1/0", headers={"Range": "bytes=0-99"}).status_code == 206  # or a sliver of it
    time.sleep(0.8)
    r = ann.post("/item/1", data=form)
    assert r.status_code == 422 and "play the clip to the end" in r.text
    ann.get("/clip/1/0", headers={"Range": "bytes=100-"})  # the rest: now the whole file was sent
    time.sleep(0.8)
    assert ann.post("/item/1", data=form).status_code == 200
    assert all_answers(store)[0]["answer"] == {"score": 3}


# --- 7. formulas in exports -------------------------------------------------------------------------


def test_exports_neutralise_spreadsheet_formulas(tmp_path, live):
    items = tmp_path / "items.tsv"
    evil = ['=HYPERLINK("//evil")', "@SUM(A1:A9)", "+1+cmd|' /C calc'!A0", "-2+3", "=1+1", "plain"]
    with open(items, "w", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["id", "annotation"])
        w.writerows([e, "one <SB>"] for e in evil)
    init_study(tmp_path / "s", "breaks", items, per_item=1)
    store = open_store(tmp_path / "s")
    work(store, "ann", lambda v: {"score": 4})
    s = export_study(tmp_path / "s", tmp_path / "human.tsv")
    assert s["neutralised"] == 5
    text = (tmp_path / "human.tsv").read_text()
    cells = [line.split("\t")[0] for line in text.splitlines()[1:]]
    for cell in cells:
        assert cell.strip('"')[:1] not in ("=", "@", "+", "-", "\t"), cell
    assert '\'=HYPERLINK(""//evil"")' in text and "'@SUM(A1:A9)" in text and "plain" in cells
    export_study(tmp_path / "s", tmp_path / "human.jsonl")  # JSONL (read by programs) keeps the ids verbatim
    ids = [json.loads(x)["id"] for x in (tmp_path / "human.jsonl").read_text().splitlines()]
    assert '=HYPERLINK("//evil")' in ids and "@SUM(A1:A9)" in ids
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    boss = client_for(server, store.invite("boss", admin=True), admin=True)
    assert "'@SUM(A1:A9)" in boss.get("/admin-export").text


# --- 8. sign-in throttling, cookies per study, sign-out, the proxy's headers, plural, favicon -------------


def test_failed_signins_are_throttled(tmp_path, live):
    server, store = _study(tmp_path, live, limits=Limits(signins_per_minute=5))
    token = store.invite("ann")
    codes = [httpx.get(f"{server.url}/a/guess{i}").status_code for i in range(5)]
    assert codes == [403] * 5
    r = httpx.get(f"{server.url}/a/guess5")
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0 and "Too many attempts" in r.text
    r = httpx.get(f"{server.url}/a/{token}", headers={"Sec-Fetch-Site": "none"})  # even a good link, for now
    assert r.status_code == 429


def test_throttle_window_and_memory():
    now = [0.0]
    t = Throttle(2, max_keys=3, clock=lambda: now[0])
    t.note("a")
    t.note("a")
    assert t.blocked("a") == 61 and t.blocked("b") == 0
    now[0] = 30.0
    assert t.blocked("a") == 31
    now[0] = 60.0
    assert t.blocked("a") == 0
    for k in "bcde":
        t.note(k)
    assert len(t._events) <= 3


def test_two_studies_on_one_host_keep_their_own_sign_in(tmp_path, live):
    init_study(tmp_path / "s1", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=1)
    init_study(tmp_path / "s2", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=1)
    st1, st2 = open_store(tmp_path / "s1"), open_store(tmp_path / "s2")
    one = live(lambda: create_app(Store(default_url(tmp_path / "s1"))))
    two = live(lambda: create_app(Store(default_url(tmp_path / "s2"))))
    assert cookie_names(st1.setting("secret")) != cookie_names(st2.setting("secret"))
    c1 = httpx.Client(base_url=one.url, follow_redirects=True)
    c2 = httpx.Client(base_url=two.url, follow_redirects=True)
    sign_in(c1, st1.invite("ann"))
    sign_in(c2, st2.invite("bob"))
    # one browser holds both studies' cookies (cookies are per host, not per port) and sends both to each
    browser = {**dict(c1.cookies), **dict(c2.cookies)}
    assert len(browser) == 2  # before: one name, so signing in to one study signed out of the other
    assert "ann" in httpx.get(one.url + "/next", cookies=browser, follow_redirects=True).text
    assert "bob" in httpx.get(two.url + "/next", cookies=browser, follow_redirects=True).text


def test_signout_with_a_bad_csrf_token_says_so_and_keeps_the_session(tmp_path, live):
    server, store = _study(tmp_path, live)
    ann = client_for(server, store.invite("ann"))
    r = ann.post("/signout", data={"csrf": "forged"}, headers={"Origin": server.url})
    assert r.status_code == 403 and "Signed out" not in r.text
    assert ann.get("/next").status_code == 200  # still signed in
    r = httpx.post(server.url + "/signout", data={"csrf": "x"})
    assert r.status_code == 200 and "Not signed in" in r.text


def test_behind_a_proxy_only_the_last_forwarded_value_counts(tmp_path, live):
    server, store = _study(tmp_path, live, limits=Limits(signins_per_minute=2), behind_proxy=True)
    # the client's own X-Forwarded-Host comes first; the proxy appends the name it was reached by
    assert httpx.get(server.url + "/", headers={"X-Forwarded-Host": "evil.example, 127.0.0.1"}).status_code == 200
    assert httpx.get(server.url + "/", headers={"X-Forwarded-Host": "127.0.0.1, evil.example"}).status_code == 400
    two_lines = [("X-Forwarded-Host", "127.0.0.1"), ("X-Forwarded-Host", "evil.example")]
    assert httpx.get(server.url + "/", headers=two_lines).status_code == 400
    # the proxy says http: a client-sent "https" before it does not make the cookie Secure
    token = store.invite("ann")
    r = httpx.get(f"{server.url}/a/{token}", headers={"X-Forwarded-Proto": "https, http", "Sec-Fetch-Site": "none"})
    assert "secure" not in r.headers["set-cookie"].lower()
    # failed sign-ins are counted per browser address (the proxy's X-Forwarded-For entry), whatever the
    # client puts before it
    for i in range(2):
        r = httpx.get(f"{server.url}/a/guess{i}", headers={"X-Forwarded-For": f"10.0.0.{i}, 192.0.2.7"})
        assert r.status_code == 403
    assert httpx.get(f"{server.url}/a/g", headers={"X-Forwarded-For": "192.0.2.7"}).status_code == 429
    assert httpx.get(f"{server.url}/a/g", headers={"X-Forwarded-For": "192.0.2.7, 192.0.2.8"}).status_code == 403


def test_admin_page_plural_and_favicon(tmp_path, live):
    server, store = _study(tmp_path, live, per_item=1)
    boss = client_for(server, store.invite("boss", admin=True), admin=True)
    text = boss.get("/admin").text
    assert "1 annotator per item" in text and "1 annotators" not in text
    r = httpx.get(server.url + "/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon" and r.content[:4] == b"\0\0\1\0"


# --- issue 33: the instructions follow the study; a silent MOS clip is warned about -------------------------


def test_instructions_mention_training_and_checks_only_when_the_study_has_them(tmp_path, live):
    files = mos_files(tmp_path / "data", n_per_system=1)
    init_study(tmp_path / "bare", "mos", files["items"], per_item=1)
    init_study(tmp_path / "full", "mos", files["items"], gold=files["gold"], training=files["training"], per_item=1)
    texts = {}
    for name in ("bare", "full"):
        store = open_store(tmp_path / name)
        server = live(lambda name=name: create_app(Store(default_url(tmp_path / name))))
        c = httpx.Client(base_url=server.url, follow_redirects=True)
        texts[name] = sign_in(c, store.invite("ann"), start=False).text
    assert "training" not in texts["bare"] and "known answer" not in texts["bare"]
    assert "The first clips are training" in texts["full"] and "checks with a known answer" in texts["full"]


def test_a_silent_mos_clip_is_warned_about_at_init(tmp_path, capsys):
    import numpy as np

    from voxjudge.cli.main import main

    files = mos_files(tmp_path / "data", n_per_system=1)
    audio = tmp_path / "data" / "audio"
    write_wav(audio / "silent.wav", np.zeros(8000))
    write_wav(audio / "hum.wav", 0.001 * tone(0.5, 50))  # -60 dBFS: no speech either
    with open(files["items"], "a") as f:
        f.write(json.dumps({"id": "mute", "audio": "audio/silent.wav", "system": "x"}) + "\n")
        f.write(json.dumps({"id": "hum", "audio": "audio/hum.wav", "system": "x"}) + "\n")
    assert main(["studio", "init", str(tmp_path / "s"), "--task", "mos", "--items", str(files["items"])]) == 0
    err = capsys.readouterr().err
    assert "warning: item mute: audio audio/silent.wav is silent (no sound at all)" in err
    assert "warning: item hum: audio audio/hum.wav is silent (its loudest 20 ms at -" in err
    assert err.count("warning:") == 2  # the tones are not


def test_cli_serve_passes_the_limits(tmp_path, monkeypatch):
    from voxjudge.cli.main import main
    from voxjudge.studio import server as server_mod

    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=1)
    ran = []
    monkeypatch.setattr(server_mod, "serve", lambda app, host, port, limits, **kw: ran.append((limits, kw)))
    assert main(["studio", "serve", str(tmp_path / "s"), "--max-body", "1000", "--signins-per-minute", "3"]) == 0
    limits, kw = ran[0]
    assert limits.max_body == 1000 and limits.signins_per_minute == 3 and limits.header_timeout == 10.0
    assert kw == {"behind_proxy": False}
    assert main(["studio", "serve", str(tmp_path / "s"), "--max-body", "0"]) == 2
    assert len(ran) == 1


def test_neutralise_follows_owasp():
    from voxjudge.studio.export import neutralise

    rows, n = neutralise([{"id": "\tx", "=col": "\rcmd", "score": -0.5, "ok": "a=b"}])
    assert rows == [{"id": "'\tx", "'=col": "'\rcmd", "score": -0.5, "ok": "a=b"}] and n == 3


def test_a_reused_clip_does_not_keep_its_length(tmp_path, live):
    import io
    import wave

    src = tmp_path / "src"
    src.mkdir()
    write_wav(src / "clip.wav", tone(0.3, 200))
    items = src / "items.tsv"
    items.write_text("id\tannotation\taudio\nu1\tone two <SB>\tclip.wav\nu2\tthree four <SB>\tclip.wav\n")
    init_study(tmp_path / "s", "breaks", items, per_item=1, overlap=0)
    store = open_store(tmp_path / "s")
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    ann = client_for(server, store.invite("ann"))
    first = ann.get("/clip/1/0")
    assert ann.post("/item/1", data={**form_fields(ann.get("/item/1").text), "action": "skip"}).status_code == 200
    second = ann.get("/clip/2/0")
    assert first.status_code == second.status_code == 200
    assert len(first.content) != len(second.content)  # before: the same length (and the same ETag)
    original = (src / "clip.wav").read_bytes()
    for served in (first.content, second.content):
        with wave.open(io.BytesIO(served)) as w, wave.open(str(src / "clip.wav")) as o:
            assert w.readframes(w.getnframes()) == o.readframes(o.getnframes())  # the same audio
        assert int.from_bytes(served[4:8], "little") == len(served) - 8 and served[len(original) :][:4] == b"JUNK"
    # ranges cut through the padding as through the file
    tail = ann.get("/clip/1/0", headers={"Range": f"bytes={len(original) - 4}-"})
    assert tail.status_code == 206 and tail.content == first.content[len(original) - 4 :]
    head = ann.get("/clip/1/0", headers={"Range": "bytes=2-9"})
    assert head.content == first.content[2:10]
