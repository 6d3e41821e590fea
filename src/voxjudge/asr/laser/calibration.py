"""Learning the evidence calibration from people: sentence ratings and A/B preferences.

What is learned, one calibration pooled over every set and used for every language: the tiers and
thresholds that turn phonetic/orthographic evidence and speech phenomena into rubric tiers
(``conventions.Calibration``): is a pair pronounced alike no penalty or minor, from which phoneme
and character similarity a pair is at most minor (and whether "nearly alike" is minor or still
major), and the tiers of fillers, repetitions and partial words. The rubric's tiers stay the
labels and the penalties (0, 0.5, 1); only which tier a pair gets is fitted. Then, under those
tiers, the figure fitted to people beside the score (``people.py``: ``laser_calibrated``), once
without meaning and once per embedder whose semantic distances were given.

Sets: ``asr_sentence_ratings_train.csv`` (objective: Pearson of LASER with the mean rating, per
language, folds grouped by ``utterance``) and ``hats_pairs_train.tsv`` (French; objective:
agreement with the people's choice on triplets of certitude >= 70%, ties counting as
disagreement, folds grouped by ``reference``). Each utterance is aligned and classified once; a
calibration only re-tiers the pairs that evidence or a speech flag decided (``Label.evidence``),
so a grid search costs array arithmetic.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from voxjudge.asr.laser import people
from voxjudge.asr.laser.calibration_file import POOLED
from voxjudge.asr.laser.lang_conventions import Calibration
from voxjudge.asr.laser.people import RUBRIC_ONLY, PeopleModel, PreferenceSet, RatingSet
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import Label
from voxjudge.asr.preference import triplet_side
from voxjudge.errors import InputError

GRID = {
    "homophone": ("no_penalty", "minor"),
    "homophone_word": ("no_penalty", "minor", "major"),
    "near": ("minor", "major"),
    "near_sound": (0.6, 0.7, 0.8, 0.9),
    "near_look": (0.6, 0.7, 0.8, 0.9, 1.01),
    "filler": ("no_penalty", "minor"),
    "repetition": ("no_penalty", "minor"),
    "partial": ("minor", "major"),
}
_SPEECH = {"filler": "filler", "repetition": "repetition", "partial_word": "partial"}


def grid(base: Calibration | None = None, space: dict | None = None) -> list[Calibration]:
    """Every calibration of ``space`` (the tiers' grid by default), other fields from ``base``."""
    space = GRID if space is None else space
    keys = list(space)
    base = base or Calibration()
    return [replace(base, **dict(zip(keys, values))) for values in itertools.product(*(space[k] for k in keys))]


# ---- data ---------------------------------------------------------------------------------------

RATING_SCALE = 5.0  # the sentence ratings' scale (0-5); laser_calibrated reads it as 0-1


def read_ratings(path: str | Path, *, lang: str | None = None, scale: float = RATING_SCALE) -> list[dict[str, Any]]:
    """Sentence ratings as the fit reads them: ``{lang, utterance, ref, hyp, human_mean}`` per row,
    ``human_mean`` on the 0-5 scale. The file is read and checked by ``asr.ratings.read_ratings``
    (one clear line for a bad cell, invalid UTF-8, no rows); columns ``utterance`` (the folds'
    groups) and ``human_mean`` (the raters' mean, on ``0..scale``) are required, ``lang`` too
    unless ``lang`` names the language of rows without one. A rating outside ``0..scale`` is an
    error: a file on another scale would otherwise be fitted as if it were 0-5."""
    from voxjudge.asr.ratings import read_ratings as read_rated

    if not 0 < scale < float("inf"):
        raise InputError(f"the ratings' scale must be a number above 0 (got {scale})")
    rated = read_rated(path, column="human_mean", group_column="utterance")
    rows = []
    for r in rated:
        row_lang = r.lang or lang
        if not row_lang:
            raise InputError(
                f"{path}: rating {r.id!r} has no language: give the file a lang column, or {{lang}}",
                options={"lang": "lang="},
            )
        if not 0.0 <= r.score <= scale:
            raise InputError(
                f"{path}: rating {r.id!r} has human_mean {r.score:g}, outside 0-{scale:g}; "
                "give the ratings' scale ({rating_scale})",
                options={"rating_scale": "rating_scale="},
            )
        score = r.score if scale == RATING_SCALE else r.score * RATING_SCALE / scale
        rows.append(
            {
                "id": r.id,
                "lang": row_lang,
                "utterance": r.group,
                "ref": r.reference,
                "hyp": r.hypothesis,
                "human_mean": score,
            }
        )
    return rows


def read_hats(path: str | Path, *, lang: str = "fr") -> list[dict[str, Any]]:
    """Preference triplets as the fit reads them: ``{reference, hyp_a, votes_a, hyp_b, votes_b,
    lang}`` per triplet, read and checked by ``asr.preference.read_preferences``; ``lang`` is the
    triplets' language (HATS is French)."""
    from voxjudge.asr.preference import read_preferences

    return [
        {
            "reference": p.reference,
            "hyp_a": p.hyp_a,
            "votes_a": p.votes_a,
            "hyp_b": p.hyp_b,
            "votes_b": p.votes_b,
            "lang": lang,
            "line": p.line,
        }
        for p in read_preferences(path)
    ]


# ---- prepared utterances --------------------------------------------------------------------------


@dataclass
class Prepared:
    """Utterances aligned and classified once: fixed penalty per utterance plus the pairs a
    calibration re-tiers (evidence as arrays; speech flags by kind)."""

    ref_words: np.ndarray
    fixed: np.ndarray  # penalty of the pairs no calibration changes
    owner: np.ndarray  # utterance of each evidence pair
    sound: np.ndarray
    look: np.ndarray
    function: np.ndarray
    shortest: np.ndarray
    words: np.ndarray
    speech_owner: np.ndarray
    speech_kind: list[str]
    # per-pair weights (None: 1): a Prepared over a weighted subset of the pairs scores
    # 1 - sum(weight * penalty) / reference words (word-pair features of ``evidence_terms``)
    weight: np.ndarray | None = None
    speech_weight: np.ndarray | None = None

    def scores(self, cal: Calibration, tiers: dict[str, float]) -> np.ndarray:
        """Utterance scores under ``cal``: what ``rules.classify`` gives."""
        pen = self.fixed.copy()
        if len(self.owner):
            major, near = tiers["major"], tiers[cal.near]
            extra = np.full(len(self.owner), major)
            ok = self.shortest >= cal.min_chars
            lenient = ok & ~self.function
            extra[lenient & (self.look >= cal.near_look)] = near
            extra[lenient & (self.sound >= cal.near_sound)] = near
            alike = ok & (self.sound >= 1.0)
            tier = np.where(self.words, tiers[cal.homophone_word], tiers[cal.homophone])
            extra[alike] = np.where(self.function, major, tier)[alike]
            np.add.at(pen, self.owner, extra if self.weight is None else extra * self.weight)
        if len(self.speech_owner):
            sp = np.array([tiers[getattr(cal, k)] for k in self.speech_kind])
            np.add.at(pen, self.speech_owner, sp if self.speech_weight is None else sp * self.speech_weight)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.ref_words > 0, np.maximum(0.0, 1 - pen / np.maximum(self.ref_words, 1)), np.nan)


