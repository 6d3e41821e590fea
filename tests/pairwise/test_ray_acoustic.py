"""``--engine ray`` with the acoustic judge on a local Ray (num_cpus=2): the measurements run as
Ray tasks, the records are the local run's byte for byte, and the summary says Ray ran."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray", reason="the Ray engine needs the [ray] extra")

from voxjudge.cli.main import main  # noqa: E402
from voxjudge.llm.ray_engine import ensure_ray  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ensure_ray(None, num_cpus=2)
    yield
    ray.shutdown()


def test_acoustic_judge_on_ray_writes_the_local_records(examples, tmp_path, capsys):
    pairs = examples / "pairwise" / "pairs.jsonl"
    views, outs = {}, {}
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.jsonl"
        argv = ["pairwise", "judge", "--pairs", str(pairs), "--engine", engine, "--out", str(out), "--json"]
        assert main(argv) == 0
        views[engine] = json.loads(capsys.readouterr().out)
        outs[engine] = out.read_bytes()
    assert outs["ray"] == outs["local"] and len(outs["ray"].splitlines()) == 2 * 18
    assert views["local"]["engine"] == "local" and views["ray"]["engine"] == "ray"
    assert {**views["ray"], "engine": "local"} == views["local"]
    # the tasks ran in Ray's workers, not in this process
    assert ray.is_initialized() and ray.available_resources().get("CPU", 0) <= 2


def test_select_with_the_acoustic_judge_on_ray_equals_local(examples, tmp_path, capsys):
    candidates = examples / "pairwise" / "candidates.jsonl"
    views, records = {}, {}
    for engine in ("local", "ray"):
        rec = tmp_path / f"{engine}.jsonl"
        argv = ["pairwise", "select", "--candidates", str(candidates), "--engine", engine, "--json"]
        assert main([*argv, "--records", str(rec)]) == 0
        views[engine] = json.loads(capsys.readouterr().out)
        records[engine] = rec.read_bytes()
    assert records["ray"] == records["local"] and views["ray"] == views["local"]
    assert views["ray"]["hit@1"] == 1.0


def test_a_clip_missing_on_a_worker_is_one_line(tmp_path, capsys, examples):
    """A clip the workers cannot read (here: deleted after the pre-flight check) is the judge's own
    error in one line, exit 2, nothing written."""
    import shutil

    src = examples / "pairwise"
    for name in ("audio",):
        shutil.copytree(src / name, tmp_path / name)
    (tmp_path / "pairs.jsonl").write_text((src / "pairs.jsonl").read_text().splitlines()[0] + "\n")
    from voxjudge.pairwise import AcousticPairJudge, Rubric, read_pairs, run_judgments
    from voxjudge.pairwise.ray_acoustic import RayAcousticPairJudge

    pairs = read_pairs(tmp_path / "pairs.jsonl")
    pairs[0].audio_b.unlink()
    import asyncio

    from voxjudge.errors import InputError

    rubric = Rubric.default()
    with pytest.raises(InputError) as local:
        asyncio.run(run_judgments(pairs, AcousticPairJudge(rubric), rubric, 2))
    with pytest.raises(InputError) as on_ray:
        asyncio.run(run_judgments(pairs, RayAcousticPairJudge(rubric), rubric, 2))
    assert str(on_ray.value) == str(local.value) and "t0_monotone.wav" in str(on_ray.value)


def test_the_judgments_come_back_from_ray_tasks_in_their_planned_places(examples):
    import asyncio

    from voxjudge.pairwise import AcousticPairJudge, Rubric, read_pairs, run_judgments
    from voxjudge.pairwise.ray_acoustic import RayAcousticPairJudge

    rubric = Rubric.default()
    pairs = read_pairs(examples / "pairwise" / "pairs.jsonl")
    seen = []
    on_ray = RayAcousticPairJudge(rubric, workers=2)
    got = asyncio.run(run_judgments(pairs, on_ray, rubric, 4, lambda done, total: seen.append((done, total))))
    local = asyncio.run(run_judgments(pairs, AcousticPairJudge(rubric), rubric, 4))
    # 36 (pair, order) judgments in chunks of 3 (8 chunks per worker): 12 tasks, progress in pairs
    assert got == local and on_ray.tasks_done == 12
    assert seen[-1] == (18, 18) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_ray_only_flags_that_mean_nothing_to_the_acoustic_judge_are_refused(examples, tmp_path, capsys):
    pairs = examples / "pairwise" / "pairs.jsonl"
    out = tmp_path / "o.jsonl"
    argv = ["pairwise", "judge", "--pairs", str(pairs), "--engine", "ray", "--out", str(out)]
    assert main([*argv, "--ray-shards", str(tmp_path / "shards")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "voxjudge: error: --ray-shards: the acoustic judge keeps no shards (a rerun measures again); leave it out"
    ]
    assert not out.exists()
