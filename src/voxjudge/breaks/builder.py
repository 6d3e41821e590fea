"""Building a reference table with an LLM (LMRE): few-shot prompting over many iterations.

Per iteration: draw ``n_fs`` demonstrations from the expert pool (seeded, a different draw each
iteration, so even temperature 0 yields diverse phrasings), send the texts in batches (default
32), parse each answer, and check that its words are exactly the input words. A changed text is
asked for once more on its own with the words spelled out, then dropped and counted. After all
iterations a phrasing is kept only if it was produced in more than ``min_count`` iterations
(default ``n_iter / 10``). Every call goes through the Judge, so a rerun is served from the cache
and an interrupted build resumes.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from voxjudge.breaks.annotation import Annotation, cleaned, parse_inline
from voxjudge.breaks.labels import LabelSet
from voxjudge.breaks.table import ReferenceTable, TableEntry
from voxjudge.errors import InputError
from voxjudge.llm import Item, Judge, Request, Task, label_many, load_tasks, planned_requests
from voxjudge.llm.advice import FAILED, reason_kind
from voxjudge.plural import counted

LABEL_MEANINGS = {
    "NB": "no boundary (leave the juncture untagged)",
    "AP": "accent phrase boundary: a minor prosodic break",
    "IP": "intonation phrase boundary: a major break, often with a pause",
    "SB": "sentence boundary: the end of the sentence",
}
WORDS_CHANGED = "the annotation changed, added or dropped words"


@lru_cache(maxsize=1)
def build_task() -> Task:
    text = resources.files("voxjudge.breaks").joinpath("prompts.json").read_text(encoding="utf-8")
    return load_tasks(text, "breaks/prompts.json")["build"]


@dataclass
class BuildConfig:
    n_iter: int = 20
    n_fs: int | None = None  # default: half the pool
    batch_size: int = 32
    min_count: float | None = None  # default: n_iter / 10
    seed: int = 0
    temperature: float = 0.0
    max_tokens_per_item: int = 200

    def __post_init__(self) -> None:
        if self.n_iter < 1:
            raise InputError("{n_iter} must be at least 1", options={"n_iter": "n_iter"})
        if self.batch_size < 1:
            raise InputError("{batch_size} must be at least 1", options={"batch_size": "batch_size"})
        if self.n_fs is not None and self.n_fs < 0:
            raise InputError("{n_fs} must be 0 or more", options={"n_fs": "n_fs"})
        # nan compares false with everything: "more than nan" would keep no phrasing at all
        if self.min_count is not None and not (math.isfinite(self.min_count) and self.min_count >= 0):
            raise InputError(
                f"{{min_count}} must be a number 0 or more, not {self.min_count!r}", options={"min_count": "min_count"}
            )

    def resolved_n_fs(self, pool_size: int) -> int:
        """Demonstrations per prompt: half the pool by default; more than the pool is refused
        (drawing fewer than asked while recording the number asked would misstate the run)."""
        if self.n_fs is None:
            return pool_size // 2
        if self.n_fs > pool_size:
            raise InputError(
                f"{{n_fs}} is {self.n_fs} but the pool holds {counted(pool_size, 'annotation')}; ask for at most "
                f"{pool_size}",
                options={"n_fs": "n_fs"},
            )
        return self.n_fs

    def resolved_min_count(self) -> float:
        return self.n_iter / 10 if self.min_count is None else self.min_count


@dataclass
class BuildReport:
    texts: int = 0
    iterations: int = 0
    answers: int = 0
    word_mismatch_retried: int = 0
    dropped: Counter = field(default_factory=Counter)
    references_before_filter: int = 0
    references_kept: int = 0
    texts_without_references: list[str] = field(default_factory=list)
    min_count: float = 0.0
    unscored: int = 0  # (text, iteration) answers never obtained: no valid answer or not asked
    stopped: str | None = None  # why the build stopped early (--max-cost), else None
    task: str = ""
    task_hash: str = ""
    settings: dict[str, Any] = field(default_factory=dict)  # what was run: judge, task, policy

    def as_dict(self) -> dict[str, Any]:
        return {
            "texts": self.texts,
            "iterations": self.iterations,
            "answers": self.answers,
            "word_mismatch_retried": self.word_mismatch_retried,
            "dropped": dict(self.dropped),
            "references_before_filter": self.references_before_filter,
            "references_kept": self.references_kept,
            "min_count": self.min_count,
            "texts_without_references": len(self.texts_without_references),
            "unscored": self.unscored,
            "stopped": self.stopped,
            "task": self.task,
            "task_hash": self.task_hash,
            "settings": self.settings,
        }


def prompt_context(labelset: LabelSet, demos: Sequence[Annotation]) -> dict[str, str]:
    """The trusted values of the build task's templates: the label set and the demonstrations."""
    tags = "\n".join(f"- <{lab}>: {LABEL_MEANINGS.get(lab, 'boundary label ' + lab)}" for lab in labelset.labels[1:])
    shown = "\n".join(d.inline(labelset) for d in demos)
    return {
        "tags": tags,
        "none": labelset.none,
        "end": labelset.end,
        "examples": f"Annotated examples:\n{shown}\n\n" if shown else "",
    }


