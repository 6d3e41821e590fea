"""Simulated annotators working through a study in-process (no HTTP)."""

from __future__ import annotations

import uuid

from voxjudge.studio.flow import Flow


def heard(store, flow, who, seq: int, n_clips: int) -> None:
    """Record each clip as sent whole, an hour ago, as the page's players would have it (the
    sending itself and the clock are tested over HTTP with real waiting)."""
    import os
    import time

    for slot in range(n_clips):
        assignment_pk, rel = flow.clip(who.pk, seq, slot)
        size = os.path.getsize(flow.audio_root / rel)
        flow.note_sent(assignment_pk, slot, 0, size, size, time.time() - 3600)


def work(store, name: str, answer_for, *, skip=lambda view: False) -> int:
    """Annotator ``name`` answers every item handed out; answer_for(view) returns the form fields."""
    token = store.invite(name)
    who = store.who(token)
    flow = Flow(store)
    n = 0
    while (seq := flow.next_seq(who.pk)) is not None:
        view = flow.view(who.pk, seq)
        if flow.must_listen:
            heard(store, flow, who, seq, len(view.audio))
        flow.submit(
            who.pk, seq, submission_id=uuid.uuid4().hex, skip=skip(view), fields=answer_for(view), flag=False, note=""
        )
        n += 1
    return n


def form_fields(html: str) -> dict[str, str]:
    """The hidden fields every answer form carries (csrf, submission id, the version it was made from)."""
    import re

    out = {
        "csrf": re.search(r'name="csrf" value="([^"]+)"', html).group(1),
        "submission_id": re.search(r'name="submission_id" value="([^"]+)"', html).group(1),
    }
    version = re.search(r'name="version" value="(\d+)"', html)
    if version:
        out["version"] = version.group(1)
    return out


def sign_in(client, token: str, *, admin: bool = False, start: bool = True):
    """Open a personal link as a browser does when the person pastes it (Sec-Fetch-Site: none), and
    (annotators) press start on the instructions page. Returns the last response."""
    import re

    r = client.get(f"/{'admin' if admin else 'a'}/{token}", headers={"Sec-Fetch-Site": "none"})
    if start and not admin and r.url.path == "/intro":
        csrf = re.search(r'name="csrf" value="([^"]+)"', r.text).group(1)
        r = client.post("/intro", data={"csrf": csrf}, headers={"Origin": str(client.base_url).rstrip("/")})
    return r


def client_for(server, token: str, *, admin: bool = False):
    import httpx

    c = httpx.Client(base_url=server.url, follow_redirects=True, timeout=30)
    assert sign_in(c, token, admin=admin).status_code == 200
    return c


def hindi_sentence_study(path, *, per_item: int = 2):
    """An asr-sentence study of the Hindi example (sys_b against the references); returns its store."""
    from tests.studio.conftest import EXAMPLES
    from voxjudge.studio.study import init_study, open_store

    hi = EXAMPLES / "asr/hi"
    init_study(path, "asr-sentence", hi / "ref.txt", hyp=hi / "sys_b.txt", ids=True, per_item=per_item)
    return open_store(path)
