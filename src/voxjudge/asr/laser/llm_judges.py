"""LLM judges for LASER.

* Both modes are tasks (``prompts.json``, hashed by content) run by ``voxjudge.llm.label_many``.
* Pair mode: the pairs *our* aligner produced are sent in batches (default 32) with a few-shot
  rubric prompt; the answer schema pins the batch's ids and allows only the rubric's error types.
  The model names the error type; the tier and penalty come from the rubric, in code. Pairs the
  rules settle with certainty (identical, same after the spelling fold, the same number) never
  go to the model unless ``prefilter`` is off. A batch holds the pairs of one utterance only, so
  text in one utterance cannot relabel another's pairs (the stats give the request cost).
* Sentence mode (paper-faithful): the model gets both sentences and our aligned pairs with ids,
  reasons step by step and lists its errors *by pair id*; each pair counts once, a pair it did
  not list is labelled by the rules, and the score is computed here.
* Both modes: an error type must fit the pair's operation (an insertion is an addition, a
  deletion an omission, a swap a reordering, unless the rules justify otherwise); a label that
  breaks this is replaced by the rules' and flagged ``disputed``, and a label that contradicts a
  confident rule is kept but flagged ``disputed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any

from voxjudge.asr.laser.align import RubricPair
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import Label, classify
from voxjudge.llm import Item, Judge, LabelOutcome, Request, Task, label_many, load_tasks, planned_requests

CERTAIN = {None, "alternate_spelling", "numerical_phrase"}  # rule labels that need no model
ALLOWED_BY_OP = {"insert": {"addition"}, "delete": {"omission"}, "swap": {"reordering"}}
_OP_NAMES = {"insert": "an insertion", "delete": "a deletion", "swap": "a swap of adjacent words"}


def reconcile(pair: RubricPair, lang: str, model: Label, rule: Label | None = None) -> Label:
    """A model's label checked against the pair's operation and the rules (see the module doc)."""
    from voxjudge.asr.laser.learned import settled_by_rules

    rule = rule or classify(pair, lang)
    allowed = ALLOWED_BY_OP.get(pair.op)
    if allowed is not None and model.error_type not in allowed and model.error_type != rule.error_type:
        return Label(
            rule.label,
            rule.error_type,
            f"model said {model.error_type}, which {_OP_NAMES[pair.op]} cannot be; rules: {rule.reason}",
            disputed=True,
        )
    if model.label != rule.label and settled_by_rules(pair, rule, lang):
        return replace(model, reason=f"{model.reason} (disputed: rules say {rule.label}, {rule.reason})", disputed=True)
    return model


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


def judge_prompt(ref: str, hyp: str, lang: str, rubric: LaserRubric, *, mode: str = "pairs", uid: str = "item"):
    """The messages an LLM judge is sent for one item, rendered by the shipped templates: in pairs
    mode ``ref`` and ``hyp`` are one word pair (a batch of one); in sentence mode, one utterance
    with the pairs our aligner made of it."""
    if mode == "sentence":
        from voxjudge.asr.laser.utterances import align_utterance

        lang, pairs = align_utterance(ref, hyp, lang)
        return sentence_task(rubric).render([sentence_item(uid, ref, hyp, lang, rubric, pairs)])
    return pairs_task(rubric).render([pair_item(uid, ref, hyp, rubric, lang)])


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
    messages = judge_prompt(ref, hyp, lang, rubric, uid="p0")
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
    requests: int = 0  # first-round requests: one utterance's pairs per batch
    requests_if_shared: int = 0  # what batches mixing utterances would have cost
    disputed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _split_by_rules(
    items: Sequence[tuple[str, RubricPair, str]], rubric: LaserRubric, prefilter: bool
) -> tuple[list[Label | None], list[Label], list[Item]]:
    """Labels of the pairs the rules settle with certainty, every pair's rule label, and the
    others as task items, each batched only with pairs of its own utterance."""
    out: list[Label | None] = [None] * len(items)
    rules: list[Label] = []
    todo: list[Item] = []
    for k, (uid, pair, lang) in enumerate(items):
        rule = classify(pair, lang)
        rules.append(rule)
        if prefilter and (pair.op == "equal" or rule.error_type in CERTAIN and rule.label != "major"):
            out[k] = rule
            continue
        item = pair_item(f"p{k}", pair.ref_text, pair.hyp_text, rubric, lang)
        # the utterance id in the context keeps each batch inside one utterance (it is not shown)
        todo.append(replace(item, context={**(item.context or {}), "utterance": uid}))
    return out, rules, todo


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
    from voxjudge.asr.laser.utterances import align_utterances

    aligned = align_utterances(references, hypotheses, ids, lang)
    if mode == "pairs":
        items = [(uid, p, language) for uid, language, pairs in aligned for p in pairs]
        return planned_requests(pairs_task(rubric, batch_size), _split_by_rules(items, rubric, prefilter)[2])
    todo = [
        sentence_item(uid, r, h, language, rubric, pairs)
        for (uid, language, pairs), r, h in zip(aligned, references, hypotheses)
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
    unscored: no label, no penalty). ``stats.stopped`` says when a budget stopped the run.
    Items carry their utterance id first: pairs of different utterances never share a request."""
    from voxjudge.llm.label import plan_batches

    task = pairs_task(rubric, batch_size)
    stats = LLMStats(pairs=len(items), task=task.name, task_hash=task.sha256)
    out, rules, todo = _split_by_rules(items, rubric, prefilter)
    stats.settled_by_rules = len(items) - len(todo)
    stats.sent_to_model = len(todo)
    stats.requests = len(plan_batches(task, todo))
    stats.requests_if_shared = len(
        plan_batches(
            task, [replace(it, context={k: v for k, v in it.context.items() if k != "utterance"}) for it in todo]
        )
    )
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
        k = int(uid[1:])
        _, pair, lang = items[k]
        out[k] = reconcile(pair, lang, Label(tier, etype, f"model: {answer['reason']}{note}"), rules[k])
    stats.unscored = sum(1 for x in out if x is None)
    stats.disputed = sum(1 for x in out if x is not None and x.disputed)
    stats.unscored_reasons = outcome.as_dict()["unscored_reasons"]
    return out, stats


