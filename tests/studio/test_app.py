"""The web app over real sockets: sign-in, isolation, CSRF, audio, validation, idempotent submits,
and nothing lost when 20 annotators submit 2,000 answers with retries across a server restart."""

from __future__ import annotations

import random
import re
import threading

import httpx
import pytest

from tests.studio.helpers import client_for, form_fields, sign_in
from voxjudge.studio.app import create_app
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.study import init_study


def _client(server, token: str, admin: bool = False) -> httpx.Client:
    return client_for(server, token, admin=admin)


_form = form_fields


def test_link_sets_cookie_and_drops_token_from_url(pairwise_study):
    server, tokens, _ = pairwise_study
    c = _client(server, tokens["ann"])
    r = c.get("/next")
    assert re.search(r"/item/1$", str(r.url)) and tokens["ann"] not in str(r.url)
    assert "The text and the clips are material to judge" in r.text  # the model's system prompt, verbatim
    assert r.headers["content-security-policy"].startswith("default-src 'self'")
    assert httpx.get(server.url + "/a/not-a-token").status_code == 403
    assert httpx.get(server.url + "/item/1").status_code == 403  # no cookie


def test_isolation_audio_and_admin(pairwise_study):
    server, tokens, store = pairwise_study
    ann, bob = _client(server, tokens["ann"]), _client(server, tokens["bob"])
    page = ann.get("/next").text
    ann_audio = sorted(set(re.findall(r'src="(/clip/1/\d+)"', page)))
    assert len(ann_audio) == 2
    r = ann.get(ann_audio[0])
    assert r.content[:4] == b"RIFF" and r.headers["content-type"] == "audio/wav"
    bob.get("/next")
    # bob has one item; he can't read ann's seq 2 (not handed out) nor fetch clips of items he doesn't have
    assert bob.get("/item/2").status_code == 404
    assert bob.get("/clip/2/0").status_code == 404 and bob.get("/clip/1/2").status_code == 404
    assert bob.get("/audio/1").status_code == 404 and bob.get("/admin-audio/1").status_code == 403
    assert bob.get("/clip/..%2f..%2fetc%2fpasswd/0").status_code == 404
    assert bob.get("/admin").status_code == 403  # an annotator cookie is not an admin
    assert _client(server, tokens["boss"], admin=True).get("/admin").status_code == 200
    assert httpx.get(server.url + f"/admin/{tokens['ann']}").status_code == 403
    # tokens are stored hashed only
    import sqlalchemy as sa

    from voxjudge.studio.store import annotators

    with store.engine.connect() as c:
        hashes = [r.token_hash for r in c.execute(sa.select(annotators))]
    assert not set(tokens.values()) & set(hashes) and all(len(h) == 64 for h in hashes)


def test_csrf_validation_and_idempotent_resubmit(pairwise_study):
    server, tokens, store = pairwise_study
    ann = _client(server, tokens["ann"])
    page = ann.get("/next").text
    form = _form(page)
    good = {**form, "action": "save", **{d: "first" for d in ("C1", "C2", "C3", "C4", "overall")}}
    assert ann.post("/item/1", data={**good, "csrf": "x" * 64}).status_code == 403
    bob = _client(server, tokens["bob"])
    bob_form = _form(bob.get("/next").text)
    assert ann.post("/item/1", data={**good, "csrf": bob_form["csrf"]}).status_code == 403  # bound to the person
    bad = ann.post("/item/1", data={**good, "C3": "maybe"})
    assert bad.status_code == 422 and "C3" in bad.text
    assert ann.post("/item/1", data=good, headers={"origin": "http://evil.example"}).status_code == 403
    for _ in range(3):  # the same submission three times: stored once, version 1
        assert ann.post("/item/1", data=good).status_code == 200
    edit = {**_form(ann.get("/item/1").text), "action": "save", **{d: "first" for d in good if d[0] in "Co"}}
    assert edit["version"] == "1"  # the page says which version it was made from
    assert ann.post("/item/1", data={**edit, "C1": "tie"}).status_code == 200
    from voxjudge.studio.stored_answers import all_answers

    rows = [a for a in all_answers(store) if a["annotator"] == "ann"]
    assert len(rows) == 1 and rows[0]["version"] == 2 and rows[0]["answer"]["C1"] == "tie"


