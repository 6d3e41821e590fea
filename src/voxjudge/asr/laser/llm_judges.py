"""LLM judges for LASER.

* Both modes are tasks (``prompts.json``, hashed by content) run by ``voxjudge.llm.label_many``.
* Pair mode: the pairs *our* aligner produced are sent in batches (default 32) with a few-shot
  rubric prompt; the answer schema pins the batch's ids and allows only the rubric's error types.
  The model names the error type; the tier and penalty come from the rubric, in code. Pairs the
  rules settle with certainty (identical, same after the spelling fold, the same number) never
  go to the model unless ``prefilter`` is off.
* Sentence mode (paper-faithful): the model gets both sentences, reasons step by step and lists
  its errors by tier; every listed error is checked against the two sentences (its words must
  occur there, in order) and the score is computed here from the valid ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from voxjudge.asr.laser.align import RubricPair
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import Label, classify
from voxjudge.llm import Item, Judge, LabelOutcome, Request, Task, label_many, load_tasks, planned_requests

CERTAIN = {None, "alternate_spelling", "numerical_phrase"}  # rule labels that need no model


@lru_cache(maxsize=1)
def _shipped_tasks() -> dict[str, Task]:
    text = resources.files("voxjudge.asr.laser").joinpath("prompts.json").read_text(encoding="utf-8")
    return load_tasks(text, "asr/laser/prompts.json")


def pairs_task(rubric: LaserRubric, batch_size: int | None = None) -> Task:
    """The pairs-mode task: the shipped templates, the rubric's error types in the schema."""
    task = _shipped_tasks()["pairs"].with_options(item_schema=pair_item_schema(rubric))
    return task if batch_size is None else task.with_options(batch_size=batch_size)


def sentence_task(rubric: LaserRubric) -> Task:
    return _shipped_tasks()["sentence"].with_options(item_schema=sentence_schema(rubric))


def rubric_text(rubric: LaserRubric, lang: str) -> str:
    lines = []
    for t in rubric.types:
        ex = t.examples.get(lang) or next(iter(t.examples.values()), [])
        shown = "; ".join(f"{a or '∅'} → {b or '∅'}" for a, b in ex[:2])
        lines.append(
            f"- {t.id} ({t.tier}, penalty {rubric.tiers[t.tier]}): {t.description}"
            + (f" e.g. {shown}" if shown else "")
        )
    return "\n".join(lines)


def pair_context(rubric: LaserRubric, lang: str) -> dict[str, str]:
    return {"lang": lang, "rubric": rubric_text(rubric, lang)}


def pair_item(uid: str, ref: str, hyp: str, rubric: LaserRubric, lang: str) -> Item:
    """A word pair as the model sees it, at inference and in fine-tuning exports alike."""
    return Item(uid, {"ref": ref, "hyp": hyp}, context=pair_context(rubric, lang))


def pair_item_schema(rubric: LaserRubric) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "error_type": {"type": "string", "enum": [*rubric.type_ids, "none"]},
            "tier": {"type": "string", "enum": ["match", *rubric.tiers]},
            "reason": {"type": "string"},
        },
        "required": ["error_type", "tier", "reason"],
        "additionalProperties": False,
    }


