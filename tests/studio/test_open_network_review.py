"""The studio attacked once more (a review as an attacker): a second Content-Type line smuggling a
multipart body past the 415, a formula in a system name reaching the ``--systems`` table, and a rater
skipping the gold clips to dodge screening. Each test failed on the code before its fix."""

from __future__ import annotations

import csv
import json

from tests.studio.helpers import client_for, form_fields, work
from tests.studio.mos_data import mos_files
from voxjudge.studio.export import export_rows
from voxjudge.studio.stored_answers import all_answers
from voxjudge.studio.study import export_study, init_study, open_store

DIMS = ("C1", "C2", "C3", "C4", "overall")


def test_a_second_content_type_line_does_not_let_multipart_through(serve_pairwise):
    server, store = serve_pairwise()
    ann = client_for(server, store.invite("ann"))
    fields = {**form_fields(ann.get("/item/1").text), "action": "save", **{d: "tie" for d in DIMS}}
    body = "".join(f'--x\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in fields.items())
    body += '--x\r\nContent-Disposition: form-data; name="note"; filename="a.bin"\r\n\r\n' + "A" * 100 + "\r\n--x--\r\n"
    headers = [
        ("Origin", server.url),
        ("Content-Type", "multipart/form-data; boundary=x"),  # Starlette parses the first line,
        ("Content-Type", "application/x-www-form-urlencoded"),  # the check read the last one
    ]
    r = ann.post("/item/1", content=body.encode(), headers=headers, follow_redirects=False)
    assert r.status_code == 415  # before: 303, the multipart form parsed and the upload stored as the note
    assert all_answers(store) == []
    r = ann.post("/item/1", data=fields, headers={"Origin": server.url}, follow_redirects=False)
    assert r.status_code == 303  # one urlencoded line is the studio's own form


def test_the_systems_table_neutralises_formulas(tmp_path):
    files = mos_files(tmp_path / "data", n_per_system=1)
    rows = [json.loads(x) for x in files["items"].read_text().splitlines()]
    for r in rows:
        if r["system"] == "noisy":
            r["system"] = "=cmd|' /C calc'!A0"
    files["items"].write_text("".join(json.dumps(r) + "\n" for r in rows))
    init_study(tmp_path / "s", "mos", files["items"], per_item=1, min_gold=0)
    work(open_store(tmp_path / "s"), "ann", lambda v: {"score": 3})
    summary = export_study(tmp_path / "s", tmp_path / "mos.csv", systems=tmp_path / "systems.csv")
    with open(tmp_path / "systems.csv", newline="") as f:
        names = [row["id"] for row in csv.DictReader(f)]
    assert "'=cmd|' /C calc'!A0" in names and "=cmd|' /C calc'!A0" not in names  # before: written as is
    assert summary["neutralised"] == 2  # the clip's system cell and the table's name
    export_study(tmp_path / "s", tmp_path / "mos.jsonl", systems=tmp_path / "systems.jsonl")
    assert "=cmd|' /C calc'!A0" in (tmp_path / "systems.jsonl").read_text()  # JSONL stays verbatim


def test_skipping_the_gold_clip_does_not_dodge_screening(tmp_path):
    files = mos_files(tmp_path / "data")
    init_study(tmp_path / "s", "mos", files["items"], gold=files["gold"], training=files["training"], per_item=3)
    store = open_store(tmp_path / "s")
    work(store, "honest", lambda v: {"score": 1 if v.item_id == "gold-burst" else 4})
    work(store, "careless", lambda v: {"score": 5})
    work(store, "dodger", lambda v: {"score": 5}, skip=lambda v: v.role == "gold")  # gold sits at a fixed seq
    rows, summary = export_rows(store, all_answers(store), tmp_path / "mos.tsv")
    assert set(summary["dropped"]) == {"careless", "dodger"}  # before: the dodger was kept, "not screened yet"
    assert "gold-burst: skipped, expected 1 or 2" in summary["dropped"]["dodger"]
    assert {r["score"] for r in rows} == {4.0}  # only the honest rater's ratings are left
