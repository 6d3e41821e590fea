"""Regression tests for the attacks that broke the studio: login CSRF / session swap, items that
point outside the study, the asr-sentence admin 500, late retries, mass skipping, overflowing path
integers, a world-readable database, binding and Host checks. Each fails on the code before the fix."""

from __future__ import annotations

import os
import re
import shutil
import stat
import time
import wave
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import client_for, form_fields, hindi_sentence_study, sign_in, work
from voxjudge.errors import InputError
from voxjudge.studio.app import cookie_names, create_app
from voxjudge.studio.flow import Flow
from voxjudge.studio.store import Store, default_url, sessions
from voxjudge.studio.stored_answers import all_answers
from voxjudge.studio.study import init_study, open_store

DIMS = ("C1", "C2", "C3", "C4", "overall")


def _wav(path: Path, seconds: float = 0.2) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\0\0" * int(8000 * seconds))
    return path


def _me(client) -> str:
    return re.search(r'<span class="who">.*?·\s*(\w+)', client.get("/next").text, re.S).group(1)


# --- 1. sessions ---------------------------------------------------------------------------------


def test_a_link_from_another_site_cannot_swap_the_session(pairwise_study):
    server, tokens, store = pairwise_study
    vj_a = cookie_names(store.setting("secret"))[0]
    ann = client_for(server, tokens["ann"])
    sid = ann.cookies[vj_a]
    assert tokens["ann"] not in sid  # the cookie is a session id, not the personal token
    # a page elsewhere sends the signed-in annotator to bob's link
    r = ann.get(f"/a/{tokens['bob']}", headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 200 and "Sign in as bob?" in r.text and "signed in as ann" in r.text
    assert ann.cookies[vj_a] == sid and _me(ann) == "ann"
    # and an old browser that sends no Sec-Fetch-Site gets the same confirm step
    r = ann.get(f"/a/{tokens['bob']}")
    assert "Sign in as bob?" in r.text and _me(ann) == "ann"
    confirm = re.search(r'name="confirm" value="([^"]+)"', r.text).group(1)
    # the confirm form posted by the other site (or with no Origin at all) is refused
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {}):
        r = ann.post(f"/a/{tokens['bob']}", data={"confirm": confirm}, headers=headers)
        assert r.status_code == 403, headers
    assert _me(ann) == "ann"
    # the person's own click on the confirm page switches, with a new session id
    r = ann.post(f"/a/{tokens['bob']}", data={"confirm": confirm}, headers={"Origin": server.url})
    assert r.status_code == 200 and ann.cookies[vj_a] != sid
    # the annotator's old session ended when the browser signed in again
    old = httpx.Client(base_url=server.url, cookies={vj_a: sid})
    assert old.get("/next").status_code == 403


def test_sign_in_rotates_and_sign_out_and_expiry_end_the_session(pairwise_study):
    server, tokens, store = pairwise_study
    vj_a = cookie_names(store.setting("secret"))[0]
    ann = client_for(server, tokens["ann"])
    first = ann.cookies[vj_a]
    sign_in(ann, tokens["ann"])
    assert ann.cookies[vj_a] != first
    assert httpx.get(server.url + "/next", cookies={vj_a: first}).status_code == 403
    csrf = form_fields(ann.get("/next").text)["csrf"]
    sid = ann.cookies[vj_a]
    r = ann.post("/signout", data={"csrf": csrf}, headers={"Origin": server.url})
    assert r.status_code == 200 and vj_a not in ann.cookies
    assert httpx.get(server.url + "/next", cookies={vj_a: sid}).status_code == 403
    # expiry: a session past its end is not a sign-in
    bob = client_for(server, tokens["bob"])
    assert bob.get("/next").status_code == 200
    with store.writer.begin() as c:
        c.execute(sa.update(sessions).values(expires_at=time.time() - 1))
    assert bob.get("/next").status_code == 403
    r = bob.get(f"/a/{tokens['bob']}", headers={"Sec-Fetch-Site": "none"})
    assert "max-age=43200" in r.history[0].headers["set-cookie"].lower()  # 12 h by default