def prepare(refs: Sequence[str], hyps: Sequence[str], lang: str, rubric: LaserRubric, labeler) -> Prepared:
    return build(*label_utterances(refs, hyps, lang, labeler), rubric)


def label_utterances(refs: Sequence[str], hyps: Sequence[str], lang: str, labeler) -> tuple[list, list[Label]]:
    """The utterances aligned (``align_utterances``) and their pairs' labels, in order."""
    from voxjudge.asr.laser.utterances import align_utterances

    aligned = align_utterances(refs, hyps, [str(k) for k in range(len(refs))], lang)
    items = [(uid, p, language) for uid, language, pairs in aligned for p in pairs]
    return aligned, labeler(items)


def build(
    aligned: list, labels: list[Label], rubric: LaserRubric, weigh: Callable[[Any, Label, str], float] | None = None
) -> Prepared:
    """``Prepared`` from labelled utterances; ``weigh(pair, label, lang)`` (None: every pair 1)
    weights each pair's penalty (0 leaves it out)."""
    ref_words = np.array([sum(len(p.ref) for p in pairs) for _, _, pairs in aligned], dtype=float)
    fixed = np.zeros(len(aligned))
    owner, facts, speech_owner, speech_kind, weights, speech_weights = [], [], [], [], [], []
    k = 0
    for u, (_, language, pairs) in enumerate(aligned):
        for p in pairs:
            lab = labels[k]
            k += 1
            w = 1.0 if weigh is None else float(weigh(p, lab, language))
            if lab.evidence is not None:
                owner.append(u)
                facts.append(lab.evidence)
                weights.append(w)
            elif lab.error_type in _SPEECH:
                speech_owner.append(u)
                speech_kind.append(_SPEECH[lab.error_type])
                speech_weights.append(w)
            else:
                fixed[u] += w * rubric.penalty(lab.label)
    f = np.array(facts, dtype=float).reshape(-1, 5)
    return Prepared(
        ref_words,
        fixed,
        np.array(owner, dtype=np.intp),
        f[:, 0],
        f[:, 1],
        f[:, 2].astype(bool),
        f[:, 3],
        f[:, 4].astype(bool),
        np.array(speech_owner, dtype=np.intp),
        speech_kind,
        None if weigh is None else np.array(weights, dtype=float),
        None if weigh is None else np.array(speech_weights, dtype=float),
    )


