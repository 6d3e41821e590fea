"""A MOS listening test in Debian's chromium (Playwright): two annotators in separate browsers go
through the instructions, training with feedback, a gold clip and the ratings (the rating opens only
after the clip played to its end; one page is reloaded halfway); the admin sees the careless rater
dropped with the reason, MOS per system, and downloads the export with the button. Every response
the browsers received carries the security headers."""

from __future__ import annotations

import time

import pytest

from tests.browser import CHROMIUM, FLAGS, sync_playwright_or_skip
from tests.studio.mos_data import mos_files
from voxjudge.studio.app import create_app
from voxjudge.studio.flow import Flow
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.study import export_study, init_study, open_store

pytestmark = pytest.mark.slow


@pytest.fixture
def chromium():
    sync_api = sync_playwright_or_skip()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=[*FLAGS, "--autoplay-policy=no-user-gesture-required"]
        )
        try:
            yield browser
        finally:
            browser.close()


def _poll(page, script: str, what: str, timeout: float = 20) -> None:
    # polled from here: the page's CSP forbids the eval that wait_for_function uses
    deadline = time.time() + timeout
    while not page.evaluate(script):
        assert time.time() < deadline, what
        page.wait_for_timeout(100)


def _listen(page) -> None:
    assert page.is_disabled('input[name="score"][value="3"]')  # closed until the clip has been heard
    page.keyboard.press("Shift+Digit1")
    _poll(page, "document.getElementById('clip1').ended", "the clip did not play to its end")
    assert page.is_enabled('input[name="score"][value="3"]')


def _session(page, base: str, token: str, score_for, store, who_name: str, reload_at: int | None = None) -> list:
    """One annotator's whole session; returns the item ids rated in order."""
    page.goto(f"{base}/a/{token}")
    page.wait_for_url("**/intro")
    assert "Excellent" in page.inner_text("#guide") and "headphones" in page.inner_text("#guide")
    page.click("#start")
    page.wait_for_url("**/item/1")
    flow = Flow(store)
    rated = []
    while "/item/" in page.url:
        seq = int(page.url.split("/item/")[1].split("?")[0])
        pk = _pk(store, who_name)
        item_id = flow.view(pk, seq).item_id
        _listen(page)
        if reload_at == seq:  # the browser reloads: the server still knows the clip was heard, the page asks again
            page.reload()
            _listen(page)
        page.keyboard.press(str(score_for(item_id)))
        with page.expect_navigation():
            page.keyboard.press("Enter")
        if "feedback=1" in page.url:
            assert "The study expects" in page.inner_text("#feedback")
            with page.expect_navigation():
                page.click("#continue")
        rated.append(item_id)
        if len(rated) > 20:
            raise AssertionError("the session does not end")
    assert "All done" in page.inner_text("h1")
    return rated


def _pk(store, name: str) -> int:
    import sqlalchemy as sa

    from voxjudge.studio.store import annotators

    with store.engine.connect() as c:
        return c.execute(sa.select(annotators.c.pk).where(annotators.c.name == name)).scalar()


def test_mos_listening_test_in_chromium(tmp_path, live, chromium):
    files = mos_files(tmp_path / "data", seconds=0.6, n_per_system=2)
    init_study(tmp_path / "s", "mos", files["items"], gold=files["gold"], training=files["training"], per_item=2)
    store = open_store(tmp_path / "s")
    ann, cat, boss = store.invite("ann"), store.invite("cat"), store.invite("boss", admin=True)
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    seen: list = []

    def context():
        ctx = chromium.new_context(viewport={"width": 1000, "height": 900}, accept_downloads=True)
        ctx.on("response", lambda r: seen.append((r.url, r.status, r.all_headers())))
        return ctx

    careful = {"clean": 5, "noisy": 2, "gold": 1, "train": 4}
    a_page = context().new_page()
    rated_a = _session(a_page, server.url, ann, lambda i: careful[i.split("-")[0]], store, "ann", reload_at=4)
    c_page = context().new_page()
    rated_c = _session(c_page, server.url, cat, lambda i: 5, store, "cat")
    assert rated_a[:3] == ["train-clean", "train-noisy", "gold-burst"] == rated_c[:3]
    assert sorted(rated_a[3:]) == sorted(rated_c[3:]) == ["clean-0", "clean-1", "noisy-0", "noisy-1"]

    admin = context().new_page()
    admin.goto(f"{server.url}/admin/{boss}")
    admin.wait_for_url("**/admin")
    row = admin.inner_text('#annotators tr[data-name="cat"]')
    assert "dropped" in row and "gold-burst: answered 5, expected 1 or 2" in row
    assert "kept" in admin.inner_text('#annotators tr[data-name="ann"]')
    assert "5.00" in admin.inner_text('#mos tr[data-system="clean"]')  # ann only: cat was dropped
    assert "2.00" in admin.inner_text('#mos tr[data-system="noisy"]')
    with admin.expect_download() as dl:
        admin.click("#export")
    got = tmp_path / "from-button.tsv"
    dl.value.save_as(got)
    export_study(tmp_path / "s", tmp_path / "cli.tsv")
    assert got.read_bytes() == (tmp_path / "cli.tsv").read_bytes()
    assert "clean-0\t5.0\t1" in got.read_text()
    admin.screenshot(path=tmp_path / "admin.png", full_page=True)
    # a download fires no response event: fetch the export again with the admin's cookies
    r = admin.context.request.get(f"{server.url}/admin-export")
    assert r.body() == got.read_bytes() and r.headers["x-voxjudge-items"] == "4 of 4 items had answers"
    seen.append((r.url, r.status, r.headers))

    ours = [(u, s, h) for u, s, h in seen if u.startswith(server.url)]
    kinds = {u.split(server.url)[1].split("/")[1].split("?")[0] for u, _, _ in ours}
    assert {"a", "intro", "next", "item", "clip", "static", "admin", "admin-export"} <= kinds
    for url, status, headers in ours:
        assert headers.get("content-security-policy", "").startswith("default-src 'self'"), (url, status)
        assert headers.get("x-content-type-options") == "nosniff", (url, status)
        assert headers.get("x-frame-options") == "DENY", (url, status)
    audio = [h for u, _, h in ours if "/clip/" in u]
    assert audio and all(h["content-type"] == "audio/wav" for h in audio)
