"""Table building end to end with the fake provider."""

from __future__ import annotations

import json
import re

import pytest

from voxjudge.breaks import BuildConfig, build_references, parse_inline
from voxjudge.breaks.builder import WORDS_CHANGED, item_schema, planned_build_requests, prepare_texts
from voxjudge.breaks.labels import LabelSet
from voxjudge.llm import Judge
from voxjudge.llm.providers import fake

TEXTS = [
    (str(k), t)
    for k, t in enumerate(
        [
            "The cat sat on the mat.",
            "We went home after the game.",
            "She reads books in the evening.",
            "Birds sing early in spring.",
            "My brother lives in a small town.",
        ],
        1,
    )
]
POOL = [
    parse_inline(a)
    for a in [
        "the bus was late <IP> so i walked <SB>",
        "after dinner <AP> we played cards <SB>",
        "if it rains <IP> we stay home <SB>",
        "the old dog <AP> sleeps all day <SB>",
    ]
]
calls: list[dict] = []


def _items(request):
    """The items sent and the whole conversation (a repair request adds turns after them)."""
    user = next(m.text_content for m in request.messages if "Items:\n" in m.text_content)
    return json.loads(user.split("Items:\n", 1)[1]), "\n".join(m.text_content for m in request.messages)


def annotator(request, index):
    """Phrases each text with one IP whose place depends on the demonstrations shown, so different
    iterations give different (but recurring) phrasings. Drops a word of 'Birds sing...' unless told."""
    items, user = _items(request)
    demos = user.count("<AP>")
    calls.append({"n_items": len(items), "demos": user.split("Items:")[0], "repair": WORDS_CHANGED in user})
    out = []
    for it in items:
        words = it["text"].split()
        if words[0] == "Birds" and WORDS_CHANGED not in user:  # fixed once told why
            words = words[1:]
        cut = 1 + demos % 2
        out.append({"id": it["id"], "annotation": " ".join(words[:cut]) + " <IP> " + " ".join(words[cut:]) + " <SB>"})
    return {"items": out}


@pytest.fixture(autouse=True)
def _scripts(monkeypatch):
    monkeypatch.setitem(fake._SCRIPTS, "lmre-annotator", annotator)


def make_judge(tmp_path, script="lmre-annotator"):
    return Judge(f"fake/{script}", cache=tmp_path / "cache.sqlite", records=tmp_path / "calls.jsonl")


def test_build_end_to_end(tmp_path):
    calls.clear()
    judge = make_judge(tmp_path)
    config = BuildConfig(n_iter=10, batch_size=2, seed=3)
    table, report = judge.run(build_references(judge, TEXTS, POOL, config))
    # 10 iterations x ceil(5/2) batches, plus one repair request per iteration for the changed text
    # (which shows the model its answer and says why it was refused); iterations that drew the
    # same demonstrations send identical requests, served from the cache
    assert judge.meter.requests + judge.meter.cache_hits == 10 * 3 + 10
    assert len(calls) == judge.meter.requests
    assert any(c["repair"] for c in calls) and all(c["n_items"] == 1 for c in calls if c["repair"])
    assert report.word_mismatch_retried == 10 and report.dropped == {} and report.answers == 50
    # demonstrations: half the pool by default, a different draw across iterations (seeded)
    demo_sets = {c["demos"] for c in calls}
    assert len(demo_sets) > 1
    entry = table.entries["the cat sat on the mat"]
    counts = sorted(r.count for r in entry.ranked())
    assert sum(counts) == 10 and all(c > 1 for c in counts)  # every kept phrasing passed count > n_iter/10
    assert report.min_count == 1.0
    judge.close()
    # the same build again is served from the cache
    calls.clear()
    judge = make_judge(tmp_path)
    again, _ = judge.run(build_references(judge, TEXTS, POOL, config))
    assert calls == [] and judge.meter.requests == 0
    assert list(again.records()) == list(table.records())
    judge.close()


def test_frequency_filter_and_dropped_texts(tmp_path, monkeypatch):
    def stubborn(request, index):
        items, _ = _items(request)
        return {"items": [{"id": it["id"], "annotation": "totally different words <SB>"} for it in items]}

    monkeypatch.setitem(fake._SCRIPTS, "lmre-stubborn", stubborn)
    judge = make_judge(tmp_path, "lmre-stubborn")
    table, report = judge.run(build_references(judge, TEXTS[:2], POOL, BuildConfig(n_iter=3)))
    assert report.dropped == {"words changed": 6} and report.references_kept == 0
    assert report.unscored == 6 and report.word_mismatch_retried == 6 and report.stopped is None
    assert len(report.texts_without_references) == 2 and len(table) == 2
    judge.close()