# ---- objectives ---------------------------------------------------------------------------------


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    ok = ~np.isnan(x)
    x, y = x[ok], y[ok]
    if len(x) < 3 or x.std() == 0 or y.std() == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1])


def preference_agreement(sa: np.ndarray, sb: np.ndarray, va: np.ndarray, vb: np.ndarray, certitude: float) -> float:
    """Share of triplets (majority share >= certitude) where the metric prefers the people's
    choice; ties (votes or scores) count as disagreement."""
    share = np.maximum(va, vb) / np.maximum(va + vb, 1)
    keep = share >= certitude - 1e-9
    if not keep.any():
        return float("nan")
    agree = (va != vb) & (sa != sb) & ((sa > sb) == (va > vb))
    return float(agree[keep].mean())


# ---- fitting ------------------------------------------------------------------------------------


@dataclass
class Task:
    """One human set for one language: prepared utterances and how to score a calibration.
    ``parts``: ('ratings', Prepared, human 0-1, semdist or None) or
    ('hats', PreparedA, PreparedB, votes_a, votes_b, semdist_a or None, semdist_b or None)."""

    name: str
    lang: str
    groups: np.ndarray
    parts: tuple

    def objective(self, cal: Calibration, tiers: dict[str, float], rows: np.ndarray | None = None) -> float:
        if self.parts[0] == "ratings":
            prep, human = self.parts[1], self.parts[2]
            s = prep.scores(cal, tiers)
            return pearson(s if rows is None else s[rows], human if rows is None else human[rows])
        pa, pb, va, vb = self.parts[1:5]
        sa, sb = pa.scores(cal, tiers), pb.scores(cal, tiers)
        if rows is not None:
            sa, sb, va, vb = sa[rows], sb[rows], va[rows], vb[rows]
        return preference_agreement(sa, sb, va, vb, 0.7)


Distances = Callable[..., np.ndarray]  # (refs, hyps) -> semdist per pair; see ``_distances`` for names


def tasks(
    ratings: list[dict[str, str]],
    hats: list[dict[str, str]],
    rubric: LaserRubric,
    labeler,
    distances: Distances | None = None,
) -> list[Task]:
    """The human sets as tasks; with ``distances``, each hypothesis's semantic distance beside it."""
    out = []
    for lang in sorted({r["lang"] for r in ratings}):
        rs = [r for r in ratings if r["lang"] == lang]
        refs, hyps = [r["ref"] for r in rs], [r["hyp"] for r in rs]
        prep = prepare(refs, hyps, lang, rubric, labeler)
        human = np.array([float(r["human_mean"]) for r in rs]) / RATING_SCALE
        named = [f"rating {r.get('id', k + 1)}" for k, r in enumerate(rs)]
        sd = _distances(distances, refs, hyps, named) if distances else None
        out.append(Task(f"ratings-{lang}", lang, _codes([r["utterance"] for r in rs]), ("ratings", prep, human, sd)))
    if hats:
        lang = hats_lang(hats)
        refs = [r["reference"] for r in hats]
        ha, hb = [r["hyp_a"] for r in hats], [r["hyp_b"] for r in hats]
        pa, pb = prepare(refs, ha, lang, rubric, labeler), prepare(refs, hb, lang, rubric, labeler)
        va = np.array([int(r["votes_a"]) for r in hats])
        vb = np.array([int(r["votes_b"]) for r in hats])
        sda = sdb = None
        if distances:
            sda, sdb = (
                _distances(distances, refs, h, [triplet_side(k, r.get("line"), side) for k, r in enumerate(hats, 1)])
                for h, side in ((ha, "hyp_a"), (hb, "hyp_b"))
            )
        out.append(Task(f"hats-{lang}", lang, _codes(refs), ("hats", pa, pb, va, vb, sda, sdb)))
    return out


