"""Distillation data from teacher judgments (training itself happens elsewhere, with standard
tools), and the GRPO reward functions as pure functions.

Confidence filters work on teacher *votes* after swap-back, one vote per sampled judgment
(its weighted verdict, or a dimension's verdict with ``--per-dimension``). They are defined on
vote counts, in the four-vote setting of the method (two samples in each order), and need at
least four votes per pair; with n > 4 votes they mean n-0, (n-1)-1 and n-1 plus one abstention:

* ``4-0``: every vote names the same winner;
* ``3-1``: all but one vote name the winner and the odd one out is the other clip or a tie
  (not an abstention);
* ``3+abstain``: all but one vote name the winner, the odd one out being anything, an abstention
  included (the filter the per-dimension teacher uses). Each filter keeps what the stricter
  ones keep.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voxjudge.errors import InputError
from voxjudge.pairwise.data import Pair
from voxjudge.pairwise.protocol import measured_in, sign_verdict
from voxjudge.pairwise.rubric import Rubric
from voxjudge.plural import counted

FILTERS = ("4-0", "3-1", "3+abstain")
CURRICULUM = ("human-vs-tts", "cross-model", "same-model", "unknown")


def record_vote(record: dict[str, Any], weights: dict[str, float], dim: str | None = None) -> str | None:
    """One judgment's vote for clip "A", "B", "tie", or None when it abstained."""
    scores = record["scores"]
    if dim is not None:
        return sign_verdict(scores[dim]["A"] - scores[dim]["B"]) if dim in scores else None
    used = [d for d in scores if d in weights]
    if not used:
        return None
    return sign_verdict(sum(weights[d] * (scores[d]["A"] - scores[d]["B"]) for d in used))


MIN_VOTES = 4


def _votes(records: Sequence[dict[str, Any]], weights: dict[str, float], dim: str | None = None) -> list[str | None]:
    """One vote per sampled judgment; a deterministic judge's record stands for as many identical
    samples as were asked of its order (``stands_for``)."""
    return [v for r in records for v in [record_vote(r, weights, dim)] * int(r.get("stands_for", 1))]


def confident_winner(votes: Sequence[str | None], rule: str) -> str | None:
    """The winner ("A"/"B") when the votes pass ``rule``, else None. Fewer than four votes is an
    ``InputError``: no filter of the method is defined on them."""
    if rule not in FILTERS:
        raise InputError(f"unknown filter {rule!r}; choose one of {', '.join(FILTERS)}")
    n = len(votes)
    if n < MIN_VOTES:
        raise InputError(f"the {rule} filter needs at least {MIN_VOTES} votes, got {n}")
    counts = Counter(votes)
    for winner in ("A", "B"):
        agree = counts[winner]
        if agree == n:
            return winner
        if agree == n - 1:
            odd = next(v for v in votes if v != winner)
            if rule == "3+abstain" or (rule == "3-1" and odd is not None):
                return winner
    return None


