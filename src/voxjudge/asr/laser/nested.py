"""Fully nested validation of ``laser_calibrated``, and the word-pair features tried beside it.

The whole fitting procedure, run on the training part of an outer fold only: the tiers'
calibration (grid search), the choice of the model's FORM among ``FORMS`` (by the figures of
inner folds of that training part) and the weights. The outer fold, never seen by any of those
choices, scores it. Outer folds are those of ``calibration.out_of_fold`` (per set, 5 folds
grouped by utterance or reference; the other sets whole in training); inner folds split every
set's training rows the same way. The inner figure per form is the mean over the sets of the
ratings' Pearson and the triplets' agreement (mean of certitude 100%, 70% and all), and the
first form in ``FORMS`` order (simplest first) within ``TOLERANCE`` of the best is taken: both
were decided before any nested figure was seen.

Word-pair features (designed a priori from the rubric's categories, before reading any
disagreement; each a fraction of the reference words, as ``1 - laser`` is, or a 0/1 flag):

* ``content``: the penalty of pairs with a content word (a word not in the language's function
  words) on either side;
* ``numbers``: the penalty of pairs with a number (digits, or a number word) on either side;
* ``names``: the penalty of pairs whose reference has a capitalised word past the first (English
  and French only have case);
* ``negation``: 1 when the reference and the hypothesis have different counts of negation words;
* ``pairsem``: each pair's penalty weighted by the semantic distance of its two sides' words
  (1 - cosine of their embeddings; 1 for an added or dropped word);
* ``cer``: the character error rate (the form it was compared with before).

Penalty features go through a square root, as the rubric term does.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voxjudge.asr.laser import calibration as C
from voxjudge.asr.laser.lang import fold, is_function_word
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.semdist import _TASHKEEL

TOLERANCE = 0.005  # a later (richer) form must beat the earlier ones by more than this inside

# the candidate forms, simplest first; "rubric" is sqrt(1 - laser), "semdist" sqrt(semdist)
FORMS: dict[str, tuple[str, ...]] = {
    "rubric": ("rubric",),
    "rubric+semdist": ("rubric", "semdist"),
    "linear rubric+semdist": ("rubric_lin", "semdist_lin"),
    "+cer": ("rubric", "semdist", "cer"),
    "+content": ("rubric", "semdist", "content"),
    "+negation": ("rubric", "semdist", "negation"),
    "+numbers": ("rubric", "semdist", "numbers"),
    "+names": ("rubric", "semdist", "names"),
    "+pairsem": ("rubric", "semdist", "pairsem"),
    "+content+negation+numbers+pairsem": ("rubric", "semdist", "content", "negation", "numbers", "pairsem"),
}
SHIPPED = "rubric+semdist"

NEGATION = {
    "en": {"not", "no", "never", "nothing", "nobody", "none", "nor", "neither", "cannot", "without"},
    "fr": {"ne", "n", "pas", "jamais", "rien", "aucun", "aucune", "ni", "sans", "nullement", "guère"},
    "ar": {"لا", "لم", "لن", "ليس", "ليست", "لست", "لسنا", "ليسوا", "غير", "بدون", "بلا", "دون"},
    "ml": {"ഇല്ല", "അല്ല", "വേണ്ട", "ഒന്നുമില്ല"},
}
_NEG_ENDINGS = {"en": ("n't",), "ml": ("ില്ല", "ല്ല", "ാതെ", "ാത്ത")}


def negations(text: str, lang: str) -> int:
    """How many negation words ``text`` has (a fixed list per language, and endings for English
    contractions and Malayalam's negative suffixes)."""
    words = _TASHKEEL.sub("", unicodedata.normalize("NFC", text)).lower().replace("\u2019", "'")
    n = 0
    for w in words.split():
        w2 = "".join(ch for ch in w if unicodedata.category(ch)[0] != "P" or ch == "'").strip("'")
        if w2 in NEGATION.get(lang, ()) or any(w2.endswith(e) for e in _NEG_ENDINGS.get(lang, ())):
            n += 1
    return n


def _is_number(word: str, lang: str) -> bool:
    from voxjudge.asr.laser.quantities import _spoken_numbers

    if any(ch.isdigit() for ch in word):
        return True
    return not is_function_word(word, lang) and fold(word) in _spoken_numbers(lang)


def _mismatch(p, lab) -> bool:
    return p.op != "equal" and lab.label != "match"


def weigh_content(p, lab, lang) -> float:
    return float(_mismatch(p, lab) and any(not is_function_word(w, lang) for w in (*p.ref, *p.hyp)))


def weigh_numbers(p, lab, lang) -> float:
    return float(_mismatch(p, lab) and any(_is_number(w, lang) for w in (*p.ref, *p.hyp)))


def weigh_names(p, lab, lang) -> float:
    return float(_mismatch(p, lab) and any(w[:1].isupper() and (p.ref_start + i) > 0 for i, w in enumerate(p.ref)))


def pair_texts(p) -> tuple[str, str]:
    from voxjudge.asr.semdist import semdist_text

    return semdist_text(p.ref_text), semdist_text(p.hyp_text)


@dataclass
class Side:
    """One side of a set (a rating set; a triplet set's A or B): what the forms read."""

    prep: C.Prepared
    extra: dict  # name -> Prepared (weighted pairs) or np.ndarray (per utterance)
    semdist: np.ndarray | None


@dataclass
class NTask:
    task: C.Task
    sides: list[Side]


def _cer(refs, hyps) -> np.ndarray:
    import jiwer

    def norm(s):
        s = unicodedata.normalize("NFC", s).lower()
        return " ".join("".join(" " if unicodedata.category(ch)[0] == "P" else ch for ch in s).split())

    return np.array([min(1.0, jiwer.cer(norm(r) or "∅", norm(h) or "∅")) for r, h in zip(refs, hyps)])


def _side(refs, hyps, lang, rubric, labeler, distances, embedder) -> Side:
    aligned, labels = C.label_utterances(refs, hyps, lang, labeler)
    prep = C.build(aligned, labels, rubric)
    extra: dict = {
        "content": C.build(aligned, labels, rubric, weigh_content),
        "numbers": C.build(aligned, labels, rubric, weigh_numbers),
        "names": C.build(aligned, labels, rubric, weigh_names),
        "negation": np.array([float(negations(r, lang) != negations(h, lang)) for r, h in zip(refs, hyps)]),
        "cer": _cer(refs, hyps),
    }
    if embedder is not None:
        texts, k = {}, 0
        for _, _, pairs in aligned:
            for p in pairs:
                if _mismatch(p, labels[k]) and p.ref and p.hyp:
                    for t in pair_texts(p):
                        texts.setdefault(t, len(texts))
                k += 1
        vecs = embedder.embed(list(texts)).vectors if texts else np.zeros((0, 1))

        def weigh_sem(p, lab, lang):
            if not _mismatch(p, lab):
                return 0.0
            if not p.ref or not p.hyp:
                return 1.0
            a, b = (texts[t] for t in pair_texts(p))
            return float(np.clip(1.0 - vecs[a] @ vecs[b], 0.0, 1.0))

        extra["pairsem"] = C.build(aligned, labels, rubric, weigh_sem)
    sd = distances(refs, hyps) if distances else None
    return Side(prep, extra, sd)


def ntasks(ratings, hats, rubric: LaserRubric, labeler, distances=None, embedder=None) -> list[NTask]:
    """The sets as ``calibration.tasks`` makes them, with every side's features beside them."""
    out = []
    for lang in sorted({r["lang"] for r in ratings}):
        rs = [r for r in ratings if r["lang"] == lang]
        refs, hyps = [r["ref"] for r in rs], [r["hyp"] for r in rs]
        s = _side(refs, hyps, lang, rubric, labeler, distances, embedder)
        human = np.array([float(r["human_mean"]) for r in rs]) / C.RATING_SCALE
        groups = C._codes([r["utterance"] for r in rs])
        t = C.Task(f"ratings-{lang}", lang, groups, ("ratings", s.prep, human, s.semdist))
        out.append(NTask(t, [s]))
    if hats:
        lang = C.hats_lang(hats)
        refs = [r["reference"] for r in hats]
        sa = _side(refs, [r["hyp_a"] for r in hats], lang, rubric, labeler, distances, embedder)
        sb = _side(refs, [r["hyp_b"] for r in hats], lang, rubric, labeler, distances, embedder)
        va = np.array([int(r["votes_a"]) for r in hats])
        vb = np.array([int(r["votes_b"]) for r in hats])
        t = C.Task(f"hats-{lang}", lang, C._codes(refs), ("hats", sa.prep, sb.prep, va, vb, sa.semdist, sb.semdist))
        out.append(NTask(t, [sa, sb]))
    return out


# ---- forms: features, fit, prediction -----------------------------------------------------------


def columns(side: Side, form: Sequence[str], cal, tiers) -> np.ndarray:
    cols = []
    for name in form:
        if name in ("rubric", "rubric_lin"):
            x = np.maximum(0.0, 1.0 - side.prep.scores(cal, tiers))
        elif name in ("semdist", "semdist_lin"):
            x = np.maximum(0.0, side.semdist)  # type: ignore[arg-type]
        else:
            e = side.extra[name]
            x = np.maximum(0.0, 1.0 - e.scores(cal, tiers)) if isinstance(e, C.Prepared) else e
        cols.append(x if name.endswith("_lin") or name == "negation" else np.sqrt(x))
    return np.column_stack(cols)


def fit_form(data: list, k: int) -> np.ndarray:
    """(intercept, weights...) minimising ``people.fit``'s loss: ``data`` holds ('ratings', X, y)
    and ('hats', XA - XB, side) items."""
    from scipy.optimize import minimize

    rated = [(x, y, y.var()) for kind, x, y in data if kind == "ratings" and len(y) >= 3 and y.var() > 0]
    diffs = [(d, s) for kind, d, s in data if kind == "hats"]

    def loss(theta):
        b, w, scale = theta[0], theta[1 : 1 + k], theta[-1]
        total = float(np.mean([np.mean((b + x @ w - y) ** 2) / v for x, y, v in rated])) if rated else 0.0
        for d, s in diffs:
            total += float(np.mean(np.logaddexp(0.0, -s * scale * (d @ w))))
        return total

    start = np.zeros(k + 2)
    start[0], start[1], start[-1] = 1.0, -1.0, 5.0
    return minimize(loss, start, method="L-BFGS-B").x[: k + 1]


def _data(ts: Sequence[NTask], rows: Sequence[np.ndarray], form, cal, tiers) -> list:
    out = []
    for nt, r in zip(ts, rows):
        X = [columns(s, form, cal, tiers)[r] for s in nt.sides]
        if nt.task.parts[0] == "ratings":
            y = nt.task.parts[2][r]
            ok = ~np.isnan(X[0]).any(axis=1)
            out.append(("ratings", X[0][ok], y[ok]))
        else:
            va, vb = nt.task.parts[3][r], nt.task.parts[4][r]
            side = np.sign(va - vb)
            ok = (side != 0) & ~np.isnan(X[0]).any(axis=1) & ~np.isnan(X[1]).any(axis=1)
            out.append(("hats", (X[0] - X[1])[ok], side[ok]))
    return out


def predict(theta: np.ndarray, X: np.ndarray) -> np.ndarray:
    return np.clip(theta[0] + X @ theta[1:], 0.0, 1.0)


def figure(nt: NTask, preds: Sequence[np.ndarray], rows: np.ndarray | None = None) -> float:
    """The inner figure of one set (``preds``: the scores of its ``rows``, all rows by default):
    Pearson (ratings) or the mean agreement at certitude 100%, 70% and all (triplets)."""
    r = slice(None) if rows is None else rows
    if nt.task.parts[0] == "ratings":
        return C.pearson(preds[0], nt.task.parts[2][r])
    va, vb = nt.task.parts[3][r], nt.task.parts[4][r]
    return float(np.nanmean([C.preference_agreement(preds[0], preds[1], va, vb, c) for c in (1.0, 0.7, 0.0)]))


def _fit_predict(ts, train_rows, test_rows, forms, rubric, tiers, tune_tiers=True):
    """Tiers on ``train_rows`` (the rubric's defaults without ``tune_tiers``), then every form's
    weights; predictions on ``test_rows``."""
    cal = C.best([nt.task for nt in ts], rubric, list(train_rows)) if tune_tiers else C.Calibration()
    out = {}
    for name, form in forms.items():
        theta = fit_form(_data(ts, train_rows, form, cal, tiers), len(form))
        out[name] = [
            [predict(theta, columns(s, form, cal, tiers)[r]) for s in nt.sides] for nt, r in zip(ts, test_rows)
        ]
    return cal, out


def choose(ts, rows, forms, rubric, tiers, inner: int, seed: int, tune_tiers=True) -> tuple[str, dict[str, float]]:
    """The form the inner folds of ``rows`` pick (first within TOLERANCE of the best), and every
    form's inner figure."""
    folds = [C.folds_of(nt.task.groups[r], inner, seed + 1) for nt, r in zip(ts, rows)]
    preds = {name: [[np.full(len(r), np.nan) for _ in nt.sides] for nt, r in zip(ts, rows)] for name in forms}
    for g in range(inner):
        tr = [r[f != g] for r, f in zip(rows, folds)]
        te_local = [np.flatnonzero(f == g) for f in folds]
        te = [r[k] for r, k in zip(rows, te_local)]
        _, got = _fit_predict(ts, tr, te, forms, rubric, tiers, tune_tiers)
        for name in forms:
            for i, k in enumerate(te_local):
                for s in range(len(ts[i].sides)):
                    preds[name][i][s][k] = got[name][i][s]
    scores = {name: float(np.mean([figure(nt, p, r) for nt, p, r in zip(ts, preds[name], rows)])) for name in forms}
    top = max(scores.values())
    return next(n for n in forms if scores[n] >= top - TOLERANCE), scores


def nested(
    ts: Sequence[NTask],
    rubric: LaserRubric,
    forms: dict[str, tuple[str, ...]] | None = None,
    *,
    folds: int = 5,
    inner: int = 5,
    seed: int = 0,
    tune_tiers: bool = True,
    log=None,
) -> dict:
    """Per set: held-out predictions of the nested procedure (``chosen``: tiers, form and weights
    chosen on the outer training part only) and of every fixed form (tiers and weights out of
    fold), and the form each outer fold chose with the inner figures."""
    forms = forms or FORMS
    tiers = {**rubric.tiers, "match": 0.0}
    found: dict = {}
    for nt in ts:
        fold = C.folds_of(nt.task.groups, folds, seed)
        others = [o for o in ts if o is not nt]
        order = [*others, nt]
        n = len(fold)
        cols = {k: [np.full(n, np.nan) for _ in nt.sides] for k in ["chosen", "laser", *forms]}
        picks = []
        for f in np.unique(fold):
            train, test = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
            rows = [np.arange(len(o.task.groups)) for o in others] + [train]
            if len(forms) == 1:  # nothing to choose: out of fold for the tiers and the weights
                pick, inner_scores = next(iter(forms)), {}
            else:
                pick, inner_scores = choose(order, rows, forms, rubric, tiers, inner, seed, tune_tiers)
            picks.append({"fold": int(f), "form": pick, "inner": inner_scores})
            if log:
                log(f"{nt.task.name} fold {f}: {pick}  " + " ".join(f"{k}={v:.3f}" for k, v in inner_scores.items()))
            empty = [np.zeros(0, dtype=int)] * len(others)
            cal, got = _fit_predict(order, rows, [*empty, test], forms, rubric, tiers, tune_tiers)
            for s, side in enumerate(nt.sides):
                cols["laser"][s][test] = side.prep.scores(cal, tiers)[test]
                for name in forms:
                    cols[name][s][test] = got[name][-1][s]
                cols["chosen"][s][test] = got[pick][-1][s]
        found[nt.task.name] = {"scores": cols, "picks": picks}
    return found
