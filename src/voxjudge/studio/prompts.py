"""What the model judge is told for an item (shown to annotators only behind a disclosure), and the
shared rubric lookups the people's instructions are built from."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=4)
def _laser():
    from voxjudge.asr.laser import LaserRubric

    return LaserRubric.load()


@lru_cache(maxsize=4)
def _prosody():
    from voxjudge.pairwise.rubric import Rubric

    return Rubric.default()


def model_prompt(task: str, payload: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) messages as the model judge gets them for this item (audio parts left out),
    rendered by the evaluator's own task templates."""
    from voxjudge.llm import Item

    if task == "mos":  # no model judge rates MOS clips
        return []
    if task in ("asr-sentence", "asr-pairs"):
        from voxjudge.asr.laser import judge_prompt

        mode = "sentence" if task == "asr-sentence" else "pairs"
        messages = judge_prompt(payload["ref"], payload["hyp"], payload["lang"], _laser(), mode=mode)
    elif task == "breaks":
        from voxjudge.breaks.builder import build_task, prompt_context
        from voxjudge.breaks.labels import LabelSet

        item = Item("item", {"text": " ".join(payload["words"])})
        messages = build_task().render([item], context=prompt_context(LabelSet(), []))
    else:  # pairwise and rank: the coupled prompt over the core dimensions the annotator answers
        from voxjudge.pairwise.judges import prosody_task

        rubric = _prosody().select(_prosody().core)
        messages = prosody_task(rubric, "coupled").render([Item("item", {"text": payload["text"]})])
    return [(m.role, m.text_content) for m in messages]


def error_types() -> list[dict[str, Any]]:
    r = _laser()
    return [{"id": t.id, "tier": t.tier, "description": t.description} for t in r.types]


def dimension_names() -> dict[str, str]:
    r = _prosody()
    return {**{d.id: d.name for d in r.dimensions}, "overall": "overall"}


def aligned(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The reference and hypothesis aligned word by word (the scorer's own alignment), one column
    per aligned pair; ``op`` is equal, substitute, delete or insert."""
    from voxjudge.asr.laser import align_utterance

    _lang, pairs = align_utterance(payload["ref"], payload["hyp"], payload["lang"])
    return [{"ref": " ".join(p.ref), "hyp": " ".join(p.hyp), "op": p.op} for p in pairs]
