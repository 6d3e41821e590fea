"""``laser_calibrated``: the figure fitted to people, beside the rubric score (never instead of it).

    laser_calibrated = clip(intercept + rubric * sqrt(1 - laser) + meaning * sqrt(semdist), 0, 1)

on the raters' scale (a mean rating of 0-5 read as 0-1). ``laser`` is the rubric score, ``semdist``
the semantic distance between the sentences (1 - cosine of their embeddings, ``asr.semdist``).
The square roots make the first errors cost the most, as people rate them (one wrong word in ten
is far from "nine tenths as good"). A model fitted without an embedder has no ``meaning`` term;
one fitted with an embedder applies only with that embedder (its spec is part of the model).

Fitted on sentence ratings and A/B preference triplets together (``fit``): the ratings' squared
error (per language, over the variance of its ratings) plus, for the triplets, the logistic loss
of the difference between the two hypotheses' figures against the side most people chose. Case
and punctuation were tried as a third term and left out: out of fold they lowered the English
correlation (see docs/laser.md); they are reported as a figure of their own (``format_errors``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from voxjudge.errors import InputError

RUBRIC_ONLY = "none"  # the embedder key of a model fitted without meaning
# what is fitted to people is named as such wherever it appears (a row, a column, a heading)
FITTED = "fitted to people"
LABEL = f"laser_calibrated ({FITTED})"


@dataclass(frozen=True)
class PeopleModel:
    intercept: float
    rubric: float  # weight of sqrt(1 - laser)
    meaning: float = 0.0  # weight of sqrt(semdist)
    embedder: str = RUBRIC_ONLY  # the embedder spec whose distances were fitted ("none": no meaning term)
    # the server those distances came from (an HTTP embedder's base URL); None: in-process, or not recorded.
    # A model of the same name on another server may be another model: the model is for this one.
    server: str | None = None

    @property
    def uses_meaning(self) -> bool:
        return self.embedder != RUBRIC_ONLY

    def __call__(self, laser: float | None, semdist: float | None = None) -> float | None:
        """The fitted figure, or None when ``laser`` is None (or, for a meaning model, ``semdist``)."""
        if laser is None or (self.uses_meaning and semdist is None):
            return None
        z = self.intercept + self.rubric * math.sqrt(max(0.0, 1.0 - laser))
        if self.uses_meaning:
            z += self.meaning * math.sqrt(max(0.0, semdist))  # type: ignore[arg-type]
        return min(1.0, max(0.0, z))

    def describe(self) -> str:
        terms = "the rubric score and semantic distance" if self.uses_meaning else "the rubric score"
        via = f" ({self.embedder})" if self.uses_meaning else ""
        return f"{FITTED} from {terms}{via}"

    def as_dict(self) -> dict:
        out = asdict(self)
        if out["server"] is None:  # (files fitted with an in-process embedder stay as they were)
            del out["server"]
        return out


def features(laser: np.ndarray, semdist: np.ndarray | None) -> np.ndarray:
    cols = [np.sqrt(np.maximum(0.0, 1.0 - laser))]
    if semdist is not None:
        cols.append(np.sqrt(np.maximum(0.0, semdist)))
    return np.column_stack(cols)


@dataclass
class RatingSet:
    """One language's rated hypotheses: rubric scores, distances (or None) and mean ratings on 0-1."""

    laser: np.ndarray
    semdist: np.ndarray | None
    human: np.ndarray


@dataclass
class PreferenceSet:
    """Triplets: both hypotheses' rubric scores and distances, and the votes for each."""

    laser_a: np.ndarray
    laser_b: np.ndarray
    semdist_a: np.ndarray | None
    semdist_b: np.ndarray | None
    votes_a: np.ndarray
    votes_b: np.ndarray


def fit(ratings: Sequence[RatingSet], preferences: Sequence[PreferenceSet], embedder: str = RUBRIC_ONLY) -> PeopleModel:
    """The model minimising the ratings' normalised squared error plus the preferences' logistic
    loss (a convex problem; L-BFGS from the rubric score's own direction)."""
    from scipy.optimize import minimize

    meaning = embedder != RUBRIC_ONLY
    rated = []
    for r in ratings:
        ok = ~np.isnan(r.laser) & (~np.isnan(r.semdist) if meaning else True)
        if ok.sum() >= 3 and r.human[ok].var() > 0:
            rated.append((features(r.laser[ok], r.semdist[ok] if meaning else None), r.human[ok], r.human[ok].var()))
    diffs = []
    for p in preferences:
        fa = features(p.laser_a, p.semdist_a if meaning else None)
        fb = features(p.laser_b, p.semdist_b if meaning else None)
        side = np.sign(p.votes_a - p.votes_b)
        ok = (side != 0) & ~np.isnan(fa).any(axis=1) & ~np.isnan(fb).any(axis=1)
        if ok.any():
            diffs.append(((fa - fb)[ok], side[ok]))
    if not rated and not diffs:
        raise InputError("fitting laser_calibrated needs rated sentences or preference triplets with scores")
    k = 1 + meaning

    def loss(theta: np.ndarray) -> float:
        b, w, scale = theta[0], theta[1 : 1 + k], theta[-1]
        total = 0.0
        if rated:
            total += float(np.mean([np.mean((b + x @ w - y) ** 2) / v for x, y, v in rated]))
        for d, side in diffs:
            total += float(np.mean(np.logaddexp(0.0, -side * scale * (d @ w))))
        return total

    start = np.zeros(k + 2)
    start[0], start[1], start[-1] = 1.0, -1.0, 5.0
    theta = minimize(loss, start, method="L-BFGS-B").x
    return PeopleModel(
        float(theta[0]), float(theta[1]), float(theta[2]) if meaning else 0.0, embedder if meaning else RUBRIC_ONLY
    )


def load_models(data: dict, where: str = "calibration") -> dict[str, PeopleModel]:
    """Models by embedder spec from a calibration file's ``people`` section (``where``: the file,
    for the message); each checked: finite numbers, and the key its own embedder."""
    try:
        models = {key: PeopleModel(**value) for key, value in data.items()}
    except (TypeError, AttributeError):
        raise InputError(f"{where}: not a voxjudge LASER calibration: its 'people' models are malformed") from None
    for key, m in models.items():
        numbers = (m.intercept, m.rubric, m.meaning)
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in numbers):
            raise InputError(f"{where}: people.{key}: intercept, rubric and meaning must be finite numbers")
        if m.server is not None and not isinstance(m.server, str):
            raise InputError(f"{where}: people.{key}: server must be the embedding server's URL")
        if m.embedder != key:
            raise InputError(f"{where}: people.{key} says it was fitted with the embedder {m.embedder!r}")
        if key == RUBRIC_ONLY and m.meaning != 0:
            raise InputError(f"{where}: people.{key} has no embedder, so its meaning weight must be 0")
    return models


def model_for(models: dict[str, PeopleModel], embedder: str | None) -> PeopleModel | None:
    """The model for ``embedder`` (None: the rubric-only one); None when none was fitted for it."""
    return models.get(embedder or RUBRIC_ONLY)
