"""A real browser (Debian's chromium driven by Playwright): an annotator opens the link, plays
audio, answers with keyboard and mouse, reloads and continues, edits an earlier answer; the admin
sees agreement appear. Screenshots are saved in the test's tmp folder."""

from __future__ import annotations

import time

import pytest

from tests.browser import CHROMIUM, FLAGS, sync_playwright_or_skip
from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import work
from voxjudge.studio.app import create_app
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.stored_answers import all_answers
from voxjudge.studio.study import init_study, open_store

pytestmark = pytest.mark.slow


@pytest.fixture
def browser(tmp_path):
    sync_api = sync_playwright_or_skip()
    with sync_api.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=[*FLAGS, "--autoplay-policy=no-user-gesture-required"],
            viewport={"width": 1100, "height": 900},
        )
        try:
            yield ctx
        finally:
            ctx.close()


def test_annotator_and_admin_in_chromium(tmp_path, live, browser):
    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=2, seed=5)
    store = open_store(tmp_path / "s")
    ann = store.invite("ann")
    boss = store.invite("boss", admin=True)
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    shots = tmp_path / "shots"
    shots.mkdir()

    page = browser.new_page()
    page.goto(f"{server.url}/a/{ann}")
    page.wait_for_url("**/intro")  # the instructions for people come first
    assert "phrasing and pausing" in page.inner_text("#guide")
    page.click("#start")
    page.wait_for_url("**/item/1")
    assert ann not in page.url
    page.screenshot(path=shots / "1-item.png", full_page=True)

    # play the first clip from the keyboard; the browser really decodes and plays it
    page.keyboard.press("Shift+Digit1")
    # polled from here: the page's CSP forbids the eval that wait_for_function's polling uses
    deadline = time.time() + 15
    while page.evaluate("document.querySelectorAll('audio')[0].currentTime") <= 0.05:
        assert time.time() < deadline, "the first clip did not play"
        page.wait_for_timeout(100)
    page.keyboard.press("Shift+Digit1")  # pause again

    # item 1 by keyboard: 1 = clip 1, 2 = clip 2, 3 = tie; each key answers the highlighted row
    for key in ["1", "2", "3", "1", "1"]:
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_url("**/item/2")

    # item 2 by mouse
    for dim in ("C1", "C2", "C3", "C4", "overall"):
        page.click(f'input[name="{dim}"][value="second"]')
    page.check("#flag")
    page.fill("#note", "clip 2 clicks at the start")
    page.click("#save")
    page.wait_for_url("**/item/3")

    # item 3: half answered, then the page is reloaded: the study continues where it was
    page.keyboard.press("2")
    page.reload()
    page.wait_for_url("**/item/3")
    assert "2 of" in page.inner_text("#progress")
    page.screenshot(path=shots / "2-after-reload.png", full_page=True)

    # go back and edit item 2; its saved answer is shown
    page.keyboard.press("ArrowLeft")
    page.wait_for_url("**/item/2")
    assert page.is_checked('input[name="C1"][value="second"]') and page.is_checked("#flag")
    page.keyboard.press("1")  # C1 -> clip 1
    page.keyboard.press("Enter")
    page.wait_for_url("**/item/3")

    # a wrong answer is refused with a message, nothing stored
    page.keyboard.press("Enter")
    assert "choose first, second or tie" in page.wait_for_selector("#error").inner_text()
    page.screenshot(path=shots / "3-error.png", full_page=True)

    rows = {a["seq"]: a for a in all_answers(store) if a["annotator"] == "ann"}
    assert set(rows) == {1, 2}
    from voxjudge.studio.flow import Flow

    flow = Flow(store)
    who = store.who(ann)
    v1, v2 = flow.view(who.pk, 1), flow.view(who.pk, 2)
    first = "A" if v1.present == [0, 1] else "B"
    second = "B" if first == "A" else "A"
    assert rows[1]["answer"] == {"C1": first, "C2": second, "C3": "tie", "C4": first, "overall": first}
    a2 = "A" if v2.present == [0, 1] else "B"  # clip 1 of item 2
    b2 = "B" if a2 == "A" else "A"
    assert rows[2]["answer"] == {"C1": a2, "C2": b2, "C3": b2, "C4": b2, "overall": b2}
    assert rows[2]["flag"] and rows[2]["version"] == 2

    # admin: agreement appears once a second annotator has answered the same items
    admin = browser.new_page()
    admin.goto(f"{server.url}/admin/{boss}")
    admin.wait_for_url("**/admin")
    before = admin.inner_text('#agreement tr[data-dim="overall"]')
    work(store, "bob", lambda v: {d: "first" for d in ("C1", "C2", "C3", "C4", "overall")})
    work(store, "cat", lambda v: {d: "second" for d in ("C1", "C2", "C3", "C4", "overall")})
    admin.reload()
    after = admin.inner_text('#agreement tr[data-dim="overall"]')
    assert before != after
    assert "bob" in admin.inner_text("#annotators") and "clip 2 clicks" in admin.inner_text("#flags")
    admin.screenshot(path=shots / "4-admin.png", full_page=True)
