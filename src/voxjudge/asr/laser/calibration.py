"""Learning the evidence calibration from people: sentence ratings and A/B preferences.

What is learned, one calibration pooled over every set and used for every language: the tiers and
thresholds that turn phonetic/orthographic evidence and speech phenomena into rubric tiers
(``conventions.Calibration``): is a pair pronounced alike no penalty or minor, from which phoneme
and character similarity a pair is at most minor (and whether "nearly alike" is minor or still
major), and the tiers of fillers, repetitions and partial words. The rubric's tiers stay the
labels; only which tier a pair gets is fitted.

Sets: ``asr_sentence_ratings_train.csv`` (objective: Pearson of LASER with the mean rating, per
language, folds grouped by ``utterance``) and ``hats_pairs_train.tsv`` (French; objective:
agreement with the people's choice on triplets of certitude >= 70%, ties counting as
disagreement, folds grouped by ``reference``). Each utterance is aligned and classified once; a
calibration only re-tiers the pairs that evidence or a speech flag decided (``Label.evidence``),
so a grid search costs array arithmetic.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from voxjudge.asr.laser.conventions import Calibration
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import PENALISED, Label, pair_edits
from voxjudge.errors import InputError

FORMAT = "voxjudge-laser-calibration-1"
POOLED = "*"
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
# the graded part (``rules.residual``), fitted after the tiers: per character edit of a penalised
# pair, per case/punctuation edit of a pair that matches apart from them; powers of two so that
# penalties add exactly in any order (the streamed and the whole-file scores stay byte-identical)
GRADED = {
    "edit": (0.0, 2**-10, 2**-8, 2**-6, 2**-4),
    "surface": (0.0, 2**-5, 2**-4, 2**-3, 2**-2, 3 * 2**-3),
}
# the raters' curve, fitted last on the ratings (preferences compare two hypotheses of one
# reference, which no monotone map reorders): k of rated(s) = (e^(k s) - 1) / (e^k - 1)
CURVES = tuple(k / 2 for k in range(13))
NOTICE = (
    "Calibrated on asr_sentence_ratings_train.csv (asr-metric-evaluation, MIT licence, "
    "LICENSE-asr-metric-evaluation.txt) and hats_pairs_train.tsv (HATS, metric-evaluator, MIT licence, "
    "LICENSE-hats.txt), shipped beside this file."
)
_SPEECH = {"filler": "filler", "repetition": "repetition", "partial_word": "partial"}


def grid(base: Calibration | None = None, space: dict | None = None) -> list[Calibration]:
    """Every calibration of ``space`` (the tiers' grid by default), other fields from ``base``."""
    space = GRID if space is None else space
    keys = list(space)
    base = base or Calibration()
    return [replace(base, **dict(zip(keys, values))) for values in itertools.product(*(space[k] for k in keys))]


def rated(score: float | None, curve: float) -> float | None:
    """The LASER score on the raters' scale: a monotone map of [0, 1] onto itself, concave in the
    errors (with ``curve`` = 3, one wrong word in ten takes 1.0 to 0.73, where the score says
    0.9); ``curve`` 0 leaves the score as it is, None stays None."""
    if score is None or not curve:
        return score
    return math.expm1(curve * score) / math.expm1(curve)


def _rated(scores: np.ndarray, curve: float) -> np.ndarray:
    return np.expm1(curve * scores) / np.expm1(curve) if curve else scores


# ---- data ---------------------------------------------------------------------------------------


def read_ratings(path: str | Path) -> list[dict[str, str]]:
    rows = list(csv.DictReader(open(path, encoding="utf-8", newline="")))
    need = {"lang", "utterance", "ref", "hyp", "human_mean"}
    if not rows or need - set(rows[0]):
        raise InputError(f"{path}: sentence ratings need columns {', '.join(sorted(need))}")
    return rows


def read_hats(path: str | Path) -> list[dict[str, str]]:
    rows = list(csv.DictReader(open(path, encoding="utf-8", newline=""), delimiter="\t"))
    need = {"reference", "hyp_a", "votes_a", "hyp_b", "votes_b"}
    if not rows or need - set(rows[0]):
        raise InputError(f"{path}: preference triplets need columns {', '.join(sorted(need))}")
    return rows


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
    fixed_edits: np.ndarray  # character edits of the fixed pairs that are penalised, per utterance
    surface: np.ndarray  # case/punctuation edits of the pairs that match apart from them, per utterance
    edits: np.ndarray  # character edits of each evidence pair
    speech_edits: np.ndarray  # of each speech pair

    def scores(self, cal: Calibration, tiers: dict[str, float]) -> np.ndarray:
        """Utterance scores under ``cal``: what ``rules.classify`` and ``rules.residual`` give."""
        pen = self.fixed + cal.edit * self.fixed_edits + cal.surface * self.surface
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
            np.add.at(pen, self.owner, extra + cal.edit * self.edits * (extra > 0))
        if len(self.speech_owner):
            extra = np.array([tiers[getattr(cal, k)] for k in self.speech_kind])
            np.add.at(pen, self.speech_owner, extra + cal.edit * self.speech_edits * (extra > 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.ref_words > 0, np.maximum(0.0, 1 - pen / np.maximum(self.ref_words, 1)), np.nan)


def prepare(refs: Sequence[str], hyps: Sequence[str], lang: str, rubric: LaserRubric, labeler) -> Prepared:
    from voxjudge.asr.laser.scoring import align_utterances

    aligned = align_utterances(refs, hyps, [str(k) for k in range(len(refs))], lang)
    items = [(uid, p, language) for uid, language, pairs in aligned for p in pairs]
    labels: list[Label] = labeler(items)
    ref_words = np.array([sum(len(p.ref) for p in pairs) for _, _, pairs in aligned], dtype=float)
    fixed, fixed_edits, surface = np.zeros(len(aligned)), np.zeros(len(aligned)), np.zeros(len(aligned))
    owner, facts, edits, speech_owner, speech_kind, speech_edits = [], [], [], [], [], []
    k = 0
    for u, (_, _, pairs) in enumerate(aligned):
        for p in pairs:
            lab = labels[k]
            k += 1
            chars, written = pair_edits(p) if lab.label != "match" or p.ref != p.hyp else (0, 0)
            if lab.evidence is not None:
                owner.append(u)
                facts.append(lab.evidence)
                edits.append(chars)
            elif lab.error_type in _SPEECH:
                speech_owner.append(u)
                speech_kind.append(_SPEECH[lab.error_type])
                speech_edits.append(chars)
            else:
                fixed[u] += rubric.penalty(lab.label)
                if lab.label in PENALISED:
                    fixed_edits[u] += chars
                elif lab.label == "match":
                    surface[u] += written
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
        fixed_edits,
        surface,
        np.array(edits, dtype=float),
        np.array(speech_edits, dtype=float),
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
    """One human set for one language: prepared utterances and how to score a calibration."""

    name: str
    lang: str
    groups: np.ndarray
    parts: tuple  # ('ratings', Prepared, human) or ('hats', PreparedA, PreparedB, va, vb)

    def objective(self, cal: Calibration, tiers: dict[str, float], rows: np.ndarray | None = None) -> float:
        if self.parts[0] == "ratings":
            _, prep, human = self.parts
            s = prep.scores(cal, tiers)
            return pearson(s if rows is None else s[rows], human if rows is None else human[rows])
        _, pa, pb, va, vb = self.parts
        sa, sb = pa.scores(cal, tiers), pb.scores(cal, tiers)
        if rows is not None:
            sa, sb, va, vb = sa[rows], sb[rows], va[rows], vb[rows]
        return preference_agreement(sa, sb, va, vb, 0.7)


def tasks(ratings: list[dict[str, str]], hats: list[dict[str, str]], rubric: LaserRubric, labeler) -> list[Task]:
    out = []
    for lang in sorted({r["lang"] for r in ratings}):
        rs = [r for r in ratings if r["lang"] == lang]
        prep = prepare([r["ref"] for r in rs], [r["hyp"] for r in rs], lang, rubric, labeler)
        human = np.array([float(r["human_mean"]) for r in rs])
        out.append(Task(f"ratings-{lang}", lang, _codes([r["utterance"] for r in rs]), ("ratings", prep, human)))
    if hats:
        refs = [r["reference"] for r in hats]
        pa = prepare(refs, [r["hyp_a"] for r in hats], "fr", rubric, labeler)
        pb = prepare(refs, [r["hyp_b"] for r in hats], "fr", rubric, labeler)
        va = np.array([int(r["votes_a"]) for r in hats])
        vb = np.array([int(r["votes_b"]) for r in hats])
        out.append(Task("hats-fr", "fr", _codes(refs), ("hats", pa, pb, va, vb)))
    return out


def _codes(groups: Sequence[str]) -> np.ndarray:
    index = {g: k for k, g in enumerate(dict.fromkeys(groups))}
    return np.array([index[g] for g in groups])


def best(task_list: Sequence[Task], rubric: LaserRubric, rows: Sequence | None = None) -> Calibration:
    """The best calibration by mean objective over the tasks, in three steps: the tiers' grid
    (graded part off), then the graded part's grid under those tiers, then the tiers again under
    that graded part; last, under those, the raters' curve (mean Pearson over the rating sets).
    On ties the first wins (the grids list the rubric's defaults first)."""
    tiers = {**rubric.tiers, "match": 0.0}
    rows = rows or [None] * len(task_list)
    found = _best_of(grid(), task_list, tiers, rows)
    found = _best_of(grid(found, GRADED), task_list, tiers, rows)
    found = _best_of(grid(found), task_list, tiers, rows)
    return replace(found, curve=_best_curve(found, task_list, tiers, rows))


def _best_curve(cal: Calibration, task_list, tiers, rows) -> float:
    rated_sets = []
    for t, r in zip(task_list, rows):
        if t.parts[0] == "ratings":
            s, human = t.parts[1].scores(cal, tiers), t.parts[2]
            rated_sets.append((s, human) if r is None else (s[r], human[r]))
    if not rated_sets:
        return 0.0
    found, top = 0.0, -np.inf
    for k in CURVES:
        value = float(np.mean([pearson(_rated(s, k), human) for s, human in rated_sets]))
        if value > top + 1e-12:
            found, top = k, value
    return found


def _best_of(candidates: list[Calibration], task_list, tiers, rows) -> Calibration:
    found, top = None, -np.inf
    for cal in candidates:
        value = float(np.mean([t.objective(cal, tiers, r) for t, r in zip(task_list, rows)]))
        if value > top + 1e-12:
            found, top = cal, value
    return found  # type: ignore[return-value]


def folds_of(groups: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Fold per row: unique groups shuffled and dealt round-robin."""
    unique = np.unique(groups)
    order = np.random.default_rng(seed).permutation(len(unique))
    fold = np.empty(len(unique), dtype=int)
    fold[order] = np.arange(len(unique)) % k
    return fold[np.searchsorted(unique, groups)]


def fit(task_list: Sequence[Task], rubric: LaserRubric) -> dict[str, Calibration]:
    """One calibration pooled over every set, for every language: out of fold it did as well as
    one per language (and better on HATS), with a fifth of the data per fit (see the CV report)."""
    return {POOLED: best(task_list, rubric)}


def cross_validate(task_list: Sequence[Task], rubric: LaserRubric, *, folds: int = 5, seed: int = 0) -> dict:
    """Out of fold, per task: the per-language calibration fitted on the other folds (grouped by
    utterance or reference); one pooled calibration fitted on the other sets and this set's other
    folds; the pooled one fitted on the *other* sets only (leave one set out: what a language with
    no human data gets); the rubric's defaults, fitted on nothing."""
    tiers = {**rubric.tiers, "match": 0.0}
    report: dict[str, Any] = {}
    for t in task_list:
        fold = folds_of(t.groups, folds, seed)
        fitter = partial(_best_on_rows, t, rubric)
        others = [o for o in task_list if o is not t]
        pooled = partial(_best_pooled, t, others, rubric)
        report[t.name] = {
            "per_language": _summary(t, _oof_scores(t, fold, fitter, tiers)),
            "pooled": _summary(t, _oof_scores(t, fold, pooled, tiers)),
            "pooled_from_other_sets": _summary(t, _all_scores(t, best(others, rubric), tiers)) if others else None,
            "defaults": _summary(t, _all_scores(t, Calibration(), tiers)),
            "folds": folds,
            "seed": seed,
            "grouped_by": "utterance" if t.parts[0] == "ratings" else "reference",
        }
    return report


def _best_on_rows(t: Task, rubric: LaserRubric, rows: np.ndarray) -> Calibration:
    return best([t], rubric, [rows])


def _best_pooled(t: Task, others: list[Task], rubric: LaserRubric, rows: np.ndarray) -> Calibration:
    """One calibration for every set: the other sets whole, this one's training folds."""
    return best([*others, t], rubric, [None] * len(others) + [rows])


def _oof_scores(t: Task, fold: np.ndarray, fitter, tiers) -> tuple:
    """Scores of every row from the calibration fitted without its fold."""
    if t.parts[0] == "ratings":  # the score, and the score on the raters' curve fitted with it
        out, curved = np.full(len(fold), np.nan), np.full(len(fold), np.nan)
        for f in np.unique(fold):
            cal = fitter(np.flatnonzero(fold != f))
            test = np.flatnonzero(fold == f)
            out[test] = t.parts[1].scores(cal, tiers)[test]
            curved[test] = _rated(out[test], cal.curve)
        return (out, curved)
    sa, sb = np.full(len(fold), np.nan), np.full(len(fold), np.nan)
    for f in np.unique(fold):
        cal = fitter(np.flatnonzero(fold != f))
        test = np.flatnonzero(fold == f)
        sa[test] = t.parts[1].scores(cal, tiers)[test]
        sb[test] = t.parts[2].scores(cal, tiers)[test]
    return (sa, sb)


def _all_scores(t: Task, cal: Calibration, tiers) -> tuple:
    if t.parts[0] == "ratings":
        s = t.parts[1].scores(cal, tiers)
        return (s, _rated(s, cal.curve))
    return (t.parts[1].scores(cal, tiers), t.parts[2].scores(cal, tiers))


def _summary(t: Task, scores: tuple) -> dict:
    if t.parts[0] == "ratings":
        return {"pearson": pearson(scores[0], t.parts[2]), "pearson_calibrated": pearson(scores[1], t.parts[2])}
    va, vb = t.parts[3], t.parts[4]
    return {f"agreement_{int(c * 100)}": preference_agreement(scores[0], scores[1], va, vb, c) for c in (1.0, 0.7, 0.0)}


# ---- the shipped file -----------------------------------------------------------------------------


def as_json(cals: dict[str, Calibration], meta: dict) -> str:
    body = {"format": FORMAT, **meta, "calibrations": {k: asdict(v) for k, v in sorted(cals.items())}}
    return json.dumps(body, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def shipped_path() -> Path:
    return Path(str(resources.files("voxjudge.asr.laser").joinpath("models", "evidence.json")))


def load(path: str | Path | None = None) -> dict[str, Calibration]:
    p = Path(path) if path else shipped_path()
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError("format")
        return {k: Calibration(**v) for k, v in data["calibrations"].items()}
    except FileNotFoundError:
        raise InputError(f"{p}: calibration file not found") from None
    except (ValueError, KeyError, TypeError):
        raise InputError(f"{p}: not a voxjudge LASER calibration ({FORMAT} JSON)") from None


def for_language(cals: dict[str, Calibration], lang: str) -> Calibration | None:
    return cals.get(lang) or cals.get(POOLED)


def calibrated(conv, cals: dict[str, Calibration]):
    """Conventions with the calibration learned for their language (pooled for the others)."""
    cal = for_language(cals, conv.lang)
    return conv if cal is None else replace(conv, calibration=cal)


__all__ = ["Calibration", "cross_validate", "fit", "load", "rated", "read_hats", "read_ratings", "tasks"]


def shipped_data() -> tuple[Path, Path]:
    """The human sets the shipped calibration was fitted on (inside the package, with licences)."""
    base = resources.files("voxjudge.asr.laser").joinpath("data")
    return Path(str(base.joinpath("asr_sentence_ratings_train.csv"))), Path(str(base.joinpath("hats_pairs_train.tsv")))


def train_files(
    ratings: str | Path | None, preferences: str | Path | None, rubric: LaserRubric, *, cv: int = 0, seed: int = 0
) -> tuple[str, dict]:
    """Fit the calibration on sentence ratings and/or preference triplets: (file text, report)."""
    from voxjudge.asr.laser.judges import rules_labeler_for
    from voxjudge.asr.laser.learned import file_sha256

    if not ratings and not preferences:
        raise InputError("calibration needs sentence ratings, preference triplets, or both")
    rows = read_ratings(ratings) if ratings else []
    hats = read_hats(preferences) if preferences else []
    task_list = tasks(rows, hats, rubric, rules_labeler_for(rubric))
    cals = fit(task_list, rubric)
    meta = {
        "rubric_sha256": rubric.sha256,
        "ratings_sha256": file_sha256(ratings) if ratings else None,
        "preferences_sha256": file_sha256(preferences) if preferences else None,
        "sets": [t.name for t in task_list],
        "notice": NOTICE,
    }
    report: dict[str, Any] = {"calibrations": {k: asdict(v) for k, v in sorted(cals.items())}}
    if cv:
        report["cv"] = cross_validate(task_list, rubric, folds=cv, seed=seed)
    return as_json(cals, meta), report
