"""The grammar path with a real model: SmolLM2-135M in-process (``local/<gguf>``) and behind
llama-cpp-python's OpenAI-compatible server (``openai/…?structured=json_object``). A tiny model
answers badly; the point is that every answer it gives is valid. Kept short: 2 cores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voxjudge.llm import Judge, Request

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(params=["in-process", "server"])
def make_judge(request, gguf, tmp_path):
    made: list[Judge] = []

    def make(cache="cache.sqlite", spec_options: str = "", **kw) -> Judge:
        if request.param == "in-process":
            spec, base = f"local/{gguf}" + (f"?{spec_options}" if spec_options else ""), None
        else:
            spec, base = "openai/smollm2?structured=json_object", request.getfixturevalue("llama_server")
        made.append(Judge(spec, base_url=base, cache=tmp_path / cache, records=tmp_path / "calls.jsonl", **kw))
        return made[-1]

    yield make
    for j in made:
        j.close()


def _calls(tmp_path: Path) -> list[dict]:
    lines = (tmp_path / "calls.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r.get("event") == "call"]


def test_lmre_build_keeps_words_and_references_for_every_text(make_judge, tmp_path):
    from voxjudge.breaks.annotation import parse_inline
    from voxjudge.breaks.builder import BuildConfig, build_references

    texts = [(f"t{k}", t) for k, t in enumerate((EXAMPLES / "breaks/texts.txt").read_text().splitlines()[:3])]
    pool = [parse_inline(line) for line in (EXAMPLES / "breaks/pool.txt").read_text().splitlines()]
    config = BuildConfig(n_iter=2, n_fs=2, batch_size=4, max_tokens_per_item=120)
    judge = make_judge()
    table, report = judge.run(build_references(judge, texts, pool, config))
    assert report.dropped == {} and report.word_mismatch_retried == 0
    assert report.texts_without_references == []
    for _, text in texts:
        entry = table.entries[parse_inline(text).text_key]
        assert entry.references
        assert all(r.words == entry.words for r in entry.references.values())
        assert all(r.annotation.labels[-1] == "SB" for r in entry.references.values())
    assert all(c["finish_reasons"] == ["stop"] for c in _calls(tmp_path))
    sent = judge.meter.requests
    rerun = make_judge()
    judge.run(build_references(rerun, texts, pool, config))
    assert sent > 0 and rerun.meter.requests == 0  # everything scored comes from the cache


def test_laser_pairs_and_sentence_mode_answer_validly(make_judge):
    from voxjudge.asr.laser.llm_judges import score_with_llm
    from voxjudge.asr.laser.rubric import LaserRubric

    refs = ["please send me the report before the end of the day", "we should take the train"]
    hyps = ["please send me a report before the end of day", "we should take the rain"]
    judge, rubric = make_judge(), LaserRubric.load()
    utts, report = judge.run(
        score_with_llm(judge, refs, hyps, ["u1", "u2"], rubric, lang="en", batch_size=4, prefilter=False)
    )
    assert report["llm"]["sent_to_model"] > 0 and report["llm"]["unscored"] == 0
    assert all(u.laser is not None for u in utts)
    utts, report = judge.run(score_with_llm(judge, refs, hyps, ["u1", "u2"], rubric, lang="en", mode="sentence"))
    assert all(u.laser is not None for u in utts)  # every sentence answer parsed and validated


def test_pairwise_dimension_prompts_text_only(make_judge):
    from voxjudge.llm import Item, TextPart, label_many
    from voxjudge.pairwise.judges import prosody_task
    from voxjudge.pairwise.rubric import Rubric

    rubric = Rubric.default()
    judge = make_judge()
    clips = (
        TextPart("\nFirst clip: a flat, hurried reading."),
        TextPart("\nSecond clip: calm, a pause after 'parents'."),
    )
    for dim in rubric.dimensions:
        item = Item(f"pair:{dim.id}", {"text": "Their poor parents were just starving as usual."}, parts=clips)
        outcome = judge.run(label_many(judge, prosody_task(rubric, "per-dimension", dim), [item]))
        assert outcome.unscored == {}
        answer = outcome.answer(item.id)
        assert (
            rubric.low <= answer["score_first"] <= rubric.high and rubric.low <= answer["score_second"] <= rubric.high
        )


def test_batches_too_long_for_the_context_are_split_not_truncated(gguf, tmp_path):
    from voxjudge.asr.laser.llm_judges import llm_label_pairs
    from voxjudge.asr.laser.rubric import LaserRubric
    from voxjudge.asr.laser.utterances import align_utterances

    refs = ["one two three four five six seven eight nine ten eleven twelve"]
    hyps = ["won too tree for fife sicks heaven ate nein tan elfin twelfth"]
    aligned = align_utterances(refs, hyps, ["u"], "en")
    items = [(uid, p, lang) for uid, lang, pairs in aligned for p in pairs]
    judge = Judge(f"local/{gguf}?n_ctx=1536", cache=None, records=tmp_path / "calls.jsonl")
    labels, stats = judge.run(llm_label_pairs(judge, items, LaserRubric.load(), batch_size=12, prefilter=False))
    judge.close()
    calls = _calls(tmp_path)
    assert stats.unscored == 0 and all(lab is not None for lab in labels)
    assert len(calls) > 1  # the batch of 12 did not fit 1,536 tokens: it was split before sending
    assert all(c["finish_reasons"] == ["stop"] for c in calls)


def test_unenforceable_schema_is_an_error_naming_the_feature(gguf):
    from voxjudge.llm.grammar import GrammarError

    judge = Judge(f"local/{gguf}", cache=None)
    schema = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    with pytest.raises(GrammarError, match="uniqueItems"):
        judge.complete_sync(Request.simple("List fruits.", schema=schema))
    assert judge.meter.requests == 0
    judge.close()


def test_server_path_survives_faults_from_a_proxy(fault_proxy, tmp_path):
    from voxjudge.llm.retry import RetryPolicy

    proxy = fault_proxy(["429", "500", "drop", "garbage"])
    judge = Judge("openai/smollm2?structured=json_object", base_url=proxy.url, cache=None,
                  retry=RetryPolicy(max_retries=6, base_delay=0.01), concurrency=1)  # fmt: skip
    schema = {"type": "object", "properties": {"label": {"enum": ["yes", "no"]}, "confidence": {
        "type": "integer", "minimum": 1, "maximum": 5}}, "required": ["label", "confidence"]}  # fmt: skip
    items = [(f"q{k}", Request.simple(f"Is {k} even? Answer in JSON.", schema=schema, max_tokens=40)) for k in range(3)]
    out = judge.run(judge.complete_many(items))
    judge.close()
    assert proxy.seen[:4] == ["429", "500", "drop", "garbage"]
    assert all(r[0].ok and r[0].parsed["label"] in ("yes", "no") for r in out)
    assert judge.meter.retries >= 4 and judge.meter.requests == 3
