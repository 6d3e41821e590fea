"""The studio on an open network (issue 32), attacks through the audio it serves: the file served is
the file checked (a symlink swapped in a loop), a FIFO blocks nothing, ranges without an ETag,
must-listen counts the bytes sent, a reused clip does not keep its length. Each test failed on the
code before its fix."""

from __future__ import annotations

import os
import threading
import time

from tests.studio.helpers import client_for, form_fields
from tests.studio.mos_data import mos_files, tone, write_wav
from voxjudge.studio.app import create_app
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.stored_answers import all_answers
from voxjudge.studio.study import init_study, open_store

# --- 5 and 6. the file served is the file checked; a FIFO blocks nothing ---------------------------------


def _served_with_audio(tmp_path, live, seconds=0.2):
    """A one-item breaks study with a clip, served live: (its audio folder, a folder outside it holding
    a secret, store, server)."""
    src, out = tmp_path / "src", tmp_path / "other"
    src.mkdir()
    out.mkdir()
    write_wav(src / "clip.wav", tone(seconds, 200))
    (out / "secret.wav").write_bytes(b"RIFF\0\0\0\0WAVEsecret-outside-the-root")
    items = src / "items.tsv"
    items.write_text("id\tannotation\taudio\nu1\tone two <SB>\tclip.wav\n")
    init_study(tmp_path / "s", "breaks", items, per_item=1)
    store = open_store(tmp_path / "s")
    return src, out, store, live(lambda: create_app(Store(default_url(tmp_path / "s"))))


def test_a_symlink_swapped_in_a_loop_never_serves_the_outside_file(tmp_path, live):
    src, out, store, server = _served_with_audio(tmp_path, live)
    ann = client_for(server, store.invite("ann"))
    real = (src / "clip.wav").read_bytes()
    os.rename(src / "clip.wav", src / "real.wav")
    stop = threading.Event()

    def swap() -> None:  # clip.wav is the real file, then a symlink out of the root, over and over
        while not stop.is_set():
            for target in (src / "real.wav", out / "secret.wav"):
                tmp = src / "swap.tmp"
                try:
                    if target.parent == src:
                        os.link(target, tmp)
                    else:
                        os.symlink(target, tmp)
                    os.replace(tmp, src / "clip.wav")
                except FileExistsError:
                    os.unlink(tmp)

    t = threading.Thread(target=swap, daemon=True)
    t.start()
    served = {"real": 0, "outside": 0, "refused": 0}
    try:
        for _ in range(400):
            r = ann.get("/clip/1/0")
            if r.status_code == 404:
                served["refused"] += 1
            elif b"secret-outside" in r.content:
                served["outside"] += 1
            else:
                assert r.content[:4] == real[:4] and r.content[8 : len(real)] == real[8:]  # (padded: below)
                served["real"] += 1
    finally:
        stop.set()
        t.join(5)
    assert served["outside"] == 0, served
    assert served["real"] > 0 and served["refused"] > 0, served  # both states were met


def test_a_fifo_in_the_audio_root_blocks_nothing(tmp_path, live):
    src, _, store, server = _served_with_audio(tmp_path, live)
    (src / "clip.wav").unlink()
    os.mkfifo(src / "clip.wav")  # before: opened without O_NONBLOCK, the worker thread waited for a writer
    ann = client_for(server, store.invite("ann"))
    boss = client_for(server, store.invite("boss", admin=True), admin=True)
    t0 = time.monotonic()
    assert ann.get("/clip/1/0", timeout=5).status_code == 404
    assert boss.get("/admin-audio/1", timeout=5).status_code == 404
    r = boss.get("/admin", timeout=10)
    assert r.status_code == 200 and "audio clip.wav is not a regular file" in r.text
    assert ann.get("/next", timeout=5).status_code == 200
    assert time.monotonic() - t0 < 10


def test_audio_carries_no_etag_and_serves_ranges(tmp_path, live):
    src, _, store, server = _served_with_audio(tmp_path, live)
    ann = client_for(server, store.invite("ann"))
    whole = ann.get("/clip/1/0")
    assert whole.status_code == 200 and "etag" not in whole.headers and "last-modified" not in whole.headers
    part = ann.get("/clip/1/0", headers={"Range": "bytes=10-19"})
    assert part.status_code == 206 and part.content == whole.content[10:20]
    assert part.headers["content-range"] == f"bytes 10-19/{len(whole.content)}"
    assert ann.get("/clip/1/0", headers={"Range": f"bytes={len(whole.content)}-"}).status_code == 416


# --- must-listen counts the audio bytes sent ---------------------------------------------------------------


def test_must_listen_counts_bytes_sent_not_a_head(tmp_path, live):
    files = mos_files(tmp_path / "data", seconds=0.6, n_per_system=1)
    init_study(tmp_path / "s", "mos", files["items"], per_item=1)
    store = open_store(tmp_path / "s")
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    ann = client_for(server, store.invite("ann"))
    form = {**form_fields(ann.get("/item/1").text), "action": "save", "score": "3"}
    assert ann.head("/clip/1/0").status_code == 200  # the attack: a HEAD, then wait
    assert ann.get("/clip/1/0", headers={"Range": "bytes=0-99"}).status_code == 206  # or a sliver of it
    time.sleep(0.8)
    r = ann.post("/item/1", data=form)
    assert r.status_code == 422 and "play the clip to the end" in r.text
    ann.get("/clip/1/0", headers={"Range": "bytes=100-"})  # the rest: now the whole file was sent
    time.sleep(0.8)
    assert ann.post("/item/1", data=form).status_code == 200
    assert all_answers(store)[0]["answer"] == {"score": 3}


def test_a_reused_clip_does_not_keep_its_length(tmp_path, live):
    import io
    import wave

    src = tmp_path / "src"
    src.mkdir()
    write_wav(src / "clip.wav", tone(0.3, 200))
    items = src / "items.tsv"
    items.write_text("id\tannotation\taudio\nu1\tone two <SB>\tclip.wav\nu2\tthree four <SB>\tclip.wav\n")
    init_study(tmp_path / "s", "breaks", items, per_item=1, overlap=0)
    store = open_store(tmp_path / "s")
    server = live(lambda: create_app(Store(default_url(tmp_path / "s"))))
    ann = client_for(server, store.invite("ann"))
    first = ann.get("/clip/1/0")
    assert ann.post("/item/1", data={**form_fields(ann.get("/item/1").text), "action": "skip"}).status_code == 200
    second = ann.get("/clip/2/0")
    assert first.status_code == second.status_code == 200
    assert len(first.content) != len(second.content)  # before: the same length (and the same ETag)
    original = (src / "clip.wav").read_bytes()
    for served in (first.content, second.content):
        with wave.open(io.BytesIO(served)) as w, wave.open(str(src / "clip.wav")) as o:
            assert w.readframes(w.getnframes()) == o.readframes(o.getnframes())  # the same audio
        assert int.from_bytes(served[4:8], "little") == len(served) - 8 and served[len(original) :][:4] == b"JUNK"
    # ranges cut through the padding as through the file
    tail = ann.get("/clip/1/0", headers={"Range": f"bytes={len(original) - 4}-"})
    assert tail.status_code == 206 and tail.content == first.content[len(original) - 4 :]
    head = ann.get("/clip/1/0", headers={"Range": "bytes=2-9"})
    assert head.content == first.content[2:10]