def item_schema(words: Sequence[str] | None = None, labelset: LabelSet | None = None) -> dict[str, Any]:
    """``{"annotation": string}``; with ``words`` the string is pinned by a pattern that allows only
    those words in order, one optional tag between each pair and the final tag (for judges that
    decode with a grammar: word changes become impossible instead of being retried)."""
    annotation: dict[str, Any] = {"type": "string"}
    if words is not None:
        labelset = labelset or LabelSet()
        tag = "(?: <(?:" + "|".join(re.escape(lab) for lab in labelset.labels[1:]) + ")>)?"
        pinned = (tag + " ").join(re.escape(w) for w in words) + f" <{re.escape(labelset.end)}>"
        annotation["pattern"] = "^" + pinned + "$"
    return {
        "type": "object",
        "properties": {"annotation": annotation},
        "required": ["annotation"],
        "additionalProperties": False,
    }


def _demos(pool: Sequence[Annotation], n_fs: int, seed: int, iteration: int) -> list[Annotation]:
    if n_fs == 0 or not pool:
        return []
    rng = np.random.default_rng([seed, iteration])
    picks = rng.choice(len(pool), size=min(n_fs, len(pool)), replace=False)
    return [pool[int(k)] for k in sorted(picks)]


_TAG_LIKE = re.compile(r"<[^<>\s]*>")


def plain_text(text: str, labelset: LabelSet) -> Annotation:
    """A text to annotate as an untagged annotation: its words, to be preserved. Texts are plain
    (the answers add the tags), so a tag-like token is refused rather than read as a boundary:
    an answer could never reproduce it as a word."""
    tag = _TAG_LIKE.search(text)
    if tag:
        raise InputError(f"a text to annotate holds {tag.group()!r}, which reads as a boundary tag; give plain text")
    words = text.split()
    try:
        return cleaned(words, [labelset.none] * len(words), labelset)
    except InputError:  # punctuation only
        raise InputError(f"text {text!r} has no words to annotate") from None


def prepare_texts(texts: Sequence[tuple[str, str]], labelset: LabelSet) -> list[tuple[str, tuple[str, Annotation]]]:
    """``(item id, (text, untagged annotation))``; untagged texts give the words to preserve."""
    out, seen = [], {}
    for uid, text in texts:
        try:
            ann = plain_text(text, labelset)
        except InputError as e:
            raise InputError(f"text {uid}: {e}") from None
        if ann.text_key in seen:
            continue  # one entry per distinct text
        seen[ann.text_key] = uid
        out.append((uid, (text, ann)))
    if not out:
        raise InputError("no texts to annotate")
    return out


def _items(items, labelset: LabelSet, pinned: bool) -> list[Item]:
    """Texts as task items; with a constrained decoder each text's words are pinned in its schema."""
    return [
        Item(uid, {"text": text}, schema=item_schema(ann.words, labelset) if pinned else None)
        for uid, (text, ann) in items
    ]


def _task(config: BuildConfig) -> Task:
    return build_task().with_options(
        batch_size=config.batch_size,
        temperature=config.temperature,
        seed=config.seed,
        max_tokens_per_item=config.max_tokens_per_item,
    )


