"""The offline pair judges by name: ``default`` (rules + the shipped learned model where one
exists for the pair's language), ``rules`` (pure rules) and ``model:PATH`` (rules + a model you
trained). LLM judges are built elsewhere (``llm_judges.py``)."""

from __future__ import annotations

from voxjudge.asr.laser.learned import hybrid_labeler, load_model, shipped_model_path
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import Label, classify

DEFAULT = "default"


def rules_labeler_for(rubric: LaserRubric | None = None):
    """The rules judge under ``rubric``'s annotator conventions (the shipped rubric's by default)."""
    cache: dict = {}

    def conv(lang: str):
        if rubric is None:
            return None
        if lang not in cache:
            cache[lang] = rubric.conventions(lang)
        return cache[lang]

    def label(items) -> list[Label]:
        return [classify(pair, lang, conv(lang)) for _, pair, lang in items]

    return label


def is_offline(spec: str | None) -> bool:
    return spec in (None, DEFAULT, "rules") or str(spec).startswith("model:")


def offline_labeler(spec: str | None, rubric: LaserRubric, *, allow_rubric_mismatch: bool = False):
    """(labeler, description) for an offline judge spec."""
    if spec == "rules":
        return rules_labeler_for(rubric), "rules"
    if spec in (None, DEFAULT):
        path = shipped_model_path("hi")
        if path is None:  # a trimmed install without the model: the rules still work
            return rules_labeler_for(rubric), "rules"
        model = load_model(path, rubric, allow_rubric_mismatch=allow_rubric_mismatch)
        return hybrid_labeler(model, rubric), f"rules + learned model ({model.lang})"
    path = str(spec)[len("model:") :]
    model = load_model(path, rubric, allow_rubric_mismatch=allow_rubric_mismatch)
    return hybrid_labeler(model, rubric), f"rules + learned model {path} ({model.lang})"
