"""What people see: instructions written for them from the rubric data (the model's prompt only behind
its disclosure), the aligned asr-sentence differences, and the admin's view of a study in progress
(overlap reached early, flags with the clips heard, partial exports that say so)."""

from __future__ import annotations

import re

import pytest

from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import client_for, form_fields, work
from voxjudge.cli.main import main
from voxjudge.studio.app import create_app
from voxjudge.studio.flow import Flow
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.stored_answers import all_answers
from voxjudge.studio.study import init_study, open_store

STUDIES = {
    "pairwise": dict(items=EXAMPLES / "pairwise/pairs.jsonl"),
    "asr-sentence": dict(items=EXAMPLES / "asr/hi/ref.txt", hyp=EXAMPLES / "asr/hi/sys_b.txt", ids=True),
    "breaks": dict(items=EXAMPLES / "breaks/hypotheses.tsv"),
}


def _rubric_content(task: str) -> list[str]:
    """Independent of the studio: what the rubric files say, which the people's instructions must carry."""
    if task == "pairwise":
        from voxjudge.pairwise.rubric import Rubric

        r = Rubric.default()
        return [x for d in r.dimensions if d.group == "core" for x in (d.name, d.description)]
    if task == "asr-sentence":
        from voxjudge.asr.laser import LaserRubric

        r = LaserRubric.load()
        out = [t.description for t in r.types]
        ex = r.types[0].examples.get("en") or next(iter(r.types[0].examples.values()))
        return out + [f"{ex[0][0]} → {ex[0][1]}"]
    return ["accent phrase boundary", "intonation phrase boundary"]


@pytest.mark.parametrize("task", sorted(STUDIES))
def test_instructions_for_people_before_the_first_item_and_on_demand(task, tmp_path, live):
    import html

    opts = dict(STUDIES[task])
    init_study(tmp_path / "s", task, opts.pop("items"), per_item=1, **opts)
    store = open_store(tmp_path / "s")
    token = store.invite("ann")
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    import httpx

    c = httpx.Client(base_url=server.url, follow_redirects=True)
    r = c.get(f"/a/{token}", headers={"Sec-Fetch-Site": "none"})
    assert r.url.path == "/intro"  # before the first item
    text = html.unescape(r.text)
    for piece in _rubric_content(task):
        assert piece in text, piece
    for model_only in ("Answer with", "Think step by step", "<h3>system</h3>", '"items"'):
        assert model_only not in text
    assert c.get("/next").url.path == "/intro"  # no item before the start button
    csrf = re.search(r'name="csrf" value="([^"]+)"', r.text).group(1)
    assert c.post("/intro", data={"csrf": csrf}).url.path == "/item/1"
    page = c.get("/next")
    assert page.url.path == "/item/1"
    guide, model = page.text.split('id="instructions"')[1].split('id="model"')
    assert "Instructions" in guide and "What the model judge is told" in model
    assert all(p in html.unescape(guide) for p in _rubric_content(task)[:2])
    # the exact model prompt is there, but only inside its disclosure
    from voxjudge.studio.prompts import model_prompt

    view = Flow(store).view(store.who(token).pk, 1)
    first_line = model_prompt(task, view.payload)[0][1].splitlines()[0]
    assert first_line in html.unescape(model) and first_line not in html.unescape(guide)
    assert "instructions" in c.get("/instructions").text.lower()  # on demand


def test_asr_sentence_shows_the_aligned_differences(tmp_path, live):
    items = tmp_path / "pairs.tsv"
    items.write_text("id\tref\thyp\tlang\nu1\tthe cat sat on the mat\tthe bat sat on mat\ten\n")
    init_study(tmp_path / "s", "asr-sentence", items, per_item=1)
    store = open_store(tmp_path / "s")
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    page = client_for(server, store.invite("ann")).get("/item/1").text
    cols = re.findall(r'<span class="col (\w+)"><span class="r">([^<]*)</span><span class="h">([^<]*)</span>', page)
    # by hand: the = the, cat -> bat, sat = sat, on = on, the -> (nothing), mat = mat
    assert cols == [
        ("equal", "the", "the"),
        ("substitute", "cat", "bat"),
        ("equal", "sat", "sat"),
        ("equal", "on", "on"),
        ("delete", "the", "∅"),
        ("equal", "mat", "mat"),
    ]
    assert "2 highlighted differences" in page


