"""The MOS listening test (ITU-T P.800 ACR 1-5): training first with feedback, must-listen enforced
by the server, gold screening that drops careless raters and says why, per-clip and per-system MOS
with 95% t-intervals (checked against scipy), and an export `stats agree` reads."""

from __future__ import annotations

import json
import re
import time

import httpx
import pytest
from scipy import stats

from tests.studio.helpers import client_for, form_fields, work
from tests.studio.mos_data import mos_files, tone, write_wav
from voxjudge.cli.main import main
from voxjudge.studio.app import create_app
from voxjudge.studio.store import Store, default_url
from voxjudge.studio.study import export_study, init_study, open_store


@pytest.fixture
def mos(tmp_path, request):
    files = mos_files(tmp_path / "data", seconds=getattr(request, "param", 0.4))
    init_study(tmp_path / "s", "mos", files["items"], gold=files["gold"], training=files["training"], per_item=3)
    return tmp_path / "s", open_store(tmp_path / "s")


@pytest.mark.parametrize("mos", [2.0], indirect=True)  # 2 s clips: a loaded machine's latency stays below that
def test_training_first_must_listen_checked_by_the_server(mos, live):
    folder, store = mos
    server = live(lambda: create_app(Store(default_url(folder))))
    ann = client_for(server, store.invite("ann"))
    r = ann.get("/next")
    assert r.url.path == "/item/1" and 'id="training"' in r.text and "Excellent" in r.text
    form = {**form_fields(r.text), "action": "save", "score": "5"}
    r = ann.post("/item/1", data=form)  # nothing played yet
    assert r.status_code == 422 and "play the clip to the end" in r.text
    clip = ann.get("/clip/1/0")
    assert clip.status_code == 200 and clip.headers["content-type"] == "audio/wav"
    r = ann.post("/item/1", data=form)  # played, but sooner than the clip lasts
    assert r.status_code == 422 and "listen to the clip to the end (2.0 s)" in r.text
    time.sleep(2.0)
    r = ann.post("/item/1", data=form)
    assert r.status_code == 200 and r.url.query == b"feedback=1"
    assert "The study expects 4 or 5 for this clip: clean" in r.text
    # a reload of the page keeps the server's clock: the second training clip, then the study
    r = ann.get("/next")
    assert r.url.path == "/item/2" and 'id="training"' in r.text
    ann.get("/clip/2/0")
    time.sleep(2.0)
    r = ann.post("/item/2", data={**form_fields(ann.get("/item/2").text), "action": "save", "score": "1"})
    assert "The study expects 1 or 2" in r.text
    r = ann.get("/next")
    assert r.url.path == "/item/3" and 'id="training"' not in r.text
    # skipping needs no listening; the clip route refuses slots the item does not have
    assert ann.get("/clip/3/1").status_code == 404


def _rate(view, careless: bool = False) -> dict:
    if careless:
        return {"score": 5}
    if view.item_id == "gold-burst":
        return {"score": 1}
    return {"score": 5 if view.item_id.startswith("clean") or view.item_id == "train-clean" else 2}