def test_secure_cookie_and_origin_behind_a_tls_proxy(tmp_path, live):
    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=1)
    store = open_store(tmp_path / "s")
    token = store.invite("ann")
    vj_a = cookie_names(store.setting("secret"))[0]
    plain = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    proxied = live(lambda: create_app(Store(default_url(tmp_path / "s")), behind_proxy=True))
    tls = {"X-Forwarded-Proto": "https", "Sec-Fetch-Site": "none"}
    # without --behind-proxy a client cannot make the app believe it is on HTTPS
    r = httpx.get(f"{plain.url}/a/{token}", headers=tls)
    assert "secure" not in r.headers["set-cookie"].lower()
    r = httpx.get(f"{proxied.url}/a/{token}", headers=tls)
    assert "; secure" in r.headers["set-cookie"].lower() and "strict-transport-security" in r.headers
    # behind the proxy the browser's https Origin matches, so submits are not "Form expired"
    # (the cookie is Secure, so this plain-HTTP test client is handed it by hand, as the proxy would)
    sid = re.search(vj_a + r"=([^;]+)", r.headers["set-cookie"]).group(1)
    headers = {
        "X-Forwarded-Proto": "https",
        "Cookie": f"{vj_a}={sid}",
        "Origin": "https://" + proxied.url.split("://")[1],
    }
    c = httpx.Client(base_url=proxied.url, headers=headers)  # (httpx drops a hand-set cookie on redirects)
    csrf = re.search(r'name="csrf" value="([^"]+)"', c.get("/intro").text).group(1)
    r = c.post("/intro", data={"csrf": csrf})
    assert r.status_code == 303 and r.headers["location"] == "/next"
    assert c.get("/next").headers["location"] == "/item/1"
    good = {**form_fields(c.get("/item/1").text), "action": "save", **{d: "tie" for d in DIMS}}
    assert c.post("/item/1", data=good).status_code == 303
    assert all_answers(store)[0]["answer"]["overall"] == "tie"
    # the same https form sent to the app that was not told about the proxy is refused, with the reason logged
    c2 = client_for(plain, token)
    origin = {"Origin": "https://" + plain.url.split("://")[1]}
    r = c2.post("/item/1", data={**form_fields(c2.get("/item/1").text), "action": "save"}, headers=origin)
    assert r.status_code == 403


def test_host_header_is_checked_and_every_response_has_the_security_headers(pairwise_study, tmp_path, live):
    server, tokens, store = pairwise_study
    assert httpx.get(server.url + "/", headers={"Host": "evil.example"}).status_code == 400
    named = live(lambda: create_app(Store(default_url(tmp_path / "s")), allowed_hosts=["studio.lan"]))
    assert httpx.get(named.url + "/", headers={"Host": "studio.lan:8750"}).status_code == 200
    assert httpx.get(named.url + "/", headers={"Host": "other.lan"}).status_code == 400
    ann = client_for(server, tokens["ann"])
    boss = client_for(server, tokens["boss"], admin=True)
    anon = httpx.Client(base_url=server.url)
    checked = 0
    for client, path in [
        (anon, "/"),
        (anon, "/a/not-a-token"),
        (anon, "/next"),
        (anon, "/item/1"),
        (anon, "/clip/1/0"),
        (anon, "/static/studio.js"),
        (anon, "/static/studio.css"),
        (anon, "/no/such/page"),
        (anon, "/admin"),
        (ann, "/intro"),
        (ann, "/instructions"),
        (ann, "/next"),
        (ann, "/item/1"),
        (ann, "/item/99"),
        (ann, "/clip/1/0"),
        (ann, "/clip/1/5"),
        (boss, "/admin"),
        (boss, "/admin-audio/1"),
        (boss, "/admin-export"),
    ]:
        r = client.get(path, follow_redirects=False)
        assert r.headers["content-security-policy"].startswith("default-src 'self'"), path
        assert r.headers["x-content-type-options"] == "nosniff", path
        assert r.headers["x-frame-options"] == "DENY", path
        checked += 1
    r = anon.post("/signout")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert checked == 19


def test_serve_beyond_loopback_needs_an_explicit_flag(tmp_path, monkeypatch, capsys):
    from voxjudge.cli.main import main
    from voxjudge.studio import server

    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=1)
    ran = []
    monkeypatch.setattr(server, "serve", lambda app, host, port, limits, **kw: ran.append(kw))
    assert main(["studio", "serve", str(tmp_path / "s"), "--host", "0.0.0.0"]) == 2
    assert "--public" in capsys.readouterr().err and not ran
    assert main(["studio", "serve", str(tmp_path / "s"), "--host", "0.0.0.0", "--public"]) == 2
    assert "--allowed-host" in capsys.readouterr().err and not ran
    assert main(["studio", "serve", str(tmp_path / "s"), "--host", "0.0.0.0", "--public", "--allowed-host", "lab"]) == 0
    err = capsys.readouterr().err
    assert "warning: serving on 0.0.0.0" in err and "plain HTTP" in err
    assert ran and ran[0]["behind_proxy"] is False
    from voxjudge.studio.limits import Limits

    # uvicorn itself trusts no forwarded headers: the app reads them, and only with --behind-proxy
    assert server.config_for(None, "127.0.0.1", 1, Limits()).proxy_headers is False
    assert main(["studio", "serve", str(tmp_path / "s")]) == 0
    assert "warning" not in capsys.readouterr().err


