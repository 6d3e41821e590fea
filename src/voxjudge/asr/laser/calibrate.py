"""Fitting LASER to people from files: the tiers' calibration and ``laser_calibrated``'s models
(``calibration.py`` holds the fitting; this module reads the files, runs the judge and, with an
embedder, the semantic distances, and writes the calibration file ``asr score`` reads)."""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from voxjudge.asr.laser import calibration as C
from voxjudge.asr.laser.calibration_file import NOTICE, as_json, shipped_data
from voxjudge.asr.laser.judges import rules_labeler_for
from voxjudge.asr.laser.learned import file_sha256
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.errors import InputError


def train_files(
    ratings: str | Path | None,
    preferences: str | Path | None,
    rubric: LaserRubric,
    *,
    cv: int = 0,
    seed: int = 0,
    embedder: str | None = None,
    embedder_base_url: str | None = None,
    options=None,
    lang: str | None = None,
    rating_scale: float = C.RATING_SCALE,
) -> tuple[str, dict]:
    """Fit on sentence ratings and/or preference triplets: (calibration file text, report). With an
    ``embedder`` spec (``default``, ``openai/<model>`` ...; ``options``: a ``JudgeOptions`` for its
    cache and limits), ``laser_calibrated`` gets a model with meaning for it too; ``cv`` folds
    give the out-of-fold report of the whole procedure. ``lang``: the language of the triplets
    (default: detected from their references) and of rating rows without a ``lang`` column;
    ``rating_scale``: the ratings' top (0 is the bottom)."""
    from voxjudge.asr.semdist import distances_for
    from voxjudge.llm.options import embedder_spec, open_embedder

    embedder = embedder_spec(embedder)  # "none": no embedder
    if not ratings and not preferences:
        raise InputError("calibration needs sentence ratings, preference triplets, or both")
    rows, hats = read_sets(ratings, preferences, lang, rating_scale)
    model = open_embedder(embedder, base_url=embedder_base_url, options=options) if embedder else None
    try:
        distances = distances_for(model) if model is not None else None
        task_list = C.tasks(rows, hats, rubric, rules_labeler_for(rubric), distances)
    finally:
        if model is not None:
            model.close()
    spec = model.spec if model is not None else None
    cals, models = C.fit(task_list, rubric, spec)
    if model is not None:  # the server its distances came from is part of the model
        server = model.endpoint()
        models = {k: replace(m, server=server) if m.uses_meaning else m for k, m in models.items()}
    meta = {
        "rubric_sha256": rubric.sha256,
        "ratings_sha256": file_sha256(ratings) if ratings else None,
        "preferences_sha256": file_sha256(preferences) if preferences else None,
        "sets": [t.name for t in task_list],  # names carry the languages: ratings-en, hats-fr, ...
        "notice": _notice(ratings, preferences),
    }
    report: dict[str, Any] = {
        "calibrations": {k: asdict(v) for k, v in sorted(cals.items())},
        "people": {k: v.as_dict() for k, v in sorted(models.items())},
    }
    if cv:
        report["cv"] = C.cross_validate(task_list, rubric, folds=cv, seed=seed, embedder=spec)
    return as_json(cals, models, meta), report


def read_sets(ratings, preferences, lang: str | None = None, rating_scale: float = C.RATING_SCALE) -> tuple[list, list]:
    """(rating rows, triplet rows) as ``calibration.tasks`` takes them; the triplets' language is
    ``lang``, else detected from their references (HATS: French)."""
    from voxjudge.asr.laser.lang import detect_language

    rows = C.read_ratings(ratings, lang=lang, scale=rating_scale) if ratings else []
    hats = C.read_hats(preferences) if preferences else []
    hats_lang = lang or (detect_language(" ".join(h["reference"] for h in hats)) if hats else None)
    if hats_lang == "und":
        raise InputError(
            f"{preferences}: cannot tell the triplets' language from their references; give {{lang}}",
            options={"lang": "lang="},
        )
    return rows, [{**h, "lang": hats_lang} for h in hats]


def embedded_pairs(ratings, preferences, lang: str | None = None, rating_scale: float = C.RATING_SCALE):
    """(references, hypotheses): the pairs whose SemDist ``train_files`` takes with an embedder
    (``calibration.tasks``: each rating, each side of each triplet), for its dry run."""
    rows, hats = read_sets(ratings, preferences, lang, rating_scale)
    pairs = [(r["ref"], r["hyp"]) for r in rows] + [(h["reference"], h[s]) for s in ("hyp_a", "hyp_b") for h in hats]
    return [ref for ref, _ in pairs], [hyp for _, hyp in pairs]


def _notice(ratings, preferences) -> str:
    """The shipped data's licence notice when both shipped sets were used (the shipped file's),
    else the names of the files it was fitted on."""
    shipped = shipped_data()
    given = [p for p in (ratings, preferences) if p]
    if ratings and preferences and all(file_sha256(a) == file_sha256(b) for a, b in zip(given, shipped)):
        return NOTICE
    return "Calibrated on " + " and ".join(Path(p).name for p in given) + "."
