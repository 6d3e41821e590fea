"""The instructions an annotator reads: the same rubric text the model judge is sent for the item."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

HUMAN_NOTES = {
    "asr-sentence": "Count the errors the way the model is asked to list them: each mismatch once, by its tier. "
    "The LASER score is computed from your counts (minor 0.5, major 1.0 per reference word).",
    "asr-pairs": "Choose the error type of this one aligned word pair; the penalty follows from its tier.",
    "breaks": "Rate how acceptable this phrasing is, as a native listener: 1 = clearly wrong, 3 = possible but "
    "odd, 5 = natural. The model that builds reference phrasings gets the instructions below.",
    "pairwise": "For every dimension choose the clip with the better prosody, or tie. Clip order is shuffled for "
    "you; listen to both before answering.",
    "rank": "Pick the three best clips in order (best first) for overall prosody, using the dimensions below.",
}


@lru_cache(maxsize=4)
def _laser():
    from voxjudge.asr.laser import LaserRubric

    return LaserRubric.load()


@lru_cache(maxsize=4)
def _prosody():
    from voxjudge.pairwise.rubric import Rubric

    return Rubric.default()


def model_prompt(task: str, payload: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) messages as the model judge gets them for this item (audio parts left out)."""
    if task == "asr-sentence":
        from voxjudge.asr.laser.llm_judges import sentence_request

        req = sentence_request(payload["ref"], payload["hyp"], payload["lang"], _laser())
        return [(m.role, m.text_content) for m in req.messages]
    if task == "asr-pairs":
        from voxjudge.asr.laser.llm_judges import _system  # the pair judge's system prompt, verbatim

        return [("system", _system(_laser(), payload["lang"]))]
    if task == "breaks":
        from voxjudge.breaks.builder import system_prompt
        from voxjudge.breaks.labels import LabelSet

        return [("system", system_prompt(LabelSet()))]
    r = _prosody()
    dims = "\n".join(f"- {d.id} {d.name}: {d.description}" for d in r.dimensions if d.id in r.core)
    user = r.prompts["coupled"].format(text=payload["text"], low=r.low, high=r.high, dimensions=dims)
    return [("system", r.prompts["system"]), ("user", user)]


def error_types() -> list[dict[str, Any]]:
    r = _laser()
    return [{"id": t.id, "tier": t.tier, "description": t.description} for t in r.types]


def dimension_names() -> dict[str, str]:
    r = _prosody()
    return {**{d.id: d.name for d in r.dimensions}, "overall": "overall"}
