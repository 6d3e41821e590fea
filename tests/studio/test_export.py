"""Exports are read back by the evaluators' own readers and commands."""

from __future__ import annotations

import json

import pytest

from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import hindi_sentence_study, work
from voxjudge.cli.main import main
from voxjudge.errors import InputError
from voxjudge.studio.study import export_study, init_study, open_store


def test_asr_sentence_export_is_read_by_asr_score(tmp_path, capsys):
    store = hindi_sentence_study(tmp_path / "s")
    # annotator 1 counts one major error everywhere, annotator 2 one minor error
    work(store, "ann", lambda v: {"major": 1, "minor": 0, "no_penalty": 0})
    work(store, "bob", lambda v: {"major": 0, "minor": 1, "no_penalty": 2})
    payload = {}
    import sqlalchemy as sa

    from voxjudge.studio.store import items

    with store.engine.connect() as c:
        payload = {r.item_id: json.loads(r.payload) for r in c.execute(sa.select(items.c.item_id, items.c.payload))}
    out = tmp_path / "human.tsv"
    summary = export_study(tmp_path / "s", out)
    assert summary["written"] == 50
    from voxjudge.io.scores import read_scores

    scores = read_scores(out)
    uid = "f01-hi001"
    n = payload[uid]["ref_words"]
    assert scores[uid] == pytest.approx(((1 - 1 / n) + (1 - 0.5 / n)) / 2, abs=1e-6)
    code = main(
        [
            "asr",
            "score",
            "--ref",
            str(EXAMPLES / "asr/hi/ref.txt"),
            "--hyp",
            str(EXAMPLES / "asr/hi/sys_b.txt"),
            "--ids",
            "--human",
            str(out),
            "--json",
            "--resamples",
            "200",
        ]
    )
    assert code == 0
    res = json.loads(capsys.readouterr().out)
    assert res["agreement"]


def test_breaks_export_is_read_by_breaks_score(tmp_path, capsys):
    init_study(tmp_path / "s", "breaks", EXAMPLES / "breaks/hypotheses.tsv", per_item=3)
    store = open_store(tmp_path / "s")
    for name, bump in (("a", 0), ("b", 1), ("c", 2)):
        work(store, name, lambda v, bump=bump: {"score": 1 + (len(v.payload["words"]) + bump) % 5})
    out = tmp_path / "human.tsv"
    export_study(tmp_path / "s", out)
    from voxjudge.breaks.files import read_human_scores

    human = read_human_scores(out)
    assert len(human) == 72 and all(1 <= v <= 5 for v in human.values())
    code = main(
        [
            "breaks",
            "score",
            "--refs",
            str(EXAMPLES / "breaks/table.jsonl"),
            "--hyps",
            str(EXAMPLES / "breaks/hypotheses.tsv"),
            "--human",
            str(out),
            "--json",
        ]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)["n"] == 72