def planned_build_requests(items, pool, labelset: LabelSet, config: BuildConfig, pinned: bool = False) -> list[Request]:
    """Every first-round request of a build (for --dry-run estimates)."""
    n_fs = config.resolved_n_fs(len(pool))
    task, todo = _task(config), _items(items, labelset, pinned)
    out: list[Request] = []
    for it in range(config.n_iter):
        out += planned_requests(task, todo, prompt_context(labelset, _demos(pool, n_fs, config.seed, it)))
    return out


async def build_references(
    judge: Judge,
    texts: Sequence[tuple[str, str]],
    pool: Sequence[Annotation],
    config: BuildConfig,
    labelset: LabelSet | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[ReferenceTable, BuildReport]:
    labelset = labelset or LabelSet()
    items = prepare_texts(texts, labelset)
    n_fs = config.resolved_n_fs(len(pool))
    task = _task(config)
    # A decoder that enforces the schema can be held to each text's words: one text per request.
    todo = _items(items, labelset, judge.capabilities.constrained)
    wanted = {uid: ann for uid, (_, ann) in items}
    report = BuildReport(texts=len(items), iterations=config.n_iter, min_count=config.resolved_min_count())
    report.task, report.task_hash = task.name, task.sha256
    report.settings = {
        "judge": judge.spec.full_name,
        "base_url": judge.spec.base_url,
        "task": task.label,
        "n_iter": config.n_iter,
        "n_fs": n_fs,
        "batch_size": config.batch_size,
        "seed": config.seed,
        "temperature": config.temperature,
        "min_count": report.min_count,
        "words_pinned": judge.capabilities.constrained,
    }
    table = ReferenceTable(labelset)
    done = 0
    total = len(items) * config.n_iter

    def checker() -> Callable[[Item, Any], str | None]:
        rejected: set[str] = set()  # count an item's first rejection only, not its repair's

        def check(item: Item, answer: Any) -> str | None:
            if _checked(answer.get("annotation", ""), wanted[item.id], labelset) is not None:
                return None
            if item.id not in rejected:
                rejected.add(item.id)
                report.word_mismatch_retried += 1
            return WORDS_CHANGED

        return check

    def tick(k: int, n: int) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    async def one_iteration(it: int) -> list[Annotation]:
        """This iteration's accepted annotations, in text order (added to the table afterwards,
        in iteration order, so the table does not depend on which call finished first)."""
        context = prompt_context(labelset, _demos(pool, n_fs, config.seed, it))
        outcome = await label_many(judge, task, todo, context=context, check=checker(), progress=tick)
        report.stopped = report.stopped or outcome.stopped
        for reason in outcome.unscored.values():
            report.unscored += 1
            if WORDS_CHANGED in reason:
                report.dropped["words changed"] += 1
            elif reason_kind(reason) == FAILED:  # no answer at all: a rerun asks again
                report.dropped["call failed"] += 1
            elif not reason.startswith("not asked"):
                report.dropped["no valid answer"] += 1
        answers = outcome.answers
        return [_checked(answers[uid]["annotation"], wanted[uid], labelset) for uid, _ in items if uid in answers]

    results = await asyncio.gather(*(one_iteration(it) for it in range(config.n_iter)))
    for it, accepted_annotations in enumerate(results):
        report.answers += len(accepted_annotations)
        for ann in accepted_annotations:
            table.add(ann, generator=judge.spec.full_name, iteration=f"{judge.spec.full_name}#{it}")
    report.references_before_filter = table.reference_count
    kept = table.filtered(report.min_count)
    report.references_kept = kept.reference_count
    report.texts_without_references = kept.empty_texts()
    for _, (_, ann) in items:  # texts that never got a valid answer are listed too, empty
        if ann.text_key not in kept.entries:
            kept.entries[ann.text_key] = TableEntry(ann.text_key, ann.key_words)
            report.texts_without_references.append(ann.text_key)
    return kept, report


def _checked(text: str, wanted: Annotation, labelset: LabelSet) -> Annotation | None:
    """The answer as an annotation of exactly the wanted words, or None."""
    try:
        ann = parse_inline(text, labelset)
    except InputError:
        return None
    if ann.key_words != wanted.key_words:
        return None
    return ann
