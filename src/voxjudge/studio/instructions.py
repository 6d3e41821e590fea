"""Instructions written for people, per task, from the same rubric data the model judge gets
(dimensions, tiers, error types and their examples, boundary labels, the ACR scale). The model's
own prompt is shown only behind a disclosure on the item page (prompts.model_prompt)."""

from __future__ import annotations

from typing import Any

from voxjudge.studio import prompts, tasks

TIER_MEANING = {
    "major": "changes or loses the meaning",
    "minor": "a visible slip that keeps the meaning",
    "no_penalty": "the same meaning, written another way",
}


def _laser_tiers(lang: str | None = None) -> list[dict[str, Any]]:
    rubric = prompts._laser()
    out = []
    for tier, penalty in sorted(rubric.tiers.items(), key=lambda kv: -kv[1]):
        types = []
        for t in rubric.types:
            if t.tier != tier:
                continue
            examples = t.examples.get(lang or "", []) or t.examples.get("en", []) or next(iter(t.examples.values()), [])
            types.append({"id": t.id, "description": t.description, "examples": [tuple(e) for e in examples[:2]]})
        out.append(
            {
                "tier": tier,
                "label": tier.replace("_", "-"),
                "penalty": penalty,
                "meaning": TIER_MEANING.get(tier, ""),
                "types": types,
            }
        )
    return out


def _dimensions(with_overall: bool) -> list[dict[str, str]]:
    rubric = prompts._prosody()
    dims = [{"id": d.id, "name": d.name, "description": d.description} for d in rubric.dimensions if d.group == "core"]
    if with_overall:
        dims.append(
            {"id": "overall", "name": "overall", "description": "Which clip you would rather hear, all in all."}
        )
    return dims


def for_people(task: str, config: dict[str, Any], *, gold: bool = False, training: bool = False) -> dict[str, Any]:
    """What an annotator reads before the first item and on demand; training clips and checks with a
    known answer are mentioned only when the study has them (``training``, ``gold``)."""
    checks = (
        ["Some items are checks with a known answer; careless answers are left out of the results."]
        if gold and float(config.get("min_gold", 0) or 0) > 0
        else ["Some items are checks with a known answer."]
        if gold
        else []
    )
    common = [
        "Use headphones in a quiet room, at one comfortable volume for the whole session.",
        "If an item is broken (no sound, wrong text), flag it with a note and skip it; someone else gets it.",
        "Your answers are saved on every submit; you can close the page and continue later from your link.",
    ]
    if task == "mos":
        return {
            "title": "Rate the quality of speech clips",
            "summary": "You will hear one short clip at a time. Listen to the whole clip, then rate the quality "
            "of the speech you heard on the five-point scale below (ITU-T P.800 absolute category rating).",
            "steps": [
                "Play the clip to the end; the rating buttons open once it has finished.",
                "Rate the speech quality overall: how natural, clear and free of distortion it sounds. "
                "Do not judge the content of the sentence.",
                *(
                    ["The first clips are training: they show the range of quality you will meet and are not counted."]
                    if training
                    else []
                ),
                *checks,
                *common,
            ],
            "scale": [{"value": v, "label": label} for v, label in tasks.ACR.items()],
            "question": "How would you rate the quality of the speech you heard?",
        }
    if task == "breaks":
        from voxjudge.breaks.builder import LABEL_MEANINGS

        return {
            "title": "Rate phrase breaks",
            "summary": "Each item is a sentence with its prosodic boundaries marked after the words. Rate how "
            "acceptable that phrasing is to you as a native listener, 1 to 5.",
            "steps": ["Read the sentence aloud in your head with breaks where they are marked.", *checks, *common],
            "labels": [{"label": k, "meaning": v} for k, v in LABEL_MEANINGS.items() if k != "NB"],
            "scale": [
                {"value": 1, "label": "clearly wrong"},
                {"value": 2, "label": "wrong"},
                {"value": 3, "label": "possible but odd"},
                {"value": 4, "label": "good"},
                {"value": 5, "label": "natural"},
            ],
        }
    if task == "pairwise":
        return {
            "title": "Compare the prosody of two clips",
            "summary": "Each item is one sentence spoken twice. For each dimension below, choose the clip that "
            "does it better, or tie when you hear no difference. The order of the clips is shuffled for you.",
            "steps": [
                "Listen to both clips fully before answering; play them again as often as you like.",
                *checks,
                *common,
            ],
            "dimensions": _dimensions(True),
        }
    if task == "rank":
        return {
            "title": "Rank the best clips",
            "summary": "Each item is one sentence spoken by several systems. Pick the three best clips, best "
            "first, for overall prosody, judged by the dimensions below.",
            "steps": ["Listen to every clip before picking.", *checks, *common],
            "dimensions": _dimensions(False),
        }
    if task == "asr-pairs":
        return {
            "title": "Classify ASR word errors",
            "summary": "Each item is one reference word (or phrase) and what the recogniser wrote for it. Choose "
            "the error type; its tier decides the penalty. Choose 'none' when both sides are the same word.",
            "steps": [*checks, *common[1:]],
            "tiers": _laser_tiers(),
        }
    return {  # asr-sentence
        "title": "Count ASR errors in a sentence",
        "summary": "Each item is a reference transcript and an ASR hypothesis, aligned word by word; the "
        "differences are highlighted. Count each difference once, by its tier. The score is computed from your "
        "counts (minor 0.5, major 1 penalty per reference word).",
        "steps": [
            "Look at every highlighted difference and decide its tier from the error types below.",
            "A difference the alignment splits in two (e.g. a compound written apart) is still one error.",
            *checks,
            *common[1:],
        ],
        "tiers": _laser_tiers(),
    }