def _distances(distances: Distances, refs, hyps, names: list[str]) -> np.ndarray:
    """``distances`` of the pairs, given the rows' names when it takes them (``distances_for``'s
    does, for its messages; a caller's (refs, hyps) function still works)."""
    return distances(refs, hyps, names) if getattr(distances, "takes_names", False) else distances(refs, hyps)


def hats_lang(hats: Sequence[dict]) -> str:
    """The triplets' language (``read_hats``' ``lang``; French for rows made without one)."""
    return hats[0].get("lang", "fr")


def _codes(groups: Sequence[str]) -> np.ndarray:
    index = {g: k for k, g in enumerate(dict.fromkeys(groups))}
    return np.array([index[g] for g in groups])


def best(task_list: Sequence[Task], rubric: LaserRubric, rows: Sequence | None = None) -> Calibration:
    """The tiers' calibration with the best mean objective over the tasks (on ties the first wins:
    the grid lists the rubric's defaults first)."""
    tiers = {**rubric.tiers, "match": 0.0}
    rows = rows or [None] * len(task_list)
    found, top = None, -np.inf
    for cal in grid():
        value = float(np.mean([t.objective(cal, tiers, r) for t, r in zip(task_list, rows)]))
        if value > top + 1e-12:
            found, top = cal, value
    return found  # type: ignore[return-value]


def fit_people(
    task_list: Sequence[Task],
    cal: Calibration,
    rubric: LaserRubric,
    rows: Sequence | None = None,
    embedder: str = RUBRIC_ONLY,
) -> PeopleModel:
    """``laser_calibrated``'s model under ``cal``'s tiers, on the given rows of each task."""
    tiers = {**rubric.tiers, "match": 0.0}
    rows = rows or [None] * len(task_list)
    meaning = embedder != RUBRIC_ONLY
    ratings, prefs = [], []
    for t, r in zip(task_list, rows):
        sel = slice(None) if r is None else r
        if t.parts[0] == "ratings":
            _, prep, human, sd = t.parts
            ratings.append(RatingSet(prep.scores(cal, tiers)[sel], sd[sel] if meaning else None, human[sel]))
        else:
            _, pa, pb, va, vb, sda, sdb = t.parts
            prefs.append(
                PreferenceSet(
                    pa.scores(cal, tiers)[sel],
                    pb.scores(cal, tiers)[sel],
                    sda[sel] if meaning else None,
                    sdb[sel] if meaning else None,
                    va[sel],
                    vb[sel],
                )
            )
    return people.fit(ratings, prefs, embedder)