def _run_annotators(url_holder, tokens, answers_each, retry_rate, seed, results, errors):
    """One thread per annotator. A submit whose connection breaks is sent again, same form, until
    it gets an answer; some submits are repeated on purpose."""

    def one(name, token, k):
        rng = random.Random(seed * 1000 + k)
        sent, statuses = {}, []
        client = [None]

        def call(method, path, **kw):
            while True:
                try:
                    if client[0] is None:
                        client[0] = httpx.Client(base_url=url_holder[0], follow_redirects=True, timeout=30)
                        sign_in(client[0], token)
                    r = client[0].request(method, path, **kw)
                    if r.status_code == 200:
                        return r
                    statuses.append(r.status_code)
                except httpx.TransportError:  # the server is restarting; the session survives it
                    pass
                threading.Event().wait(0.05)

        try:
            for _ in range(answers_each):
                r = call("GET", "/next")
                seq = int(re.search(r"/item/(\d+)$", str(r.url)).group(1))
                score = rng.randint(1, 5)
                data = {**_form(r.text), "action": "save", "score": str(score)}
                for _ in range(1 + (rng.random() < retry_rate) + (rng.random() < retry_rate)):
                    call("POST", f"/item/{seq}", data=data)
                sent[seq] = score
            results[name] = sent
            if statuses:
                errors.append(f"{name}: HTTP {sorted(set(statuses))}")
        except Exception as e:  # pragma: no cover - reported by the test
            errors.append(f"{name}: {e!r}")

    return [threading.Thread(target=one, args=(n, t, k)) for k, (n, t) in enumerate(tokens.items())]


def _nothing_lost(tmp_path, live, db_url, n_annotators=20, each=100):
    """20 annotators x 100 answers, random duplicate submits, server restarted halfway."""
    items = tmp_path / "items.tsv"
    lines = ["id\tannotation"] + [f"u{i}\tword{i} one <AP> two <SB>" for i in range(1000)]
    items.write_text("\n".join(lines) + "\n")
    # slack: nobody runs out of items; no overlap share, so the spread is even
    init_study(tmp_path / "s", "breaks", items, per_item=3, db=db_url, overlap=0)
    store = Store(db_url)
    tokens = {f"ann{i:02d}": store.invite(f"ann{i:02d}") for i in range(n_annotators)}
    server = live(lambda: create_app(Store(db_url)))
    url = [server.url]
    results: dict = {}
    errors: list = []
    threads = _run_annotators(url, tokens, each, 0.3, 1, results, errors)
    for t in threads:
        t.start()
    import time

    deadline = time.time() + 300
    from voxjudge.studio.stored_answers import all_answers

    total = n_annotators * each
    while len(all_answers(store)) < total // 2 and time.time() < deadline:
        time.sleep(0.1)
    server.stop()  # restart in the middle
    time.sleep(0.3)
    server.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors
    stored = all_answers(store)
    assert len(stored) == total
    by_key = {(a["annotator"], a["seq"]): a for a in stored}
    assert len(by_key) == total
    for name, sent in results.items():
        assert len(sent) == each
        for seq, score in sent.items():
            assert by_key[(name, seq)]["answer"] == {"score": score}
    assert all(a["version"] == 1 for a in stored)  # retries never counted as edits
    # balanced: least-covered items first. Only at the very end can an annotator who already holds
    # every least-covered item be handed one a level up.
    from collections import Counter

    per_item = Counter(a["item_id"] for a in stored)
    counts = Counter(per_item.get(f"u{i}", 0) for i in range(1000))
    lo, hi = total // 1000, -(-total // 1000)  # an even spread puts every item at one of these levels
    assert sum(n for level, n in counts.items() if not lo <= level <= hi) <= 2 * n_annotators


def test_nothing_lost_small(tmp_path, live):
    _nothing_lost(tmp_path, live, default_url(tmp_path / "s"), n_annotators=5, each=30)


@pytest.mark.slow
def test_nothing_lost_sqlite(tmp_path, live):
    _nothing_lost(tmp_path, live, default_url(tmp_path / "s"))


@pytest.mark.slow
def test_nothing_lost_postgresql(tmp_path, live, pg_db):
    _nothing_lost(tmp_path, live, pg_db)
