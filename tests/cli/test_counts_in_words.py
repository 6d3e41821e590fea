"""Counts in messages say "1 request", "1 figure", "1 id ... was": singular for exactly one, the
plural otherwise (one helper, ``voxjudge.plural.counted``). Expected lines are written by hand."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from voxjudge.cli.breaks import render_build
from voxjudge.cli.judge_options import usage_line
from voxjudge.cli.views import render_written
from voxjudge.io.join import coverage_text
from voxjudge.stats.agreement import AgreementUndefined, check_agreement


def usage(n: int) -> dict:
    return {"requests": n, "cache_hits": n, "retries": n, "failures": n, "input_tokens": 7, "output_tokens": 2,
            "cost_usd": None, "wall_seconds": 0.25}  # fmt: skip


def test_usage_line_in_the_singular_and_the_plural():
    assert usage_line(usage(1)) == "1 request, 1 cache hit, 1 retry, 1 failure, 7+2 tokens, cost unknown, 0.2s"
    assert usage_line(usage(0)).startswith("0 requests, 0 cache hits, 0 retries, 0 failures, 7+2 tokens")


def test_build_status_line_with_one_of_everything():
    r = {"references_kept": 1, "texts": 1, "answers": 1, "iterations": 1, "min_count": 0.0,
         "references_before_filter": 1, "word_mismatch_retried": 1, "dropped": {"words changed": 1},
         "texts_without_references": 1, "usage": usage(1)}  # fmt: skip
    line = render_build(r, "t.jsonl")
    assert line.startswith(
        "t.jsonl: 1 reference for 1 text from 1 answer in 1 iteration (kept when seen in more than 0; 1 before "
        "that); 1 answer asked again, 1 dropped, 1 text without a reference; 1 request, "
    )
    r.update(texts=2, iterations=3, texts_without_references=0)
    assert "for 2 texts from 1 answer in 3 iterations" in render_build(r, "t.jsonl")
    assert "0 texts without a reference" in render_build(r, "t.jsonl")


def test_figures_written():
    one, two = SimpleNamespace(charts=["a"]), SimpleNamespace(charts=["a", "b"])
    assert render_written(None, "figs", one) == "1 figure (PDF and PNG) -> figs"
    assert render_written("r.html", "figs", two) == "report -> r.html; 2 figures (PDF and PNG) -> figs"


def test_one_ignored_id():
    side = {"n": 3, "matched": 3, "coverage": 1.0, "unmatched": 0, "unmatched_ids": [], "name": "metric.tsv"}
    cov = {"matched": 3, "partial": True, "left": side, "right": {**side, "name": "human.tsv", "n": 4, "unmatched": 1}}
    assert coverage_text(cov) == "1 id of human.tsv not among the items was ignored"
    cov["right"]["unmatched"] = 2
    assert coverage_text(cov) == "2 ids of human.tsv not among the items were ignored"


@pytest.mark.parametrize("n, words", [(1, "only 1 scored item;"), (2, "only 2 scored items;")])
def test_too_few_scored_items(n, words):
    with pytest.raises(AgreementUndefined, match=words):
        check_agreement([0.1, 0.2][:n], [1.0, 2.0][:n])