def folds_of(groups: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Fold per row: unique groups shuffled and dealt round-robin."""
    unique = np.unique(groups)
    order = np.random.default_rng(seed).permutation(len(unique))
    fold = np.empty(len(unique), dtype=int)
    fold[order] = np.arange(len(unique)) % k
    return fold[np.searchsorted(unique, groups)]


def _has_meaning(task_list: Sequence[Task]) -> bool:
    return bool(task_list) and all(t.parts[-1] is not None for t in task_list)


def fit(
    task_list: Sequence[Task], rubric: LaserRubric, embedder: str | None = None
) -> tuple[dict[str, Calibration], dict[str, PeopleModel]]:
    """One tiers' calibration pooled over every set, for every language (out of fold it did as
    well as one per language, and better on HATS); under it, ``laser_calibrated``'s model without
    meaning and, when the tasks carry distances, the one for ``embedder``."""
    cal = best(task_list, rubric)
    models = {RUBRIC_ONLY: fit_people(task_list, cal, rubric)}
    if embedder and _has_meaning(task_list):
        models[embedder] = fit_people(task_list, cal, rubric, embedder=embedder)
    return {POOLED: cal}, models


def out_of_fold(
    task_list: Sequence[Task], rubric: LaserRubric, *, folds: int = 5, seed: int = 0, embedder: str | None = None
) -> dict[str, dict[str, tuple]]:
    """Per task, the held-out scores of everything fitted (tiers, then the models of
    ``laser_calibrated``) on the other sets whole and this set's other folds (grouped by utterance
    or by reference): ``laser``, ``rubric_only`` and, with distances, ``meaning``; one array per
    side (ratings: one; triplets: A and B)."""
    tiers = {**rubric.tiers, "match": 0.0}
    meaning = embedder if embedder and _has_meaning(task_list) else None
    found: dict[str, dict[str, tuple]] = {}
    for t in task_list:
        fold = folds_of(t.groups, folds, seed)
        others = [o for o in task_list if o is not t]
        n, sides = len(fold), _sides(t)
        cols = {k: tuple(np.full(n, np.nan) for _ in sides) for k in ("laser", "rubric_only", "meaning")}
        for f in np.unique(fold):
            train, test = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
            rows = [None] * len(others) + [train]
            cal = best([*others, t], rubric, rows)
            m0 = fit_people([*others, t], cal, rubric, rows)
            m1 = fit_people([*others, t], cal, rubric, rows, embedder=meaning) if meaning else None
            for side, prep, sd in sides:
                s = prep.scores(cal, tiers)[test]
                cols["laser"][side][test] = s
                cols["rubric_only"][side][test] = [m0(x) for x in s]
                if m1 is not None:
                    cols["meaning"][side][test] = [m1(x, d) for x, d in zip(s, sd[test])]
        if not meaning:
            del cols["meaning"]
        found[t.name] = cols
    return found


def cross_validate(
    task_list: Sequence[Task], rubric: LaserRubric, *, folds: int = 5, seed: int = 0, embedder: str | None = None
) -> dict:
    """``out_of_fold``'s figures per task (Pearson with the ratings, agreement with the triplets'
    choices at certitude 100%, 70% and all), beside the rubric's defaults (fitted on nothing) and,
    with distances, SemDist alone."""
    tiers = {**rubric.tiers, "match": 0.0}
    oof = out_of_fold(task_list, rubric, folds=folds, seed=seed, embedder=embedder)
    report: dict[str, Any] = {}
    for t in task_list:
        cols = oof[t.name]
        entry = {
            "laser": _summary(t, cols["laser"]),
            "laser_calibrated": _summary(t, cols["rubric_only"]),
            "defaults": _summary(t, _defaults(t, tiers)),
            "folds": folds,
            "seed": seed,
            "grouped_by": "utterance" if t.parts[0] == "ratings" else "reference",
        }
        if "meaning" in cols:
            entry["laser_calibrated_with_meaning"] = _summary(t, cols["meaning"])
            entry["semdist"] = _summary(t, _semdist_scores(t))
        report[t.name] = entry
    return report


def _sides(t: Task):
    if t.parts[0] == "ratings":
        return [(0, t.parts[1], t.parts[3])]
    return [(0, t.parts[1], t.parts[5]), (1, t.parts[2], t.parts[6])]


def _defaults(t: Task, tiers) -> tuple:
    return tuple(prep.scores(Calibration(), tiers) for _, prep, _ in _sides(t))


def _semdist_scores(t: Task) -> tuple:
    return tuple(1.0 - sd for _, _, sd in _sides(t))


def _summary(t: Task, scores: tuple) -> dict:
    if t.parts[0] == "ratings":
        return {"pearson": pearson(np.asarray(scores[0], dtype=float), t.parts[2])}
    va, vb = t.parts[3], t.parts[4]
    return {f"agreement_{int(c * 100)}": preference_agreement(scores[0], scores[1], va, vb, c) for c in (1.0, 0.7, 0.0)}


# ---- the shipped file -----------------------------------------------------------------------------


__all__ = [
    "Calibration",
    "cross_validate",
    "fit",
    "read_hats",
    "read_ratings",
    "tasks",
]
