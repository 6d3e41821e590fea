"""The studio on an open network (issue 32), hostile answer forms: unbounded numbers and NUL bytes are
refused (422) on SQLite and PostgreSQL. Each test failed on the code before its fix."""

from __future__ import annotations

import pytest

from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import client_for, form_fields
from voxjudge.studio.app import create_app
from voxjudge.studio.store import Store
from voxjudge.studio.stored_answers import all_answers
from voxjudge.studio.study import init_study

DIMS = ("C1", "C2", "C3", "C4", "overall")


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


def test_unbounded_numbers_and_nul_are_422_on_sqlite(serve_pairwise):
    server, store = serve_pairwise()
    _hostile_forms(server, store)


@pytest.mark.slow
def test_unbounded_numbers_and_nul_are_422_on_postgresql(tmp_path, live, pg_db):
    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=1, db=pg_db)
    store = Store(pg_db)
    server = live(lambda: create_app(Store(pg_db)))
    _hostile_forms(server, store)
