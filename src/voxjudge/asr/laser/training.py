"""Training the learned pair judge from labelled pairs, and grouped cross-validation.

Rows carry ``ref``, ``hyp`` and a tier ``label`` (match / no_penalty / minor / major) or an
``error_type`` from the rubric; either side may span several words. The model learns tiers for the
pairs the rules do not settle (see ``learned.settled_by_rules``). Fitting is scikit-learn's
logistic regression (the ``train`` extra); its settings (inverse regularisation C, class weights)
are chosen by an inner cross-validation grouped by unique pair, so the outer folds that are
reported never tune anything. The inner folds hold a few hundred pairs, so their accuracies differ
by noise more than by setting: the choice is the *one-standard-error rule*, the first setting of
``GRID`` (most regularised first, balanced class weights before none) whose inner accuracy is
within one standard error of the best. Balanced weights come first because the rubric's tiers are
judged per class: the minor tier is the smallest (about a seventh of what the model decides), and
unweighted fits give it away to the large tiers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from voxjudge.asr.laser.align import RubricPair, word_key
from voxjudge.asr.laser.lang_conventions import Conventions
from voxjudge.asr.laser.learned import (
    LICENCE_NOTICE,
    LinearModel,
    features,
    hybrid_labeler,
    settled_by_rules,
    sparse_entries,
)
from voxjudge.asr.laser.phonetics import prefetch_items
from voxjudge.asr.laser.rubric import LABELS, LaserRubric
from voxjudge.asr.laser.rules import Label, classify
from voxjudge.errors import InputError

Setting = tuple[float, str]  # (C, class weight: "none" | "balanced")
GRID: tuple[Setting, ...] = tuple((C, cw) for C in (0.1, 0.3, 1.0, 3.0) for cw in ("balanced", "none"))
INNER_FOLDS = 3


def pair_of(ref: str, hyp: str) -> RubricPair:
    r, h = tuple(ref.split()), tuple(hyp.split())
    if r and [word_key(w) for w in r] == [word_key(w) for w in h]:
        op = "equal"
    else:
        op = "delete" if not h else "insert" if not r else "substitute"
    return RubricPair(r, h, op, 0, 0)


def tiers_of(
    rows: Sequence[dict[str, str]], rubric: LaserRubric, where: str, lines: Sequence[int] | None = None
) -> list[str]:
    """Each training pair's tier, from its label or its error type; ``lines``: the file's line of
    each row, for errors (default: a CSV's, the header on line 1)."""
    out = []
    for n, row in zip(range(2, len(rows) + 2) if lines is None else lines, rows):
        label = (row.get("label") or "").strip()
        etype = (row.get("error_type") or "").strip()
        if label:
            if label not in LABELS:
                raise InputError(f"{where}:{n}: label {label!r} is not one of {', '.join(LABELS)}")
            out.append(label)
        elif etype:
            out.append("match" if etype == "none" else rubric.type(etype).tier)
        else:
            raise InputError(f"{where}:{n}: a training pair needs a 'label' (tier) or an 'error_type'")
    return out


def _vectorize(feats: list[dict[str, float]], vocab: dict[str, int]):
    from scipy.sparse import csr_matrix

    rows, cols, data = sparse_entries(feats, vocab)
    return csr_matrix((data, (rows, cols)), shape=(len(feats), len(vocab)))


def _fit(feats: list[dict[str, float]], y: list[str], setting: Setting):
    try:
        from sklearn.linear_model import LogisticRegression
        from threadpoolctl import threadpool_limits
    except ImportError:
        raise InputError("training needs scikit-learn: pip install 'voxjudge[train]'") from None
    vocab = {name: k for k, name in enumerate(sorted({n for f in feats for n in f}))}
    C, weight = setting
    clf = LogisticRegression(C=C, class_weight=None if weight == "none" else weight, max_iter=10_000, tol=1e-10)
    with threadpool_limits(1):  # one BLAS thread: same arithmetic on every run
        clf.fit(_vectorize(feats, vocab), y)
    return vocab, clf


def _grouped_folds(groups: Sequence[Any], k: int, seed: int) -> list[np.ndarray]:
    """Fold index per item: unique pairs are shuffled and dealt round-robin into k folds."""
    unique = list(dict.fromkeys(groups))
    order = np.random.default_rng(seed).permutation(len(unique))
    fold_of = {unique[u]: n % k for n, u in enumerate(order)}
    assign = np.array([fold_of[g] for g in groups])
    return [np.flatnonzero(assign == f) for f in range(k)]


class _Prepared:
    """Rows turned into rule labels and features once (they do not depend on the fit)."""

    def __init__(self, rows, tiers, lang: str, conv: Conventions):
        self.pairs = [pair_of(r["ref"], r["hyp"]) for r in rows]
        prefetch_items([("", p, lang) for p in self.pairs])
        self.rules: list[Label] = [classify(p, lang, conv) for p in self.pairs]
        self.learnable = [not settled_by_rules(p, rule, lang) for p, rule in zip(self.pairs, self.rules)]
        self.feats = [
            features(p.ref, p.hyp, lang, conv, rule) if ok else {}
            for p, rule, ok in zip(self.pairs, self.rules, self.learnable)
        ]
        self.tiers = list(tiers)
        self.groups = [(p.ref_text, p.hyp_text) for p in self.pairs]


def _choose(prep: _Prepared, idx: np.ndarray, seed: int, grid: Sequence[Setting]) -> Setting:
    """The one-standard-error rule over an inner grouped CV on ``idx`` (see the module notes)."""
    if len(grid) == 1:
        return grid[0]
    groups = [prep.groups[i] for i in idx]
    accuracy = []
    for setting in grid:
        hits = []
        for fold in _grouped_folds(groups, INNER_FOLDS, seed + 1):
            test = idx[fold]
            train = np.setdiff1d(idx, test)
            hits += _fold_hits(prep, train, test, setting)
        accuracy.append((float(np.mean(hits)), len(hits)))
    best, n = max(accuracy)
    se = float(np.sqrt(best * (1 - best) / n))
    return next(setting for setting, (acc, _) in zip(grid, accuracy) if acc >= best - se - 1e-12)


def _fold_hits(prep: _Prepared, train: np.ndarray, test: np.ndarray, setting: Setting) -> list[bool]:
    pred = _predict_indices(prep, train, test, setting)
    return [pred[i] == prep.tiers[i] for i in test if prep.learnable[i]]


def _predict_indices(prep: _Prepared, train: np.ndarray, test: np.ndarray, setting: Setting) -> dict[int, str]:
    fit = [i for i in train if prep.learnable[i]]
    todo = [i for i in test if prep.learnable[i]]
    out = {i: prep.rules[i].label for i in test}
    seen = {prep.tiers[i] for i in fit}
    if todo and len(seen) < 2:
        # a fold of a small or lopsided file left one tier (or none) to learn: what a fit on it would say,
        # that tier (none: the rules' label); a classifier cannot be fitted on one class
        for i in todo:
            out[i] = next(iter(seen), out[i])
    elif todo:
        vocab, clf = _fit([prep.feats[i] for i in fit], [prep.tiers[i] for i in fit], setting)
        for i, y in zip(todo, clf.predict(_vectorize([prep.feats[i] for i in todo], vocab))):
            out[i] = str(y)
    return out


def train(
    rows: Sequence[dict[str, str]],
    tiers: Sequence[str],
    rubric: LaserRubric,
    lang: str,
    *,
    seed: int = 0,
    grid: Sequence[Setting] = GRID,
    data_sha256: str = "",
) -> LinearModel:
    """Fit on every row; C chosen by grouped CV on the same rows."""
    conv = rubric.conventions(lang)
    prep = _Prepared(rows, tiers, lang, conv)
    everything = np.arange(len(rows))
    fit = [i for i in everything if prep.learnable[i]]
    if len({prep.tiers[i] for i in fit}) < 2:
        raise InputError("training needs pairs of at least two tiers that the rules do not settle")
    setting = _choose(prep, everything, seed, grid)
    vocab, clf = _fit([prep.feats[i] for i in fit], [prep.tiers[i] for i in fit], setting)
    classes = tuple(str(c) for c in clf.classes_)
    coef = clf.coef_ if len(classes) > 2 else np.vstack([-clf.coef_[0], clf.coef_[0]])
    intercept = clf.intercept_ if len(classes) > 2 else np.array([-clf.intercept_[0], clf.intercept_[0]])
    meta = {
        "rubric_sha256": rubric.sha256,
        "training_data_sha256": data_sha256,
        "training_pairs": len(rows),
        "learned_pairs": len(fit),
        "C": setting[0],
        "class_weight": setting[1],
        "seed": seed,
        "notice": LICENCE_NOTICE,
    }
    return LinearModel(lang, classes, vocab, np.asarray(coef, dtype=float), np.asarray(intercept, dtype=float), meta)


def cross_validate(
    rows: Sequence[dict[str, str]],
    tiers: Sequence[str],
    rubric: LaserRubric,
    lang: str,
    *,
    folds: int = 10,
    seed: int = 0,
    grid: Sequence[Setting] = GRID,
    n_resamples: int = 2000,
) -> dict[str, Any]:
    """Grouped k-fold CV (by unique pair) of the hybrid judge and of the rules alone."""
    from voxjudge.asr.laser.agreement import label_agreement

    conv = rubric.conventions(lang)
    prep = _Prepared(rows, tiers, lang, conv)
    everything = np.arange(len(rows))
    pred: dict[int, str] = {}
    chosen = []
    for test in _grouped_folds(prep.groups, folds, seed):
        train_idx = np.setdiff1d(everything, test)
        setting = _choose(prep, train_idx, seed, grid)
        chosen.append(list(setting))
        pred.update(_predict_indices(prep, train_idx, test, setting))
    hybrid = [pred[i] for i in everything]
    return {
        "folds": folds,
        "seed": seed,
        "split": "grouped by unique (ref, hyp) pair",
        "setting_per_fold": chosen,
        "hybrid": label_agreement(prep.tiers, hybrid, prep.groups, n_resamples=n_resamples, seed=seed),
        "rules": label_agreement(
            prep.tiers, [r.label for r in prep.rules], prep.groups, n_resamples=n_resamples, seed=seed
        ),
        "model_share": sum(prep.learnable) / len(rows),
    }


__all__ = ["cross_validate", "hybrid_labeler", "pair_of", "tiers_of", "train"]
