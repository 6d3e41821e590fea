"""Every task's page over HTTP: the model's instructions, the answer form, validation against the scale;
instructions that follow the study, the admin page's plural, the favicon."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import client_for, sign_in
from tests.studio.mos_data import mos_files
from voxjudge.studio.app import create_app
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.study import init_study, open_store

CASES = {
    "asr-sentence": (
        dict(items=EXAMPLES / "asr/hi/ref.txt", hyp=EXAMPLES / "asr/hi/sys_b.txt", ids=True),
        "Compare the reference transcript with the ASR hypothesis",
        {"major": "1", "minor": "2", "no_penalty": "0"},
        {"major": "-1"},
        "between 0 and",
    ),
    "asr-pairs": (
        dict(items="tests/data/laser_pairs.tsv"),
        "You grade ASR errors for meaning",
        {"error_type": "none"},
        {"error_type": "banana"},
        "error type",
    ),
    "breaks": (
        dict(items=EXAMPLES / "breaks/hypotheses.tsv"),
        "You annotate prosodic phrase breaks",
        {"score": "4"},
        {"score": "7"},
        "1, 2, 3, 4 or 5",
    ),
    "pairwise": (
        dict(items=EXAMPLES / "pairwise/pairs.jsonl"),
        "Rate both clips on every dimension",
        {d: "tie" for d in ("C1", "C2", "C3", "C4", "overall")},
        {"C1": "first"},
        "choose first, second",
    ),
    "rank": (
        dict(items=EXAMPLES / "pairwise/candidates.jsonl"),
        "Rate both clips on every dimension",
        {"top": "3,0,1"},
        {"top": "1,1,2"},
        "different clips",
    ),
}


@pytest.mark.parametrize("task", sorted(CASES))
def test_task_page_and_answers(task, tmp_path, live):
    opts, model_text, good, bad, message = CASES[task]
    opts = dict(opts)
    init_study(tmp_path / "s", task, opts.pop("items"), per_item=1, **opts)
    store = open_store(tmp_path / "s")
    token = store.invite("ann")
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    c = httpx.Client(base_url=server.url, follow_redirects=True)
    r = sign_in(c, token)
    assert r.status_code == 200 and model_text in r.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', r.text).group(1)
    sid = re.search(r'name="submission_id" value="([^"]+)"', r.text).group(1)
    base = {"csrf": csrf, "submission_id": sid, "action": "save"}
    r = c.post("/item/1", data={**base, **bad})
    assert r.status_code == 422 and message in r.text
    r = c.post("/item/1", data={**base, **good})
    assert r.status_code == 200 and str(r.url).endswith("/item/2")
    back = c.get("/item/1").text
    assert "answered" in back
    # skip works for any task and is not an answer
    sid2 = re.search(r'name="submission_id" value="([^"]+)"', c.get("/item/2").text).group(1)
    r = c.post("/item/2", data={"csrf": csrf, "submission_id": sid2, "action": "skip"})
    assert r.status_code == 200 and "skipped" in c.get("/item/2").text


def test_admin_page_plural_and_favicon(serve_pairwise):
    server, store = serve_pairwise(per_item=1)
    boss = client_for(server, store.invite("boss", admin=True), admin=True)
    text = boss.get("/admin").text
    assert "1 annotator per item" in text and "1 annotators" not in text
    r = httpx.get(server.url + "/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon" and r.content[:4] == b"\0\0\1\0"


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
