"""Agreement of predicted pair labels with annotators' labels: accuracy overall and per class,
the confusion matrix and Cohen's kappa, with bootstrap CIs that resample unique (ref, hyp) pairs
(all occurrences of a pair move together, so duplicates do not narrow the intervals)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from voxjudge.asr.laser.rubric import LABELS


def cohen_kappa(truth: np.ndarray, pred: np.ndarray, k: int, weights: np.ndarray | None = None) -> float:
    w = np.ones(len(truth)) if weights is None else weights
    cm = np.zeros((k, k))
    np.add.at(cm, (truth, pred), w)
    n = cm.sum()
    po = np.trace(cm) / n
    pe = (cm.sum(0) * cm.sum(1)).sum() / n**2
    return float((po - pe) / (1 - pe)) if pe < 1 else 1.0


def label_agreement(
    truth: Sequence[str],
    pred: Sequence[str],
    groups: Sequence[Any] | None = None,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    labels: Sequence[str] = LABELS,
) -> dict[str, Any]:
    """Accuracy (overall, per true class), confusion matrix and kappa, with cluster-bootstrap CIs."""
    index = {lab: k for k, lab in enumerate(labels)}
    for lab in list(truth) + list(pred):
        if lab not in index:
            index[lab] = len(index)
    names = list(index)
    t = np.array([index[x] for x in truth])
    p = np.array([index[x] for x in pred])
    k = len(names)
    groups = list(groups) if groups is not None else list(range(len(t)))
    gid = {g: n for n, g in enumerate(dict.fromkeys(groups))}
    g = np.array([gid[x] for x in groups])
    n_groups = len(gid)
    rng = np.random.default_rng(seed)
    # a resample draws groups with replacement; an item's weight is how often its group was drawn
    draws = np.stack([np.bincount(rng.integers(0, n_groups, n_groups), minlength=n_groups) for _ in range(n_resamples)])
    w = draws[:, g].astype(float)  # (resamples, items)
    correct = (t == p).astype(float)
    lo, hi = (1 - confidence) / 2, 1 - (1 - confidence) / 2

    def ci(samples: np.ndarray) -> list[float]:
        samples = samples[~np.isnan(samples)]
        return [float(np.quantile(samples, lo)), float(np.quantile(samples, hi))] if len(samples) else [None, None]

    with np.errstate(invalid="ignore", divide="ignore"):
        acc_s = (w * correct).sum(1) / w.sum(1)
        per_class = {}
        for name, c in index.items():
            mask = (t == c).astype(float)
            if mask.sum() == 0:
                continue
            s = (w * correct * mask).sum(1) / (w * mask).sum(1)
            per_class[name] = {
                "n": int(mask.sum()),
                "correct": int((correct * mask).sum()),
                "accuracy": float((correct * mask).sum() / mask.sum()),
                "ci": ci(s),
            }
    kappas = np.array([cohen_kappa(t, p, k, w[r]) for r in range(n_resamples)])
    cm = np.zeros((k, k), dtype=int)
    np.add.at(cm, (t, p), 1)
    return {
        "n": len(t),
        "unique_pairs": n_groups,
        "accuracy": float(correct.mean()),
        "accuracy_ci": ci(acc_s),
        "per_class": per_class,
        "kappa": cohen_kappa(t, p, k),
        "kappa_ci": ci(kappas),
        "confusion": {"labels": names, "rows_true_cols_predicted": cm.tolist()},
        "bootstrap": {
            "resamples": n_resamples,
            "seed": seed,
            "confidence": confidence,
            "unit": "unique (ref, hyp) pair",
        },
    }
