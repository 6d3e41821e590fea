"""``--engine ray`` for the offline LASER judges, on a real local Ray (num_cpus=2): the chunks are
scored by Ray actors, and the records are byte for byte the local run's, in input order, whatever
the chunking; the summary is the local one but for its ``engine``; an actor killed mid-run is
restarted and its chunks are scored again; a pool that cannot be placed fails at once."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the Ray engine needs the [ray] extra")

from tests.asr.test_laser_stream import _random_corpus  # noqa: E402
from tests.cli.test_laser_interrupt import _corpus  # noqa: E402
from voxjudge.asr.laser import LaserOptions, LaserRubric, parallel, run_laser  # noqa: E402
from voxjudge.asr.laser.ray_chunks import score_chunks_on_ray  # noqa: E402
from voxjudge.asr.laser.stream import StreamSettings  # noqa: E402
from voxjudge.cli.main import main  # noqa: E402
from voxjudge.cli.wording import worded  # noqa: E402
from voxjudge.llm.errors import ConfigError  # noqa: E402
from voxjudge.llm.options import JudgeOptions  # noqa: E402
from voxjudge.llm.ray_engine import ensure_ray  # noqa: E402

pytestmark = pytest.mark.slow
RAY = JudgeOptions(engine="ray", ray_workers=2)


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ensure_ray(None, num_cpus=2)
    yield
    ray.shutdown()


def _both(tmp_path, refs, hyps, ids, judge="default", lang=None, suffix=".jsonl", keep=False):
    """The local run (two worker processes) and the Ray run, each writing its records."""
    out = {}
    for engine in ("local", "ray"):
        options = LaserOptions(lang=lang, n_resamples=200, **({"jobs": 2} if engine == "local" else {"llm": RAY}))
        path = tmp_path / f"{engine}{suffix}"
        result = run_laser(refs, hyps, ids, judge=judge, options=options, out=path, keep_utterances=keep)
        out[engine] = (path.read_bytes(), result)
    return out["local"], out["ray"]


@pytest.mark.parametrize("judge", ["default", "rules"])
def test_records_and_summary_are_the_local_runs(tmp_path, monkeypatch, judge):
    monkeypatch.setattr(parallel, "CHUNK", 40)  # many chunks, several in flight on each actor
    refs, hyps, ids = _random_corpus(600, 11)
    (want, local), (got, on_ray) = _both(tmp_path, refs, hyps, ids, judge=judge)
    assert got == want and want.count(b"\n") == 600
    assert [json.loads(line)["id"] for line in got.splitlines()] == ids  # input order
    assert local.summary["engine"] == "local" and on_ray.summary["engine"] == "ray"
    assert {**on_ray.summary, "engine": "local"} == local.summary


def test_kept_utterances_and_other_formats(tmp_path, monkeypatch):
    """What the judge card keeps (UtteranceScore objects) and a CSV come back the same too."""
    monkeypatch.setattr(parallel, "CHUNK", 64)
    refs, hyps, ids = _random_corpus(300, 5)
    (want, local), (got, on_ray) = _both(tmp_path, refs, hyps, ids, lang="en", suffix=".csv", keep=True)
    assert got == want
    assert [u.as_dict() for u in on_ray.utterances] == [u.as_dict() for u in local.utterances]
    assert len(on_ray.utterances) == 300


def test_the_command_line_on_ray_writes_the_local_bytes(tmp_path, capsys, examples):
    folder = examples / "asr" / "hi"
    args = ["asr", "score", "--ref", str(folder / "ref.txt"), "--hyp", str(folder / "sys_b.txt"), "--ids", "--json"]
    assert main([*args, "--out", str(tmp_path / "local.jsonl")]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*args, "--out", str(tmp_path / "ray.jsonl"), "--engine", "ray", "--ray-workers", "2"]) == 0
    on_ray = json.loads(capsys.readouterr().out)
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert (local["engine"], on_ray["engine"]) == ("local", "ray")
    assert {**on_ray, "engine": "local"} == local
    assert ray.is_initialized()  # a Ray the command did not start is left running


def test_a_command_stops_the_ray_it_started_and_never_imports_ray_data(tmp_path, examples):
    """In a fresh process: the command starts Ray, scores on it and stops it before it returns
    (not in Ray's exit handler, which first sleeps); Ray Data, which it never uses, is not imported."""
    import subprocess
    import sys

    folder = examples / "asr" / "hi"
    args = ["asr", "score", "--ref", str(folder / "ref.txt"), "--hyp", str(folder / "sys_b.txt"), "--ids"]
    args += ["--engine", "ray", "--out", str(tmp_path / "ray.jsonl")]
    script = (
        "import sys; from voxjudge.cli.main import main; code = main(sys.argv[1:]); import ray; "
        "print(code, ray.is_initialized(), 'ray.data' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300)
    assert done.stdout.split()[-3:] == ["0", "False", "False"], done.stderr[-2000:]
    assert (tmp_path / "ray.jsonl").read_bytes().count(b"\n") == 50


def test_without_an_address_a_command_joins_the_ray_that_ray_address_names(tmp_path, examples):
    """No --ray-address: the command joins the Ray that RAY_ADDRESS names (Ray's own default; it
    used to fail, asking a running Ray for a CPU count), scores there, and leaves it running."""
    import subprocess
    import sys

    folder = examples / "asr" / "en"
    args = [sys.executable, "-m", "voxjudge.cli.main", "asr", "score", "--ref", str(folder / "ref.txt")]
    args += ["--hyp", str(folder / "sys_a.txt"), "--ids", "--json"]
    env = {**os.environ, "RAY_ADDRESS": ray.get_runtime_context().gcs_address}  # this module's Ray
    runs = {}
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.jsonl"
        done = subprocess.run(
            [*args, "--engine", engine, "--out", str(out)], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr[-2000:]
        runs[engine] = (json.loads(done.stdout)["engine"], out.read_bytes())
    assert runs["ray"][0] == "ray" and runs["ray"][1] == runs["local"][1]
    assert ray.get(ray.remote(lambda: 1).remote()) == 1  # the joined Ray still runs


def test_an_unreachable_ray_fails_at_once(tmp_path, examples):
    """An address where nothing answers, given or named by RAY_ADDRESS, is one line and exit 2 in
    seconds: Ray itself retried it for minutes (still waiting after 200 s)."""
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = examples / "asr" / "en"
    args = [sys.executable, "-m", "voxjudge.cli.main", "asr", "score", "--ref", str(folder / "ref.txt")]
    args += ["--hyp", str(folder / "sys_a.txt"), "--ids", "--engine", "ray"]
    for extra, env in (([f"--ray-address=127.0.0.1:{port}"], {}), ([], {"RAY_ADDRESS": f"127.0.0.1:{port}"})):
        started = time.monotonic()
        done = subprocess.run([*args, *extra], env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and time.monotonic() - started < 60, done.stderr[-2000:]
        said = [line for line in done.stderr.splitlines() if line.startswith("voxjudge: error:")]
        assert len(said) == 1 and f":{port} " in said[0] and "nothing answers" in said[0], done.stderr[-2000:]


def test_a_killed_actor_is_restarted_and_its_chunks_scored_again(monkeypatch):
    monkeypatch.setattr(parallel, "CHUNK", 30)
    refs, hyps, ids = _random_corpus(600, 2)
    rows = list(zip(ids, refs, hyps))
    settings = StreamSettings("default", LaserRubric.load(), records=True)
    plain = b"".join(p for c in parallel.score_chunks(rows, settings, jobs=1) for p in c.records)
    got, killed = [], False
    for k, chunk in enumerate(score_chunks_on_ray(rows, settings, workers=2, total=len(rows))):
        got += chunk.records
        if k == 2 and not killed:  # one actor's process dies with chunks sent to it
            os.kill(_actor_pids()[0], 9)
            killed = True
    assert killed and b"".join(got) == plain


def _actor_pids() -> list[int]:
    """The processes of the chunk actors (Ray titles them ``ray::_ChunkActor``)."""
    pids = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if (entry / "cmdline").read_bytes().startswith(b"ray::_ChunkActor"):
                pids.append(int(entry.name))
        except OSError:
            continue
    return sorted(pids)


def test_a_pool_larger_than_the_cluster_fails_at_once():
    refs, hyps, ids = _random_corpus(50, 1)
    settings = StreamSettings("rules", LaserRubric.load(), records=True)
    rows = list(zip(ids, refs, hyps))
    with pytest.raises(ConfigError, match=r"^ray_workers=3 needs 3 CPUs .* has 2; use ray_workers=2 ") as e:
        next(score_chunks_on_ray(rows, settings, workers=3))
    assert worded(e.value).startswith("--ray-workers 3 needs 3 CPUs")  # as the command line says it


def _session(sid: int) -> list[int]:
    """Processes still running in session ``sid`` (Ray's daemons and workers stay in the command's)."""
    alive = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def test_ctrl_c_on_ray_leaves_no_records_and_no_process(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    ref, hyp = _corpus(tmp_path, 60_000)
    out = tmp_path / "records.jsonl"
    argv = [sys.executable, "-m", "voxjudge.cli.main", "asr", "score", "--ref", str(ref), "--hyp", str(hyp)]
    argv += ["--ids", "--lang", "en", "--engine", "ray", "--out", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:  # until records are being written
        temps = list(tmp_path.glob(".records.jsonl.*.tmp"))
        if temps and temps[0].stat().st_size > 0:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted: make the corpus larger"
    os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: the whole foreground group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in err and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".records.jsonl.*"))
    deadline = time.monotonic() + 30
    while _session(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _session(proc.pid), "Ray processes outlived the command"


def test_the_alignment_limit_holds_on_ray_as_locally(tmp_path):
    """Ray's actors are fresh processes: they held the default limit whatever the caller set (a
    line refused locally was scored on Ray, and one allowed with no limit was refused)."""
    from voxjudge.asr import longform
    from voxjudge.asr.longform import LineTooLong

    words = [f"w{k % 97}" for k in range(1500)]
    refs, hyps, ids = ["a b", " ".join(words)], ["a c", " ".join(reversed(words))], ["short", "long1"]
    for engine in ("local", "ray"):
        options = LaserOptions(lang="en", **({"jobs": 2} if engine == "local" else {"llm": RAY}))
        with longform.limit(1e-7), pytest.raises(LineTooLong, match="utterance long1 is too long"):
            run_laser(refs, hyps, ids, judge="rules", options=options, out=tmp_path / f"{engine}.jsonl")
        with longform.limit(None):  # no limit: scored
            run_laser(refs, hyps, ids, judge="rules", options=options, out=tmp_path / f"{engine}.jsonl")