def check_votes(by_pair: dict[str, list[dict[str, Any]]], rule: str) -> None:
    """An ``InputError`` naming the pairs with fewer votes (judgments) than the filter needs, or
    without two votes in each presentation order (one order alone is slot bias, not agreement)."""
    per_order = {
        pid: {o: sum(int(r.get("stands_for", 1)) for r in recs if r["first"] == o) for o in ("A", "B")}
        for pid, recs in by_pair.items()
    }
    counts = {pid: sum(n.values()) for pid, n in per_order.items()}
    short = {pid: n for pid, n in counts.items() if n < MIN_VOTES}
    if short:
        named = ", ".join(f"{pid!r} ({n})" for pid, n in list(short.items())[:5])
        more = f" and {len(short) - 5} more" if len(short) > 5 else ""
        raise InputError(
            f"the {rule} filter counts votes and needs at least {MIN_VOTES} judgments per pair "
            f"(two samples in each order); {counted(len(short), 'pair')} have fewer: {named}{more}; "
            f"judge with {{samples}}{MIN_VOTES} or more",
            options={"samples": "samples="},
        )
    one_order = {pid: n for pid, n in per_order.items() if min(n.values()) < MIN_VOTES // 2}
    if one_order:
        pid, n = next(iter(one_order.items()))
        more = f" (and {counted(len(one_order) - 1, 'more pair')})" if len(one_order) > 1 else ""
        raise InputError(
            f"the {rule} filter needs two samples in each presentation order; pair {pid!r} has "
            f"{n['A']} with clip A first and {n['B']} with clip B first{more}; "
            f"judge every pair in both orders, with {{samples}}{MIN_VOTES} or more",
            options={"samples": "samples="},
        )


def curriculum_tag(pair: Pair) -> str:
    a, b = (pair.system_a or "").lower(), (pair.system_b or "").lower()
    if not a or not b:
        return "unknown"
    if "human" in (a, b):
        return "human-vs-tts"
    return "cross-model" if a != b else "same-model"


def _section(dim, rationale: str, s_first: float, s_second: float) -> str:
    return f"{dim.id} ({dim.name}): {rationale.strip()} Scores: first {s_first:.0f}, second {s_second:.0f}."


def build_sft(
    records: Sequence[dict[str, Any]],
    pairs: Sequence[Pair],
    rubric: Rubric,
    rule: str = "4-0",
    *,
    per_dimension: bool = False,
    seed: int = 0,
    audio_base: str | Path | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Chat-format SFT examples (audio paths, per-section loss weights) and a filter report.

    ``audio_base``: the folder the examples will be written to; audio paths are made relative to
    it, so the SFT file works from wherever a trainer reads it (absolute paths without it)."""
    weights = rubric.weights
    by_pair: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        by_pair.setdefault(rec["pair_id"], []).append(rec)
    pair_of = {p.pair_id: p for p in pairs}
    if rule not in FILTERS:
        raise InputError(f"unknown filter {rule!r}; choose one of {', '.join(FILTERS)}")
    unknown = [pid for pid in by_pair if pid not in pair_of]
    if unknown:
        raise InputError(
            f"judgments name pair {unknown[0]!r}, which is not in the pairs file ({len(unknown)} such pairs)"
        )
    check_votes(by_pair, rule)
    # a dimension the judge never measures has no votes: neither confident nor masked
    measured = [d for d in rubric.ids if d in measured_in(records)]
    kept: list[tuple[Pair, str, dict[str, str]]] = []  # pair, overall winner, dim -> winner (confident)
    report: Counter = Counter()
    for pid, recs in by_pair.items():
        # the dimensions whose own votes pass the filter (a tie never does)
        dims = {}
        for d in measured:
            w = confident_winner(_votes(recs, weights, d), rule)
            if w is not None:
                dims[d] = w
        if per_dimension:
            report["pair_dimensions_kept"] += len(dims)
            report["pair_dimensions_masked"] += len(measured) - len(dims)
            if not dims:
                report["pairs_dropped"] += 1
                continue
            overall = max(dims.values(), key=list(dims.values()).count)
        else:
            overall = confident_winner(_votes(recs, weights), rule)
            if overall is None:
                report["pairs_dropped"] += 1
                continue
        kept.append((pair_of[pid], overall, dims))
    # winner balancing: a seeded alternation puts the winner first in half of the examples
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(kept))
    examples = []
    for rank, k in enumerate(order):
        pair, overall, dims = kept[k]
        winner_first = rank % 2 == 0
        first = overall if winner_first else ("B" if overall == "A" else "A")
        ex = _example(pair, first, overall, dims, by_pair[pair.pair_id], rubric, per_dimension, rule)
        ex["audios"] = [_audio_path(p, audio_base) for p in ex["audios"]]
        examples.append(ex)
    examples.sort(key=lambda e: (CURRICULUM.index(e["curriculum"]), e["id"]))
    report["examples"] = len(examples)
    report["winner_first"] = sum(1 for e in examples if e["winner_slot"] == "first")
    report["by_curriculum"] = dict(Counter(e["curriculum"] for e in examples))
    # identical samples (a deterministic teacher's stands_for) are no independent votes
    report["deterministic"] = any(int(r.get("stands_for", 1)) > 1 for r in records)
    return examples, dict(report)


def _audio_path(path: str, base: str | Path | None) -> str:
    absolute = os.path.abspath(path)
    return absolute if base is None else os.path.relpath(absolute, os.path.abspath(base))


# judges whose rationales name the physical clips ("A: ...; B: ...", "clip A wins") rather than
# the presented slots, as the acoustic judge's measurements do
CLIP_NAMED = {"acoustic"}
_CLIP_LABEL = re.compile(r"(?:^|(?<=; ))([AB])(?=: )|\bclip ([AB])\b")


_PARENTHESISED = re.compile(r"(\([^()]*\))")  # "clip B (path/to/clip B.wav)": the path stays as written


def _in_slots(text: str, first: str) -> str:
    """A rationale naming clips A and B, in the terms of the order presented (``first`` first);
    what stands in parentheses (a clip's path) is left as it is."""
    slot = {first: "first", ("B" if first == "A" else "A"): "second"}
    parts = _PARENTHESISED.split(text)  # odd items: the parenthesised parts
    return "".join(
        part if k % 2 else _CLIP_LABEL.sub(lambda m: f"{slot[m[1]]} clip" if m[1] else f"the {slot[m[2]]} clip", part)
        for k, part in enumerate(parts)
    )


def _example(pair, first, overall, dims, recs, rubric, per_dimension, rule) -> dict[str, Any]:
    second = "B" if first == "A" else "A"
    # rationales from a teacher judgment made in the same presentation order (check_votes makes
    # sure there is one): the other order's rationale would describe the slots swapped
    teacher = next(r for r in recs if r["first"] == first)
    rationale = dict(teacher["rationale"])
    if teacher.get("judge") in CLIP_NAMED:
        rationale = {k: _in_slots(v, first) for k, v in rationale.items()}
    means = {
        d: (
            np.mean([r["scores"][d][first] for r in recs if d in r["scores"]]),
            np.mean([r["scores"][d][second] for r in recs if d in r["scores"]]),
        )
        for d in rubric.ids
        if any(d in r["scores"] for r in recs)
    }
    sections = []
    for dim in rubric.dimensions:
        if dim.id not in means:
            continue
        confident = dim.id in dims or not per_dimension  # a whole pair passed: every section trains
        weight = dim.weight if confident else 0.0  # masked: other dimensions stay trainable
        text = _section(dim, rationale.get(dim.id, ""), *means[dim.id])
        sections.append({"name": dim.id, "text": text, "loss_weight": weight})
    if not per_dimension:
        summary = rationale.get("summary", "")
        verdict = "first" if overall == first else "second"
        sections.append(
            {"name": "summary", "text": f"Summary: {summary}".strip(), "loss_weight": rubric.section_weights["summary"]}
        )
        sections.append(
            {
                "name": "conclusion",
                "text": f"Conclusion: the {verdict} clip has better prosody.",
                "loss_weight": rubric.section_weights["conclusion"],
            }
        )
    prompt = f"Text: {pair.text}\nFirst clip: <audio>\nSecond clip: <audio>\nJudge the prosody of both clips."
    return {
        "id": pair.pair_id,
        "curriculum": curriculum_tag(pair),
        "filter": rule,
        "messages": [
            {"role": "system", "content": rubric.prompts["system"]},
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": "\n".join(s["text"] for s in sections)},
        ],
        "audios": [
            str(pair.audio_a if first == "A" else pair.audio_b),
            str(pair.audio_b if first == "A" else pair.audio_a),
        ],
        "sections": sections,
        "winner_slot": "first" if overall == first else "second",
        "confident_dimensions": sorted(dims),
    }


# ---- GRPO rewards ------------------------------------------------------------------------------


def verdict_reward(predicted: str | None, target: str) -> float:
    """The coupled judge's reward: +1 when its overall verdict matches the target, else -1."""
    return 1.0 if predicted is not None and predicted == target else -1.0


def dimension_rewards(predicted: dict[str, str | None], target: dict[str, str]) -> dict[str, float]:
    """Per confident dimension: +1 for the target verdict, -1 otherwise (a missing one included)."""
    return {d: verdict_reward(predicted.get(d), t) for d, t in target.items()}


def group_advantages(rewards: Sequence[float], eps: float = 1e-8) -> np.ndarray:
    """Rewards normalised across a rollout group; zero when every rollout got the same reward."""
    r = np.asarray(rewards, dtype=float)
    sd = r.std()
    return np.zeros_like(r) if sd < eps else (r - r.mean()) / sd


def span_local_advantages(rewards: np.ndarray, mask: Sequence[bool] | None = None, eps: float = 1e-8) -> np.ndarray:
    """Span-local GRPO: rewards (rollouts x dimensions) normalised per dimension across the group.

    A dimension whose rollouts all agree gets zero advantage (no gradient for that span), as does
    a masked (non-confident) dimension; one dimension's reward never offsets another's.
    """
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 2:
        raise ValueError("rewards must be rollouts x dimensions")
    out = np.zeros_like(r)
    for d in range(r.shape[1]):
        if mask is not None and not mask[d]:
            continue
        out[:, d] = group_advantages(r[:, d], eps)
    return out
