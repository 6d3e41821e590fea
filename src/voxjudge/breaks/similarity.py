"""Similarity of a hypothesis annotation to references: exact match and boundary F1.

Annotations are compared as arrays of boundary levels over their junctures (0 = no boundary),
*without the final juncture*, which is the sentence end in every annotation. Options, each
recorded in results by ``Similarity.name``:

* ``em``: 1 when every juncture has the same label, else 0;
* ``f1`` ``typed``: a predicted boundary is a hit only with the same label (micro over labels);
* ``f1`` ``untyped``: any boundary against none;
* ``f1`` ``per-label``: F1 per label, averaged over the labels present on either side;
* ``hierarchy``: a stronger boundary also counts at every weaker level (IP implies AP), as
  Mandarin prosody scorers do; with it a predicted IP where the reference has AP earns partial
  credit instead of none;
* ``consensus``: not a pairwise similarity but an agreement with a text's whole reference
  distribution (see ``consensus``); per juncture it uses ``juncture_kernel``, which is this F1
  (typed, untyped, hierarchy) restricted to that one juncture.

When neither side has a boundary, F1 is 1. Everything is vectorised: one hypothesis against all
references of its text, or many hypotheses at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voxjudge.breaks.annotation import Annotation
from voxjudge.breaks.labels import LabelSet
from voxjudge.errors import InputError

METRICS = ("em", "f1", "consensus")
F1_MODES = ("typed", "untyped", "per-label")


def levels(annotation: Annotation, labelset: LabelSet) -> np.ndarray:
    """Boundary levels of the junctures that are compared (all but the final one)."""
    return np.array(annotation.levels(labelset)[:-1], dtype=np.int8)


def _f1(tp: np.ndarray, pred: np.ndarray, gold: np.ndarray) -> np.ndarray:
    denom = pred + gold
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom == 0, 1.0, 2.0 * tp / np.where(denom == 0, 1, denom))


@dataclass(frozen=True)
class Similarity:
    metric: str = "f1"
    f1_mode: str = "typed"
    hierarchy: bool = False
    n_levels: int = 4

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise InputError(f"unknown metric {self.metric!r}; choose one of {', '.join(METRICS)}")
        if self.f1_mode not in F1_MODES:
            raise InputError(f"unknown F1 mode {self.f1_mode!r}; choose one of {', '.join(F1_MODES)}")
        if self.metric == "consensus" and self.f1_mode == "per-label":
            raise InputError("consensus compares each juncture typed or untyped; per-label is an F1 variant only")

    @property
    def name(self) -> str:
        if self.metric == "em":
            return "em"
        return f"{self.metric}-{self.f1_mode}" + ("-hierarchy" if self.hierarchy else "")

    def juncture_kernel(self) -> np.ndarray:
        """Agreement of a hypothesis level (row) with a reference level (column) at one juncture:
        this similarity's F1 on that juncture alone (typed: same label; untyped: boundary vs none;
        typed with hierarchy: 2·min/(h+r), 1 when both are no boundary; em: the same label)."""
        lv = np.arange(self.n_levels)
        h, r = lv[:, None], lv[None, :]
        if self.f1_mode == "untyped" and self.metric != "em":
            return ((h > 0) == (r > 0)).astype(float)
        if self.hierarchy and self.metric != "em":
            return np.where(h + r == 0, 1.0, 2.0 * np.minimum(h, r) / np.maximum(h + r, 1))
        return (h == r).astype(float)

    def matrix(self, hyps: np.ndarray, refs: np.ndarray) -> np.ndarray:
        """Scores of every hypothesis (rows of ``hyps``, m x J) against every reference (k x J)."""
        if hyps.shape[-1] != refs.shape[-1]:
            raise ValueError("hypotheses and references must have the same number of junctures")
        return self.pairwise(hyps[:, None, :], refs[None, :, :])

    def pairwise(self, hyps: np.ndarray, refs: np.ndarray) -> np.ndarray:
        """Scores of aligned (broadcastable) level arrays over their last axis. Arrays padded with
        zeros (no boundary) score the same as unpadded ones, so texts of any length can be
        scored together."""
        if self.metric == "consensus":
            raise ValueError("consensus is scored against a reference distribution; see voxjudge.breaks.consensus")
        h = hyps.astype(np.int16, copy=False)
        r = refs.astype(np.int16, copy=False)
        if self.metric == "em":
            return np.all(h == r, axis=-1).astype(float)
        if self.f1_mode == "untyped":
            hb, rb = h > 0, r > 0
            return _f1((hb & rb).sum(-1), hb.sum(-1), rb.sum(-1))
        if self.f1_mode == "typed":
            if self.hierarchy:
                return _f1(np.minimum(h, r).sum(-1), h.sum(-1), r.sum(-1))
            return _f1(((h == r) & (h > 0)).sum(-1), (h > 0).sum(-1), (r > 0).sum(-1))
        # per-label: macro average over the labels that occur on either side
        total = np.zeros(np.broadcast_shapes(h.shape[:-1], r.shape[:-1]))
        present = np.zeros_like(total)
        for level in range(1, self.n_levels):
            hl = (h >= level) if self.hierarchy else (h == level)
            rl = (r >= level) if self.hierarchy else (r == level)
            pred, gold = hl.sum(-1), rl.sum(-1)
            occurs = (pred + gold) > 0
            total += np.where(occurs, _f1((hl & rl).sum(-1), pred, gold), 0.0)
            present += occurs
        return np.where(present == 0, 1.0, total / np.maximum(present, 1))

    def scores(self, hyp: np.ndarray, refs: np.ndarray) -> np.ndarray:
        return self.matrix(hyp[None, :], refs)[0]

    def per_label(self, hyp: np.ndarray, ref: np.ndarray, labelset: LabelSet) -> dict[str, float]:
        """F1 for each boundary label of one pair (labels absent on both sides score 1)."""
        out = {}
        for level in range(1, len(labelset.labels)):
            hl = (hyp >= level) if self.hierarchy else (hyp == level)
            rl = (ref >= level) if self.hierarchy else (ref == level)
            out[labelset.labels[level]] = float(_f1(np.sum(hl & rl), np.sum(hl), np.sum(rl)))
        return out