# --- 2. audio only from under the audio root ------------------------------------------------------


def _breaks_items(folder: Path, audio: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "items.tsv"
    p.write_text(f"id\tannotation\taudio\nu1\tone two <SB>\t{audio}\n")
    return p


@pytest.mark.parametrize(
    "name,setup,problem",
    [
        ("absolute", lambda src, out: "/etc/passwd", "outside the audio root"),
        ("climb", lambda src, out: "../other/clip.wav", "outside the audio root"),
        ("symlink", lambda src, out: (os.symlink(out / "clip.wav", src / "link.wav"), "link.wav")[1], "outside"),
        (
            "html",
            lambda src, out: ((src / "page.wav").write_text("<script>alert(1)</script>"), "page.wav")[1],
            "not an audio file",
        ),
        ("svg", lambda src, out: ((src / "x.svg").write_text("<svg onload=alert(1)>"), "x.svg")[1], "not an audio"),
        ("folder", lambda src, out: ((src / "d.wav").mkdir(), "d.wav")[1], "not found"),
    ],
)
def test_items_pointing_outside_the_study_are_refused(tmp_path, name, setup, problem):
    src, out = tmp_path / "src", tmp_path / "other"
    src.mkdir()
    out.mkdir()
    _wav(out / "clip.wav")
    items = _breaks_items(src, setup(src, out))
    with pytest.raises(InputError) as e:
        init_study(tmp_path / "s", "breaks", items, per_item=1)
    assert problem in str(e.value)
    assert not (tmp_path / "s" / "studio.db").exists()


def test_audio_swapped_or_removed_after_init_is_a_404_and_an_admin_line(tmp_path, live):
    src, out = tmp_path / "src", tmp_path / "other"
    src.mkdir()
    out.mkdir()
    _wav(src / "clip.wav")
    (out / "secret.wav").write_bytes(b"RIFF\0\0\0\0WAVEsecret")
    items = _breaks_items(src, "clip.wav")
    init_study(tmp_path / "s", "breaks", items, per_item=1)
    store = open_store(tmp_path / "s")
    token, boss = store.invite("ann"), store.invite("boss", admin=True)
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    ann = client_for(server, token)
    r = ann.get("/clip/1/0")
    assert r.status_code == 200 and r.headers["content-type"] == "audio/wav" and r.content[:4] == b"RIFF"
    assert r.headers["x-content-type-options"] == "nosniff" and "content-security-policy" in r.headers
    (src / "clip.wav").unlink()
    os.symlink(out / "secret.wav", src / "clip.wav")  # swapped for a symlink out of the root
    assert ann.get("/clip/1/0").status_code == 404
    admin = client_for(server, boss, admin=True)
    assert "audio clip.wav is outside the audio root" in admin.get("/admin").text
    (src / "clip.wav").unlink()  # gone: 404, not 500
    assert ann.get("/clip/1/0").status_code == 404
    assert admin.get("/admin-audio/1").status_code == 404


def test_audio_type_comes_from_the_content_not_the_name(tmp_path, live):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(_wav(tmp_path / "a.wav"), src / "clip.html")  # a real WAV with an .html name
    init_study(tmp_path / "s", "breaks", _breaks_items(src, "clip.html"), per_item=1)
    store = open_store(tmp_path / "s")
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    r = client_for(server, store.invite("ann")).get("/clip/1/0")
    assert r.status_code == 200 and r.headers["content-type"] == "audio/wav"


# --- 3. the asr-sentence admin page ---------------------------------------------------------------


def test_asr_sentence_admin_page_loads(tmp_path, live):
    store = hindi_sentence_study(tmp_path / "s")
    work(store, "ann", lambda v: {"major": 1, "minor": 0, "no_penalty": 0})
    work(store, "bob", lambda v: {"major": 0, "minor": len(v.payload["hyp"]) % 3, "no_penalty": 0})
    boss = store.invite("boss", admin=True)
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    r = client_for(server, boss, admin=True).get("/admin")
    assert r.status_code == 200 and 'data-dim="laser"' in r.text


# --- 4. a late retry never overwrites a newer answer ----------------------------------------------


def test_a_late_retry_does_not_undo_an_edit(tmp_path, live):
    init_study(tmp_path / "s", "breaks", EXAMPLES / "breaks/hypotheses.tsv", per_item=1)
    store = open_store(tmp_path / "s")
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    ann = client_for(server, store.invite("ann"))
    first = {**form_fields(ann.get("/item/1").text), "action": "save", "score": "1", "go": "stay"}
    assert ann.post("/item/1", data=first).status_code == 200
    edit = {**form_fields(ann.get("/item/1").text), "action": "save", "score": "5", "go": "stay"}
    assert ann.post("/item/1", data=edit).status_code == 200
    r = ann.post("/item/1", data=first)  # the first form's retry arrives late
    assert r.status_code == 409 and "newer" in r.text
    [row] = all_answers(store)
    assert row["answer"] == {"score": 5} and row["version"] == 2
    assert ann.post("/item/1", data=edit).status_code == 200  # the edit's own retry: nothing changes
    assert all_answers(store)[0]["version"] == 2


# --- 5. skips go back to the pool; quotas count answers --------------------------------------------


def test_mass_skipping_leaves_the_items_to_the_others(tmp_path):
    init_study(tmp_path / "s", "breaks", EXAMPLES / "breaks/hypotheses.tsv", per_item=3, overlap=0)
    store = open_store(tmp_path / "s")
    assert work(store, "skipper", lambda v: {}, skip=lambda v: True) == 72
    for name in ("a", "b", "c"):
        assert work(store, name, lambda v: {"score": 3}) == 72
    answered = [a for a in all_answers(store) if a["status"] == "answered"]
    from collections import Counter

    assert set(Counter(a["item_id"] for a in answered).values()) == {3}  # every item got its three answers
    # the skipper changes their mind about one item: answering it later is stored (an extra answer)
    flow = Flow(store)
    who = store.who(store.invite("skipper"))
    v = flow.view(who.pk, 1)
    assert (
        flow.submit(
            who.pk, 1, submission_id="z", skip=False, fields={"score": "2"}, flag=False, note="", base_version=v.version
        )
        == "saved"
    )


def test_a_skip_gives_the_claim_back_at_once(tmp_path):
    init_study(tmp_path / "s", "breaks", EXAMPLES / "breaks/hypotheses.tsv", per_item=1, overlap=0)
    store = open_store(tmp_path / "s")
    flow = Flow(store)
    a, b = store.who(store.invite("a")), store.who(store.invite("b"))
    seq = flow.next_seq(a.pk)
    skipped = flow.view(a.pk, seq).item_id
    flow.submit(a.pk, seq, submission_id="s1", skip=True, fields={}, flag=False, note="")
    got = []
    while (s := flow.next_seq(b.pk)) is not None:
        got.append(flow.view(b.pk, s).item_id)
        flow.submit(b.pk, s, submission_id=f"b{s}", skip=False, fields={"score": "4"}, flag=False, note="")
    assert skipped in got and len(got) == 72


# --- 6. out-of-range path integers are 404 ---------------------------------------------------------


def _overflow(server, token):
    ann = client_for(server, token)
    for path in (
        "/item/9223372036854775808",
        "/item/2147483648",
        "/item/99999999999999999999999",
        "/clip/9223372036854775808/0",
        "/clip/1/2147483648",
        "/item/-1",
    ):
        assert ann.get(path).status_code == 404, path
        assert ann.post(path, data={}).status_code in (404, 405), path


def test_overflowing_ids_are_404_on_sqlite(pairwise_study):
    server, tokens, _ = pairwise_study
    _overflow(server, tokens["ann"])


@pytest.mark.slow
def test_overflowing_ids_are_404_on_postgresql(tmp_path, live, pg_db):
    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=1, db=pg_db)
    store = Store(pg_db)
    token = store.invite("ann")
    server = live(lambda: create_app(Store(pg_db)))
    _overflow(server, token)
    assert client_for(server, token).get("/item/999999999").status_code == 404  # in range, not there


# --- 7. the database is private --------------------------------------------------------------------


def test_database_files_are_created_0600(tmp_path):
    old = os.umask(0o022)
    try:
        init_study(tmp_path / "s", "breaks", EXAMPLES / "breaks/hypotheses.tsv", per_item=1)
        store = open_store(tmp_path / "s")
        work(store, "ann", lambda v: {"score": 3})
        files = [p for p in (tmp_path / "s").iterdir() if p.name.startswith("studio.db")]
        assert any(p.name == "studio.db-wal" for p in files)
        for p in files:
            assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    finally:
        os.umask(old)