def test_screening_mos_with_cis_and_the_export(mos, tmp_path, capsys):
    folder, store = mos
    work(store, "ann", _rate)
    work(store, "bob", lambda v: {"score": 4 if v.item_id.startswith("clean") else (2 if "gold" in v.item_id else 1)})
    work(store, "cat", lambda v: _rate(v, careless=True))  # rates everything 5, the clipped burst too
    out, systems = tmp_path / "mos.tsv", tmp_path / "systems.tsv"
    s = export_study(folder, out, systems=systems)
    assert s["dropped"] == {"cat": "failed 1 of 1 gold items (gold-burst: answered 5, expected 1 or 2)"}
    assert s["written"] == 6 and s["items"] == 6 and s["answered"] == 6  # gold and training are not exported
    from voxjudge.io.scores import read_score_file

    rows = {r["id"]: r for r in _tsv(out)}
    assert set(rows) == {f"{sys}-{k}" for sys in ("clean", "noisy") for k in range(3)}
    for uid, r in rows.items():
        xs = [5, 4] if uid.startswith("clean") else [2, 1]
        lo, hi = stats.t.interval(0.95, len(xs) - 1, loc=sum(xs) / 2, scale=stats.sem(xs))
        assert float(r["score"]) == pytest.approx(sum(xs) / 2)
        assert float(r["ci_low"]) == pytest.approx(lo, abs=1e-5) and float(r["ci_high"]) == pytest.approx(hi, abs=1e-5)
        assert r["n_annotators"] == "2" and r["system"] == uid.split("-")[0]
    per_system = {r["id"]: r for r in _tsv(systems)}
    clean = [5, 4] * 3
    lo, hi = stats.t.interval(0.95, 5, loc=4.5, scale=stats.sem(clean))
    assert float(per_system["clean"]["score"]) == 4.5 and float(per_system["noisy"]["score"]) == 1.5
    assert float(per_system["clean"]["ci_low"]) == pytest.approx(lo, abs=1e-5)
    assert float(per_system["clean"]["ci_high"]) == pytest.approx(hi, abs=1e-5)
    assert per_system["clean"]["n_ratings"] == "6" and per_system["clean"]["n_clips"] == "3"
    # the file is an id/score table the evaluators and `stats agree` read
    assert len(read_score_file(out).records) == 6
    metric = tmp_path / "metric.tsv"
    metric.write_text(
        "id\tscore\n"
        + "".join(f"{u}\t{0.9 if u.startswith('clean') else 0.2 + 0.01 * i}\n" for i, u in enumerate(sorted(rows)))
    )
    capsys.readouterr()
    assert main(["stats", "agree", "--metric", str(metric), "--human", str(out), "--json", "--resamples", "200"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 6


def _tsv(path) -> list[dict[str, str]]:
    lines = path.read_text().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"))) for line in lines[1:]]


def test_admin_screening_table_mos_and_export_button(mos, live, tmp_path):
    folder, store = mos
    work(store, "ann", _rate)
    work(store, "cat", lambda v: _rate(v, careless=True))
    boss = store.invite("boss", admin=True)
    server = live(lambda: create_app(Store(default_url(folder))))
    admin = client_for(server, boss, admin=True)
    page = admin.get("/admin").text
    cat = re.search(r'<tr data-name="cat">(.*?)</tr>', page, re.S).group(1)
    assert "dropped" in cat and "gold-burst: answered 5, expected 1 or 2" in cat
    assert "kept" in re.search(r'<tr data-name="ann">(.*?)</tr>', page, re.S).group(1)
    assert 'data-system="clean"' in page and 'data-system="check"' not in page
    assert "2 annotators invited, but every item needs 3" in page  # per-item exceeds the invited raters
    r = admin.get("/admin-export")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    assert r.headers["x-voxjudge-items"] == "6 of 6 items had answers"
    export_study(folder, tmp_path / "cli.tsv")
    assert r.content == (tmp_path / "cli.tsv").read_bytes()  # the button gives what the CLI writes
    anon = httpx.Client(base_url=server.url)
    assert anon.get("/admin-export").status_code == 403


def test_cli_mos_end_to_end(tmp_path, capsys):
    files = mos_files(tmp_path / "data")
    study = str(tmp_path / "s")
    assert (
        main(
            [
                "studio",
                "init",
                study,
                "--task",
                "mos",
                "--items",
                str(files["items"]),
                "--gold",
                str(files["gold"]),
                "--training",
                str(files["training"]),
                "--per-item",
                "2",
            ]
        )
        == 0
    )
    assert "1 gold, 2 training" in capsys.readouterr().out
    assert main(["studio", "invite", study, "--annotator", "ann"]) == 0
    assert "no item is complete before 1 more" in capsys.readouterr().err
    work(open_store(study), "ann", _rate)
    assert (
        main(["studio", "export", study, "--out", str(tmp_path / "h.tsv"), "--systems", str(tmp_path / "sys.tsv")]) == 0
    )
    out = capsys.readouterr().out
    assert "6 of 6 items had answers" in out and "clean: 5.00" in out and "noisy: 2.00" in out
    # a bad gold expectation is one clear line, exit 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "gold-burst", "answer": {"score": 9}}\n')
    assert (
        main(
            [
                "studio",
                "init",
                str(tmp_path / "s2"),
                "--task",
                "mos",
                "--items",
                str(files["items"]),
                "--gold",
                str(bad),
            ]
        )
        == 2
    )
    assert "must be 1-5" in capsys.readouterr().err


def test_a_silent_mos_clip_is_warned_about_at_init(tmp_path, capsys):
    import numpy as np

    files = mos_files(tmp_path / "data", n_per_system=1)
    audio = tmp_path / "data" / "audio"
    write_wav(audio / "silent.wav", np.zeros(8000))
    write_wav(audio / "hum.wav", 0.001 * tone(0.5, 50))  # -60 dBFS: no speech either
    with open(files["items"], "a") as f:
        f.write(json.dumps({"id": "mute", "audio": "audio/silent.wav", "system": "x"}) + "\n")
        f.write(json.dumps({"id": "hum", "audio": "audio/hum.wav", "system": "x"}) + "\n")
    assert main(["studio", "init", str(tmp_path / "s"), "--task", "mos", "--items", str(files["items"])]) == 0
    err = capsys.readouterr().err
    assert "warning: item mute: audio audio/silent.wav is silent (no sound at all)" in err
    assert "warning: item hum: audio audio/hum.wav is silent (its loudest 20 ms at -" in err
    assert err.count("warning:") == 2  # the tones are not