def test_overlap_share_is_double_rated_first(tmp_path):
    init_study(tmp_path / "s", "breaks", EXAMPLES / "breaks/hypotheses.tsv", per_item=3, overlap=0.25)
    store = open_store(tmp_path / "s")
    flow = Flow(store)
    a, b = store.who(store.invite("a")), store.who(store.invite("b"))

    def take(who, n):
        got = []
        for _ in range(n):
            seq = flow.next_seq(who.pk)
            got.append(flow.view(who.pk, seq).item_id)
            flow.submit(
                who.pk, seq, submission_id=f"{who.pk}-{seq}", skip=False, fields={"score": "3"}, flag=False, note=""
            )
        return got

    first = take(a, 18)  # 25% of 72 items
    assert take(b, 18) == first  # b rates the same 18 first: agreement is measurable after 36 answers
    assert not set(take(b, 5)) & set(first)
    from voxjudge.studio.agreement import agreement
    from voxjudge.studio.export import votes_by_item

    double = [u for u, v in votes_by_item(all_answers(store)).items() if len(v) == 2]
    assert len(double) == 18
    payloads = {u: {} for u in votes_by_item(all_answers(store))}
    [row] = agreement("breaks", all_answers(store), payloads, store.config, n_resamples=10)
    assert row["n_items"] == 18


def test_flags_show_the_clip_the_annotator_heard(tmp_path, live):
    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=2, seed=3)
    store = open_store(tmp_path / "s")
    token, boss = store.invite("ann"), store.invite("boss", admin=True)
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    ann = client_for(server, token)
    fields = {**form_fields(ann.get("/item/1").text), "action": "skip", "flag": "on", "note": "clip 2 clicks"}
    ann.post("/item/1", data=fields)
    who = store.who(token)
    v = Flow(store).view(who.pk, 1)
    import json

    import sqlalchemy as sa

    from voxjudge.studio.store import items

    with store.engine.connect() as c:
        src = json.loads(c.execute(sa.select(items.c.source).where(items.c.item_id == v.item_id)).scalar())
    heard_second = [src["audio_a"], src["audio_b"]][v.present[1]]
    page = client_for(server, boss, admin=True).get("/admin").text
    row = re.search(r"<table id=\"flags\">.*?</table>", page, re.S).group(0)
    assert v.item_id in row and "clip 2 clicks" in row
    assert f"clip 2: {heard_second}" in row  # the physical file behind "clip 2" for this annotator


def test_a_mid_study_export_says_how_many_items_had_answers(tmp_path, capsys):
    init_study(tmp_path / "s", "breaks", EXAMPLES / "breaks/hypotheses.tsv", per_item=1)
    store = open_store(tmp_path / "s")
    flow = Flow(store)
    who = store.who(store.invite("ann"))
    for _ in range(5):
        seq = flow.next_seq(who.pk)
        flow.submit(who.pk, seq, submission_id=str(seq), skip=False, fields={"score": "4"}, flag=False, note="")
    capsys.readouterr()
    assert main(["studio", "export", str(tmp_path / "s"), "--out", str(tmp_path / "h.tsv")]) == 0
    out = capsys.readouterr().out
    assert "wrote 5 of 72 items" in out and "5 of 72 items had answers; the study is not complete" in out
    work(store, "bob", lambda v: {"score": 2})
    assert main(["studio", "export", str(tmp_path / "s"), "--out", str(tmp_path / "h.tsv")]) == 0
    assert "72 of 72 items had answers)" in capsys.readouterr().out
