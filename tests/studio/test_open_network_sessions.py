"""The studio on an open network (issue 32), attacks on sign-in and sessions: a new link ends the old
sessions, sessions per person capped, failed sign-ins throttled, cookies per study, sign-out, the
proxy's forwarded headers. Each test failed on the code before its fix."""

from __future__ import annotations

import httpx

from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import client_for, sign_in
from voxjudge.studio.app import cookie_names, create_app
from voxjudge.studio.limits import Limits, Throttle
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.study import init_study, open_store

# --- 3. a new link ends the old sessions; sessions per person are capped ------------------------------


def test_reinviting_ends_the_old_sessions(serve_pairwise):
    server, store = serve_pairwise()
    boss = client_for(server, store.invite("boss", admin=True), admin=True)
    ann = client_for(server, store.invite("ann"))
    assert boss.get("/admin").status_code == 200 and boss.get("/admin-export").status_code in (200, 409)
    store.invite("boss", admin=True)  # the link leaked: a new one
    store.invite("ann")
    assert boss.get("/admin").status_code == 403 and boss.get("/admin-export").status_code == 403
    assert ann.get("/next").status_code == 403


def test_sessions_per_person_are_capped(serve_pairwise):
    server, store = serve_pairwise(limits=Limits(sessions_per_person=3))
    token = store.invite("ann")
    browsers = [client_for(server, token) for _ in range(5)]
    alive = [b.get("/next", follow_redirects=False).status_code != 403 for b in browsers]
    assert alive == [False, False, True, True, True]  # the newest three


# --- 8. sign-in throttling, cookies per study, sign-out, the proxy's headers ---------------------------


def test_failed_signins_are_throttled(serve_pairwise):
    server, store = serve_pairwise(limits=Limits(signins_per_minute=5))
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


def test_signout_with_a_bad_csrf_token_says_so_and_keeps_the_session(serve_pairwise):
    server, store = serve_pairwise()
    ann = client_for(server, store.invite("ann"))
    r = ann.post("/signout", data={"csrf": "forged"}, headers={"Origin": server.url})
    assert r.status_code == 403 and "Signed out" not in r.text
    assert ann.get("/next").status_code == 200  # still signed in
    r = httpx.post(server.url + "/signout", data={"csrf": "x"})
    assert r.status_code == 200 and "Not signed in" in r.text


def test_behind_a_proxy_only_the_last_forwarded_value_counts(serve_pairwise):
    server, store = serve_pairwise(limits=Limits(signins_per_minute=2), behind_proxy=True)
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
