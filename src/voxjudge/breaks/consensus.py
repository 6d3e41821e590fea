"""Consensus: how much of a text's reference mass backs a hypothesis, juncture by juncture.

A reference table knows how often each phrasing was given (annotators, LLM iterations, or both
after a merge: counts add up). For a text with references r_1..r_k seen c_1..c_k times, the
agreement of hypothesis h at juncture j is

    a_j = sum_i c_i * K(h_j, r_ij) / sum_i c_i

where K is the similarity's F1 restricted to that one juncture (typed: the same label; untyped:
boundary vs none; typed with hierarchy: 2*min(h, r)/(h + r), 1 when both are no boundary). The
score is the mean of a_j over the compared junctures (the final one is left out, as for F1); a
text with no compared juncture scores 1. It lies in [0, 1] and does not depend on the order of
the references. Equivalently, it is the count-weighted mean, over references, of the per-juncture
agreement with each: the expected agreement with a reference drawn from the table.

Computed without pairing hypotheses with references: per text, the reference mass behind every
(juncture, hypothesis label) is tabulated once; each hypothesis then reads its junctures from it.
"""

from __future__ import annotations

import numpy as np

from voxjudge.breaks.similarity import Similarity


def support_table(
    refs: np.ndarray, offsets: np.ndarray, counts: np.ndarray, weights: np.ndarray, similarity: Similarity
) -> np.ndarray:
    """texts x junctures x levels: the share of each text's reference mass that agrees with a
    hypothesis putting level ``h`` at juncture ``j``.

    ``refs`` holds every text's references as rows (zero-padded level arrays), the text's rows
    starting at ``offsets[t]``, ``counts[t]`` of them; ``weights`` is each row's count."""
    n_levels = similarity.n_levels
    text_of_row = np.repeat(np.arange(len(offsets)), counts)
    share = weights / np.bincount(text_of_row, weights=weights)[text_of_row]
    # distribution[t, j, l]: the share of text t's mass with level l at juncture j
    distribution = np.empty((len(offsets), refs.shape[1], n_levels))
    for level in range(n_levels):
        distribution[:, :, level] = np.add.reduceat((refs == level) * share[:, None], offsets, axis=0)
    return distribution @ similarity.juncture_kernel().T


def agreement_with_table(hyps: np.ndarray, text_of: np.ndarray, support: np.ndarray) -> np.ndarray:
    """hypotheses x junctures: each hypothesis's agreement with its text's references."""
    junctures = np.arange(hyps.shape[1])[None, :]
    return support[text_of[:, None], junctures, hyps]


def agreement_with_one(hyps: np.ndarray, refs: np.ndarray, similarity: Similarity) -> np.ndarray:
    """hypotheses x junctures: agreement with one reference each (the single-reference baseline)."""
    return similarity.juncture_kernel()[hyps, refs]


def mean_agreement(agreement: np.ndarray, n_junctures: np.ndarray) -> np.ndarray:
    """Mean over each row's first ``n_junctures`` (padding left out); 1 for rows with none."""
    compared = np.arange(agreement.shape[1])[None, :] < n_junctures[:, None]
    total = np.where(compared, agreement, 0.0).sum(axis=1)
    return np.where(n_junctures == 0, 1.0, total / np.maximum(n_junctures, 1))
