"""The studio on an open network (issue 32), formulas in exports: spreadsheet formulas in ids are
neutralised as OWASP says (CSV/TSV), kept verbatim in JSONL. Each test failed on the code before its fix."""

from __future__ import annotations

import csv
import json

from tests.studio.helpers import client_for, work
from voxjudge.studio.app import create_app
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.study import export_study, init_study, open_store

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


def test_neutralise_follows_owasp():
    from voxjudge.studio.export import neutralise

    rows, n = neutralise([{"id": "\tx", "=col": "\rcmd", "score": -0.5, "ok": "a=b"}])
    assert rows == [{"id": "'\tx", "'=col": "'\rcmd", "score": -0.5, "ok": "a=b"}] and n == 3