def training_chat(ref: str, hyp: str, lang: str, error_type: str, rubric: LaserRubric, reason: str = "") -> dict:
    """One fine-tuning row in exactly the prompt format pairs mode sends (a batch of one)."""
    import json

    task = pairs_task(rubric)
    messages = task.render([pair_item("p0", ref, hyp, rubric, lang)])
    tier = "match" if error_type == "none" else rubric.type(error_type).tier
    answer = {"items": [{"id": "p0", "error_type": error_type, "tier": tier, "reason": reason or error_type}]}
    return {
        "messages": [{"role": m.role, "content": m.text_content} for m in messages]
        + [{"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)}],
        "task": task.name,
        "task_hash": task.sha256,
    }


@dataclass
class LLMStats:
    pairs: int = 0
    sent_to_model: int = 0
    settled_by_rules: int = 0
    unscored: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    task: str = ""
    task_hash: str = ""
    stopped: str | None = None
    unscored_reasons: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _split_by_rules(
    items: Sequence[tuple[str, RubricPair, str]], rubric: LaserRubric, prefilter: bool
) -> tuple[list[Label | None], list[Item]]:
    """Labels of the pairs the rules settle with certainty, and the others as task items."""
    out: list[Label | None] = [None] * len(items)
    todo: list[Item] = []
    for k, (_, pair, lang) in enumerate(items):
        rule = classify(pair, lang)
        if prefilter and (pair.op == "equal" or rule.error_type in CERTAIN and rule.label != "major"):
            out[k] = rule
            continue
        todo.append(pair_item(f"p{k}", pair.ref_text, pair.hyp_text, rubric, lang))
    return out, todo


def planned_laser_requests(
    references: Sequence[str],
    hypotheses: Sequence[str],
    ids: Sequence[str],
    rubric: LaserRubric,
    *,
    lang: str | None = None,
    mode: str = "pairs",
    batch_size: int = 32,
    prefilter: bool = True,
) -> list[Request]:
    """The first-round requests a LASER run would send (for a dry run's estimate)."""
    from voxjudge.asr.laser.scoring import align_utterances

    aligned = align_utterances(references, hypotheses, ids, lang)
    if mode == "pairs":
        items = [(uid, p, language) for uid, language, pairs in aligned for p in pairs]
        return planned_requests(pairs_task(rubric, batch_size), _split_by_rules(items, rubric, prefilter)[1])
    todo = [
        sentence_item(uid, r, h, language, rubric) for (uid, language, _), r, h in zip(aligned, references, hypotheses)
    ]
    return planned_requests(sentence_task(rubric), todo)


async def llm_label_pairs(
    judge: Judge,
    items: Sequence[tuple[str, RubricPair, str]],
    rubric: LaserRubric,
    *,
    batch_size: int = 32,
    prefilter: bool = True,
    progress=None,
) -> tuple[list[Label | None], LLMStats]:
    """One label per item; None when the model never gave a usable answer (the pair is
    unscored: no label, no penalty). ``stats.stopped`` says when a budget stopped the run."""
    task = pairs_task(rubric, batch_size)
    stats = LLMStats(pairs=len(items), task=task.name, task_hash=task.sha256)
    out, todo = _split_by_rules(items, rubric, prefilter)
    stats.settled_by_rules = len(items) - len(todo)
    stats.sent_to_model = len(todo)
    outcome = await label_many(judge, task, todo, progress=progress)
    stats.unknown_ids = outcome.unknown_ids
    stats.stopped = outcome.stopped
    for uid, answer in outcome.answers.items():
        etype = answer["error_type"]
        # The penalty follows the rubric's tier for the type the model named; a different tier
        # in its answer is noted, not obeyed (the model labels, the code computes).
        if etype == "none":
            # identical words never reach the model, so "none" means an accepted variant
            tier, etype = "no_penalty", "alternate_spelling"
        else:
            tier = rubric.type(etype).tier
        note = "" if answer["tier"] in (tier, "match") else f" (model said {answer['tier']})"
        out[int(uid[1:])] = Label(tier, etype, f"model: {answer['reason']}{note}")
    stats.unscored = sum(1 for x in out if x is None)
    stats.unscored_reasons = outcome.as_dict()["unscored_reasons"]
    return out, stats


def sentence_schema(rubric: LaserRubric) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "errors": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "ref": {"type": "string"},
                        "hyp": {"type": "string"},
                        "error_type": {"type": "string", "enum": rubric.type_ids},
                    },
                    "required": ["ref", "hyp", "error_type"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["reasoning", "errors"],
        "additionalProperties": False,
    }


def _occurs(phrase: str, words: Sequence[str]) -> bool:
    parts = phrase.split()
    if not parts:
        return True
    n = len(parts)
    return any(list(words[i : i + n]) == parts for i in range(len(words) - n + 1))


def sentence_item(uid: str, ref: str, hyp: str, lang: str, rubric: LaserRubric) -> Item:
    return Item(uid, {"ref": ref, "hyp": hyp}, context=pair_context(rubric, lang))


def check_sentence_answer(
    parsed: dict[str, Any], ref_words: Sequence[str], hyp_words: Sequence[str], rubric: LaserRubric
):
    """Valid listed errors as (ref, hyp, error_type, tier) and the invalid ones with reasons."""
    valid, invalid = [], []
    for e in parsed.get("errors", []):
        if not e["ref"] and not e["hyp"]:
            invalid.append((e, "both sides empty"))
        elif not _occurs(e["ref"], ref_words):
            invalid.append((e, "reference words not in the reference"))
        elif not _occurs(e["hyp"], hyp_words):
            invalid.append((e, "hypothesis words not in the hypothesis"))
        else:
            valid.append((e["ref"], e["hyp"], e["error_type"], rubric.type(e["error_type"]).tier))
    return valid, invalid


async def score_with_llm(
    llm: Judge,
    references: Sequence[str],
    hypotheses: Sequence[str],
    ids: Sequence[str],
    rubric: LaserRubric,
    *,
    lang: str | None = None,
    mode: str = "pairs",
    batch_size: int = 32,
    prefilter: bool = True,
    progress=None,
):
    """LASER with an LLM judge in pair or sentence mode: utterance scores and a run report."""
    from voxjudge.asr.laser.scoring import (
        ScoredPair,
        UtteranceScore,
        align_utterances,
        score_aligned,
        side_by_side_wer,
        words,
    )

    wers = side_by_side_wer(references, hypotheses)
    aligned = align_utterances(references, hypotheses, ids, lang)
    if mode == "pairs":
        items = [(uid, p, lang) for uid, lang, pairs in aligned for p in pairs]
        keys = [(uid, k) for uid, _, pairs in aligned for k in range(len(pairs))]
        labels, stats = await llm_label_pairs(
            llm, items, rubric, batch_size=batch_size, prefilter=prefilter, progress=progress
        )
        placeholder = Label("match", None, "")
        utterances = score_aligned(aligned, {k: lab or placeholder for k, lab in zip(keys, labels)}, rubric, wers)
        by_id = {u.id: u for u in utterances}
        for (uid, k), lab in zip(keys, labels):
            if lab is None:
                # Unscored is a state, not a label: no penalty, and the utterance has no score.
                u = by_id[uid]
                u.pairs[k].label, u.pairs[k].error_type, u.pairs[k].penalty = "unscored", None, 0.0
                u.pairs[k].reason = "unscored: " + (
                    stats.stopped and "the run stopped early" or "no valid model answer"
                )
        for u in utterances:
            if any(p.label == "unscored" for p in u.pairs):
                u.penalty = sum(p.penalty for p in u.pairs)
                u.laser = None
        return utterances, {"llm": stats.as_dict(), "stopped": stats.stopped}
    task = sentence_task(rubric)
    todo = [sentence_item(uid, r, h, lang, rubric) for (uid, lang, _), r, h in zip(aligned, references, hypotheses)]
    outcome: LabelOutcome = await label_many(llm, task, todo, progress=progress)
    from voxjudge.asr.laser.rules import classify

    utterances, invalid_total, unlisted_total = [], 0, 0
    for (uid, lang, pairs), ref, hyp, wer in zip(aligned, references, hypotheses, wers):
        ref_w, hyp_w = words(ref), words(hyp)
        u = UtteranceScore(uid, lang, len(ref_w), wer=wer)
        answer = outcome.answer(uid)
        if answer is None:
            utterances.append(u)  # unscored: laser stays None
            continue
        valid, invalid = check_sentence_answer(answer, ref_w, hyp_w, rubric)
        invalid_total += len(invalid)
        for r, h, etype, tier in valid:
            u.pairs.append(ScoredPair(r, h, "listed", tier, etype, "model (sentence mode)", rubric.tiers[tier]))
            u.penalty += rubric.tiers[tier]
        # A mismatch the model did not list is not waved through: the rules label it.
        listed = {w for r, h, _, _ in valid for w in (r.split() + h.split())}
        for p in pairs:
            if p.op == "equal" or set(p.ref + p.hyp) <= listed:
                continue
            lab = classify(p, lang)
            if lab.label == "match":
                continue
            u.pairs.append(
                ScoredPair(
                    p.ref_text,
                    p.hyp_text,
                    p.op,
                    lab.label,
                    lab.error_type,
                    f"not listed by the model; rules: {lab.reason}",
                    rubric.penalty(lab.label),
                )
            )
            u.penalty += rubric.penalty(lab.label)
            unlisted_total += 1
        u.laser = (1 - u.penalty / u.ref_words) if u.ref_words else None
        utterances.append(u)
    return utterances, {
        "llm": outcome.as_dict(),
        "invalid_listed_errors": invalid_total,
        "unlisted_mismatches": unlisted_total,
        "stopped": outcome.stopped,
    }