def test_a_constrained_backend_gets_one_text_per_request_with_its_words_pinned(tmp_path):
    calls.clear()
    seen = []

    def pinned(request, index):
        seen.append(request.schema["properties"]["items"]["items"]["properties"]["annotation"].get("pattern"))
        return annotator(request, index)

    fake._SCRIPTS["lmre-pinned"] = pinned
    try:
        judge = Judge("fake/lmre-pinned?constrained=1", cache=None)
        table, report = judge.run(build_references(judge, TEXTS, POOL, BuildConfig(n_iter=2, batch_size=4)))
    finally:
        del fake._SCRIPTS["lmre-pinned"]
    first_round = [c for c in calls if not c["repair"]]
    # one request per text and iteration, plus one schema repair per iteration for the text whose
    # answer breaks its pinned pattern (a real constrained decoder could not have produced it)
    assert {c["n_items"] for c in first_round} == {1} and len(first_round) == 2 * len(TEXTS) + 2
    assert all(p and p.startswith("^") for p in seen)
    assert report.dropped == {"no valid answer": 2}
    judge.close()


def test_min_count_option(tmp_path):
    judge = make_judge(tmp_path)
    table, report = judge.run(build_references(judge, TEXTS, POOL, BuildConfig(n_iter=4, min_count=3)))
    assert all(r.count > 3 for e in table.entries.values() for r in e.references.values())
    judge.close()


def test_dry_run_plan_matches_batches():
    items = prepare_texts(TEXTS + [("dup", "the cat sat on the mat")], LabelSet())
    assert len(items) == 5  # duplicate texts are annotated once
    reqs = planned_build_requests(items, POOL, LabelSet(), BuildConfig(n_iter=4, batch_size=2))
    assert len(reqs) == 4 * 3
    pinned = planned_build_requests(items, POOL, LabelSet(), BuildConfig(n_iter=1), pinned=True)
    assert len(pinned) == 5


def test_local_pattern_allows_only_the_words_with_tags():
    pattern = item_schema(["the", "cat", "sat."], LabelSet())["properties"]["annotation"]["pattern"]
    assert re.fullmatch(pattern, "the cat <IP> sat. <SB>")
    assert re.fullmatch(pattern, "the <AP> cat <IP> sat. <SB>")
    assert not re.fullmatch(pattern, "the cat sat.")  # the final tag is required
    assert not re.fullmatch(pattern, "the <AP> <IP> cat sat. <SB>")  # one tag per juncture
    assert not re.fullmatch(pattern, "the dog <IP> sat. <SB>")
    assert not re.fullmatch(pattern, "the cat <XX> sat. <SB>")
    assert not re.fullmatch(pattern, "the cat sat. extra")


def test_bad_config():
    from voxjudge.errors import InputError

    with pytest.raises(InputError):
        BuildConfig(n_iter=0)
    with pytest.raises(InputError):
        BuildConfig(batch_size=0)


@pytest.mark.parametrize("min_count", [float("nan"), -1.0, float("inf")])
def test_min_count_must_be_a_number_0_or_more(min_count):
    from voxjudge.errors import InputError

    with pytest.raises(InputError, match="min_count must be a number 0 or more"):
        BuildConfig(min_count=min_count)


def test_more_demonstrations_than_the_pool_holds_are_refused():
    from voxjudge.errors import InputError

    items = prepare_texts(TEXTS, LabelSet())
    with pytest.raises(InputError, match=f"n_fs is {len(POOL) + 1} but the pool holds {len(POOL)} annotations"):
        planned_build_requests(items, POOL, LabelSet(), BuildConfig(n_fs=len(POOL) + 1))
    assert planned_build_requests(items, POOL, LabelSet(), BuildConfig(n_iter=1, n_fs=len(POOL)))


def test_texts_are_plain_and_a_bad_one_is_named_by_file_and_line(tmp_path, capsys):
    from voxjudge.cli.main import main
    from voxjudge.errors import InputError

    # a tag-like token is not read as a boundary label ("unknown boundary label 'b'")
    with pytest.raises(InputError, match="text t2: a text to annotate holds '<b>'"):
        prepare_texts([("t1", "Hello there."), ("t2", "The tag <b> is bold.")], LabelSet())
    assert prepare_texts([("t1", "Hello, there!")], LabelSet())[0][1][1].key_words == ("hello", "there")
    texts, pool = tmp_path / "texts.txt", tmp_path / "pool.txt"
    texts.write_text("Hello there.\n...\n")
    pool.write_text("a b <IP> c <SB>\n")
    argv = ["breaks", "build-refs", "--texts", str(texts), "--pool", str(pool), "--judge", "fake/schema"]
    assert main([*argv, "--out", str(tmp_path / "o.jsonl"), "--dry-run"]) == 2
    assert "texts.txt:2: text '...' has no words to annotate" in capsys.readouterr().err
    texts.write_text("Hello there.\n")
    assert main([*argv, "--out", str(tmp_path / "o.jsonl"), "--dry-run", "--min-count", "-1"]) == 2
    assert "--min-count must be a number 0 or more" in capsys.readouterr().err
    assert main([*argv, "--out", str(tmp_path / "o.jsonl"), "--dry-run", "--n-fs", "2"]) == 2
    assert "--n-fs is 2 but the pool holds 1 annotation;" in capsys.readouterr().err