def test_pairwise_export_maps_ab_order_back_and_is_read_by_pairwise(tmp_path, capsys):
    from voxjudge.pairwise.data import read_pairs

    pairs = {p.pair_id: p for p in read_pairs(EXAMPLES / "pairwise/pairs.jsonl")}
    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=3, seed=3)
    store = open_store(tmp_path / "s")
    swaps = []

    def truthful(view):
        # everyone prefers the 'natural' clip, wherever the page put it; overall only
        truth = pairs[view.item_id].human.get("overall", "A")
        natural_slot = "first" if (truth == "A") == (view.present == [0, 1]) else "second"
        swaps.append(view.present == [1, 0])
        ans = {d: natural_slot for d in ("C1", "C2", "C3", "C4", "overall")}
        return ans

    for name in ("a", "b", "c"):
        work(store, name, truthful)
    assert 0 < sum(swaps) < len(swaps)  # both orders were shown
    out = tmp_path / "pairs_human.jsonl"
    export_study(tmp_path / "s", out)
    back = read_pairs(out)  # audio paths were rewritten and still resolve
    assert len(back) == len(pairs)
    for p in back:
        assert p.human["overall"] == pairs[p.pair_id].human["overall"]
        assert set(p.human_confident) == {"C1", "C2", "C3", "C4", "overall"}
    assert main(["pairwise", "judge", "--pairs", str(out), "--out", str(tmp_path / "j.jsonl"), "--samples", "2"]) == 0
    capsys.readouterr()
    assert main(["pairwise", "analyze", str(tmp_path / "j.jsonl"), "--pairs", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_labelled"] == len(pairs)


def test_pairwise_disagreement_is_not_confident(tmp_path):
    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=3)
    store = open_store(tmp_path / "s")
    work(
        store,
        "a",
        lambda v: {d: "first" if v.present == [0, 1] else "second" for d in ("C1", "C2", "C3", "C4", "overall")},
    )
    work(
        store,
        "b",
        lambda v: {d: "first" if v.present == [0, 1] else "second" for d in ("C1", "C2", "C3", "C4", "overall")},
    )
    work(
        store,
        "c",
        lambda v: {d: "second" if v.present == [0, 1] else "first" for d in ("C1", "C2", "C3", "C4", "overall")},
    )
    out = tmp_path / "h.jsonl"
    export_study(tmp_path / "s", out)
    from voxjudge.pairwise.data import read_pairs

    for p in read_pairs(out):
        assert p.human == {d: "A" for d in ("C1", "C2", "C3", "C4", "overall")}  # 2 of 3 said A
        assert p.human_confident == ()


def test_rank_export_keeps_agreed_top3_for_pairwise_select(tmp_path, capsys):
    from voxjudge.pairwise.data import read_candidate_sets

    init_study(tmp_path / "s", "rank", EXAMPLES / "pairwise/candidates.jsonl", per_item=2)
    store = open_store(tmp_path / "s")
    # both annotators rank source candidates 2, 0, 1 (presented order is shuffled per person)
    for name in ("a", "b"):
        work(store, name, lambda v: {"top": ",".join(str(v.present.index(i)) for i in (2, 0, 1))})
    out = tmp_path / "cands.jsonl"
    export_study(tmp_path / "s", out)
    sets = read_candidate_sets(out)
    assert all(s.human_topk == (2, 0, 1) for s in sets)
    code = main(["pairwise", "select", "--candidates", str(out), "--samples", "2", "--json"])
    assert code == 0
    assert "hit@1" in capsys.readouterr().out


def test_rank_disagreement_leaves_topk_out(tmp_path):
    from voxjudge.pairwise.data import read_candidate_sets

    init_study(tmp_path / "s", "rank", EXAMPLES / "pairwise/candidates.jsonl", per_item=2)
    store = open_store(tmp_path / "s")
    work(store, "a", lambda v: {"top": ",".join(str(v.present.index(i)) for i in (0, 1, 2))})
    work(store, "b", lambda v: {"top": ",".join(str(v.present.index(i)) for i in (2, 1, 0))})
    out = tmp_path / "cands.jsonl"
    summary = export_study(tmp_path / "s", out)
    assert len(summary["unresolved"]) == 6
    assert all(s.human_topk == () for s in read_candidate_sets(out))


def test_asr_pairs_export_is_training_data(tmp_path):
    init_study(tmp_path / "s", "asr-pairs", "tests/data/laser_pairs.tsv", per_item=1)
    store = open_store(tmp_path / "s")
    work(store, "a", lambda v: {"error_type": "none" if v.payload["ref"] == v.payload["hyp"] else "wrong_word"})
    out = tmp_path / "labelled.tsv"
    export_study(tmp_path / "s", out)
    from voxjudge.cli.laser_pairs import read_pair_rows

    rows = read_pair_rows(str(out))
    with open("tests/data/laser_pairs.tsv", encoding="utf-8") as f:
        assert len(rows) == sum(1 for _ in f) - 1  # every pair of the study, header aside
    same = [r for r in rows if r["ref"] == r["hyp"]]
    assert same and all(r["label"] == "match" and r["error_type"] == "none" for r in same)
    diff = [r for r in rows if r["ref"] != r["hyp"]]
    assert all(r["label"] == "major" for r in diff)


def test_skipped_and_repeats_are_not_exported(tmp_path):
    init_study(tmp_path / "s", "breaks", EXAMPLES / "breaks/hypotheses.tsv", per_item=1, repeats=3)
    store = open_store(tmp_path / "s")
    work(store, "a", lambda v: {"score": 1 if v.is_repeat else 5}, skip=lambda v: v.item_id == "h001")
    out = tmp_path / "h.tsv"
    s = export_study(tmp_path / "s", out)
    from voxjudge.io.scores import read_scores

    human = read_scores(out)
    assert "h001" not in human and s["written"] == 71
    assert set(human.values()) == {5.0}


def test_init_errors_name_the_problem(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"pair_id": "x", "text": "t", "audio_a": "nope.wav", "audio_b": "nope.wav"}\n')
    assert main(["studio", "init", str(tmp_path / "s"), "--task", "pairwise", "--items", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("voxjudge: error:") and "nope.wav" in err and "bad.jsonl:1" in err
    assert not (tmp_path / "s" / "studio.db").exists()
    assert main(["studio", "export", str(tmp_path / "none"), "--out", str(tmp_path / "x.tsv")]) == 2
    assert "no study here" in capsys.readouterr().err
    with pytest.raises(InputError, match="gold id"):
        gold = tmp_path / "gold.jsonl"
        gold.write_text('{"id": "zzz", "answer": {"score": 5}}\n')
        init_study(tmp_path / "g", "breaks", EXAMPLES / "breaks/hypotheses.tsv", gold=gold)


def test_cli_init_invite_export(tmp_path, capsys):
    study = str(tmp_path / "s")
    assert (
        main(
            [
                "studio",
                "init",
                study,
                "--task",
                "breaks",
                "--items",
                str(EXAMPLES / "breaks/hypotheses.tsv"),
                "--per-item",
                "1",
            ]
        )
        == 0
    )
    assert "72 items" in capsys.readouterr().out
    assert main(["studio", "invite", study, "--annotator", "maria"]) == 0
    link = capsys.readouterr().out.strip()
    assert link.startswith("http://127.0.0.1:8750/a/")
    assert main(["studio", "invite", study, "--annotator", "lead", "--admin"]) == 0
    admin_link = capsys.readouterr().out.strip()
    assert "/admin/" in admin_link
    store = open_store(study)
    who = store.who(link.rsplit("/", 1)[1])
    assert who.name == "maria" and not who.is_admin and store.who(admin_link.rsplit("/", 1)[1]).is_admin
    work(store, "maria", lambda v: {"score": 3})
    out = tmp_path / "human.tsv"
    assert main(["studio", "export", study, "--out", str(out)]) == 0
    assert "wrote 72 of 72 items" in capsys.readouterr().out
    assert out.read_text().splitlines()[0].split("\t")[:2] == ["id", "score"]


def test_asr_pairs_from_asr_align_output(tmp_path, capsys):
    pairs = tmp_path / "aligned.csv"
    assert (
        main(
            [
                "asr",
                "align",
                "--ref",
                str(EXAMPLES / "asr/hi/ref.txt"),
                "--hyp",
                str(EXAMPLES / "asr/hi/sys_b.txt"),
                "--ids",
                "--out",
                str(pairs),
            ]
        )
        == 0
    )
    capsys.readouterr()
    import csv

    rows = list(csv.DictReader(pairs.open(encoding="utf-8")))
    mismatches = [r for r in rows if r["op"] != "equal"]
    init_study(tmp_path / "s", "asr-pairs", pairs, per_item=1)
    store = open_store(tmp_path / "s")
    assert work(store, "a", lambda v: {"error_type": "wrong_word"}) == len(mismatches)
    out = tmp_path / "labelled.jsonl"
    export_study(tmp_path / "s", out)
    back = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["ref"], r["hyp"], r["op"]) for r in back] == [(r["ref"], r["hyp"], r["op"]) for r in mismatches]
    assert all(r["id"].startswith(r["id"].rsplit(":", 1)[0]) and r["label"] == "major" for r in back)