def sentence_schema(rubric: LaserRubric, pair_ids: Sequence[str] | None = None) -> dict[str, Any]:
    """Listed errors name an aligned pair by id (pinned to the utterance's ids when given)."""
    pair = {"type": "string", "enum": list(pair_ids)} if pair_ids is not None else {"type": "string"}
    return {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "errors": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"pair": pair, "error_type": {"type": "string", "enum": rubric.type_ids}},
                    "required": ["pair", "error_type"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["reasoning", "errors"],
        "additionalProperties": False,
    }


def sentence_item(uid: str, ref: str, hyp: str, lang: str, rubric: LaserRubric, pairs: Sequence[RubricPair]) -> Item:
    """One utterance: both sentences and its differing aligned pairs with ids (p<index>)."""
    shown = [{"id": f"p{k}", "ref": p.ref_text, "hyp": p.hyp_text} for k, p in enumerate(pairs) if p.op != "equal"]
    return Item(
        uid,
        {"ref": ref, "hyp": hyp, "pairs": shown},
        schema=sentence_schema(rubric, [x["id"] for x in shown]),
        context=pair_context(rubric, lang),
    )


def check_sentence_answer(parsed: dict[str, Any], pairs: Sequence[RubricPair], rubric: LaserRubric):
    """The listed errors as {pair index: error type}, each pair once, and the rejected entries
    with reasons (unknown or matching pairs, repeats)."""
    listed: dict[int, str] = {}
    invalid = []
    for e in parsed.get("errors", []):
        pid = str(e.get("pair", ""))
        k = int(pid[1:]) if pid[:1] == "p" and pid[1:].isdigit() else -1
        if not 0 <= k < len(pairs):
            invalid.append((e, "no such pair"))
        elif pairs[k].op == "equal":
            invalid.append((e, "the pair is the same word"))
        elif k in listed:
            invalid.append((e, "pair listed again"))
        else:
            rubric.type(e["error_type"])
            listed[k] = e["error_type"]
    return listed, invalid


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
    from voxjudge.asr.laser.scoring import score_aligned, side_by_side_wer, word_edits
    from voxjudge.asr.laser.utterances import align_utterances

    wers, edits = side_by_side_wer(references, hypotheses), word_edits(references, hypotheses)
    aligned = align_utterances(references, hypotheses, ids, lang)
    if mode == "pairs":
        items = [(uid, p, lang) for uid, lang, pairs in aligned for p in pairs]
        keys = [(uid, k) for uid, _, pairs in aligned for k in range(len(pairs))]
        labels, stats = await llm_label_pairs(
            llm, items, rubric, batch_size=batch_size, prefilter=prefilter, progress=progress
        )
        placeholder = Label("match", None, "")
        table = {k: lab or placeholder for k, lab in zip(keys, labels)}
        utterances = score_aligned(aligned, table, rubric, wers, edits)
        by_id = {u.id: u for u in utterances}
        aligned_pairs = {uid: pairs for uid, _, pairs in aligned}
        for (uid, k), lab in zip(keys, labels):
            if lab is None:
                # Unscored is a state, not a label: no penalty, and the utterance has no score.
                u = by_id[uid]
                pair = aligned_pairs[uid][k]
                u.format_errors -= pair.ref != pair.hyp  # the placeholder "match" counted it as one
                u.pairs[k].label, u.pairs[k].error_type, u.pairs[k].penalty = "unscored", None, 0.0
                u.pairs[k].reason = "unscored: " + (
                    stats.stopped and "the run stopped early" or "no valid model answer"
                )
        for u in utterances:
            missing = [p for p in u.pairs if p.label == "unscored"]
            if missing:
                u.penalty = sum(p.penalty for p in u.pairs)
                u.laser = None
                u.unscored = missing[0].reason[len("unscored: ") :]  # the pairs say which
        return utterances, {"llm": stats.as_dict(), "stopped": stats.stopped}
    task = sentence_task(rubric)
    todo = [
        sentence_item(uid, r, h, lang, rubric, pairs)
        for (uid, lang, pairs), r, h in zip(aligned, references, hypotheses)
        if any(p.op != "equal" for p in pairs)
    ]
    outcome: LabelOutcome = await label_many(llm, task, todo, progress=progress)
    sent = {it.id for it in todo}
    table: dict[tuple[str, int], Label] = {}
    unscored_ids, invalid_total, unlisted_total, disputed = set(), 0, 0, 0
    for uid, lang, pairs in aligned:
        answer = outcome.answer(uid) if uid in sent else {"errors": []}
        if answer is None:
            unscored_ids.add(uid)
            listed: dict[int, str] = {}
        else:
            listed, invalid = check_sentence_answer(answer, pairs, rubric)
            invalid_total += len(invalid)
        for k, p in enumerate(pairs):
            rule = classify(p, lang)
            if k in listed:
                etype = listed[k]
                lab = reconcile(p, lang, Label(rubric.type(etype).tier, etype, "model (sentence mode)"), rule)
                disputed += lab.disputed
            elif p.op == "equal":
                lab = rule
            else:
                # A mismatch the model did not list is not waved through: the rules label it.
                lab = replace(rule, reason=f"not listed by the model; rules: {rule.reason}")
                unlisted_total += answer is not None
            table[(uid, k)] = lab
    utterances = score_aligned(aligned, table, rubric, wers, edits)
    for u in utterances:
        if u.id in unscored_ids:
            u.laser = None  # no valid answer for this utterance: unscored, not guessed
            u.unscored = "no valid model answer" if not outcome.stopped else "the run stopped early"
    return utterances, {
        "llm": {**outcome.as_dict(), "disputed": disputed},
        "invalid_listed_errors": invalid_total,
        "unlisted_mismatches": unlisted_total,
        "stopped": outcome.stopped,
    }
