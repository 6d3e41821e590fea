"""Matched-pairs sentence-segment word error test (MAPSSWE), as in NIST sclite.

Both systems are aligned to the same references. Stretches where *both* systems get at least two
consecutive reference words right, with nothing inserted between them, cut the corpus into
segments; each segment's error count difference ``N_a - N_b`` is one paired observation, and the
mean difference is tested against zero with the normal approximation (sclite's W statistic).
Segments in which neither system errs carry no information and are not counted. The normal
approximation wants dozens of segments; the result reports how many there were.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from voxjudge.asr.alignment import Alignment


@dataclass(frozen=True)
class MapssweResult:
    segments: int
    errors_a: int
    errors_b: int
    mean_difference: float
    std_difference: float
    z: float
    p_value: float

    def as_dict(self) -> dict:
        return asdict(self)


def _error_profile(alignment: Alignment) -> tuple[list[int], list[int]]:
    """Errors on each reference word (substitution/deletion) and insertions in each gap."""
    n = len(alignment.ref)
    word_err = [0] * n
    gap_ins = [0] * (n + 1)
    for c in alignment.chunks:
        ref_len, hyp_len = c.ref_end - c.ref_start, c.hyp_end - c.hyp_start
        if c.type in ("substitute", "delete"):
            for j in range(c.ref_start, c.ref_end):
                word_err[j] = 1
        if hyp_len > ref_len:  # insertions land in the gap after the chunk's reference words
            gap_ins[c.ref_end] += hyp_len - ref_len
    return word_err, gap_ins


def segment_errors(a: Alignment, b: Alignment) -> list[tuple[int, int]]:
    """``(errors_a, errors_b)`` per segment of one utterance (segments with errors only)."""
    if a.ref != b.ref:
        raise ValueError("both systems must be aligned to the same reference")
    err_a, ins_a = _error_profile(a)
    err_b, ins_b = _error_profile(b)
    n = len(a.ref)
    good = [err_a[j] == 0 and err_b[j] == 0 for j in range(n)]
    clean_gap = [ins_a[g] == 0 and ins_b[g] == 0 for g in range(n + 1)]
    # A good word is an anchor when it joins a good neighbour through a clean gap.
    anchor = [
        good[j] and ((j > 0 and good[j - 1] and clean_gap[j]) or (j + 1 < n and good[j + 1] and clean_gap[j + 1]))
        for j in range(n)
    ]
    segments: list[tuple[int, int]] = []
    na = nb = 0
    for j in range(n):
        na += ins_a[j]  # insertions before word j close with the segment that word j ends
        nb += ins_b[j]
        if anchor[j]:
            if na or nb:
                segments.append((na, nb))
            na = nb = 0
        else:
            na += err_a[j]
            nb += err_b[j]
    na += ins_a[n]
    nb += ins_b[n]
    if na or nb:
        segments.append((na, nb))
    return segments


def mapsswe(alignments_a: Sequence[Alignment], alignments_b: Sequence[Alignment]) -> MapssweResult:
    """Two-sided MAPSSWE test over a corpus of paired alignments."""
    from scipy.stats import norm

    if len(alignments_a) != len(alignments_b):
        raise ValueError("both systems need one alignment per utterance")
    segs = [s for a, b in zip(alignments_a, alignments_b) for s in segment_errors(a, b)]
    diffs = [x - y for x, y in segs]
    n = len(diffs)
    ea, eb = sum(x for x, _ in segs), sum(y for _, y in segs)
    if n == 0:
        return MapssweResult(0, 0, 0, 0.0, 0.0, 0.0, 1.0)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    sd = math.sqrt(var)
    if sd == 0.0:  # every segment differs alike: no spread for the normal approximation to use
        z = 0.0 if mean == 0 else math.copysign(math.inf, mean)
        p = 1.0 if mean == 0 else min(1.0, 2 * 0.5**n)  # the exact sign test's (p=0 on one segment before)
    else:
        z = mean / (sd / math.sqrt(n))
        p = float(2 * norm.sf(abs(z)))
    return MapssweResult(n, ea, eb, mean, sd, z, p)
