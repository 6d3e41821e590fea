"""Win rates of the systems that made the clips, from the judge's verdicts alone (no human labels).

Each pair's verdict is the weighted verdict ``V_w`` of its aggregated scores. A system's win rate
is over the pairs it takes part in against another system: (wins + ties / 2) / (wins + ties +
losses); pairs whose verdict abstained are counted beside it, never as losses, and a pair of one
system against itself is not a match for it. The systems are ``system_a`` / ``system_b`` of the
pairs file; a pair that names none stands for "clip A" against "clip B".

The intervals are percentile bootstrap intervals over the pairs, with the same resampled pair
indices for every system and every head-to-head (``voxjudge.stats.resample_chunks``, seeded), as
every other interval of the package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from voxjudge.pairwise.data import Pair

_POINTS = {"win": 1.0, "tie": 0.5, "loss": 0.0}


def sides(pair: Pair) -> tuple[str, str]:
    """The systems behind clips A and B ("clip A" / "clip B" when the pairs file names none)."""
    return pair.system_a or "clip A", pair.system_b or "clip B"


def _outcome(verdict: str, side: str) -> str | None:
    if verdict == "tie":
        return "tie"
    if verdict in ("A", "B"):
        return "win" if verdict == side else "loss"
    return None  # abstained


def win_rates(
    verdicts: dict[str, str],
    pairs: Sequence[Pair],
    *,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """``verdicts``: pair id -> "A" | "B" | "tie" | "abstain" for the judged pairs. Per system
    (best first) and per head-to-head of two systems that meet (from the side of the better
    ranked one): wins, ties, losses, abstained and the win rate with its interval;
    ``same_system_pairs`` counts the pairs of a system against itself."""
    judged = [p for p in pairs if p.pair_id in verdicts]
    matches = []  # (pair index, system of clip A, system of clip B, verdict)
    for i, pair in enumerate(judged):
        a, b = sides(pair)
        if a != b:
            matches.append((i, a, b, verdicts[pair.pair_id]))
    series: dict[tuple[str, ...], np.ndarray] = {}  # points per judged pair, NaN where it is no match
    counts: dict[tuple[str, ...], dict[str, int]] = {}

    def add(key: tuple[str, ...], i: int, outcome: str | None) -> None:
        cell = counts.setdefault(key, {"pairs": 0, "wins": 0, "ties": 0, "losses": 0, "abstained": 0})
        points = series.setdefault(key, np.full(len(judged), np.nan))
        cell["pairs"] += 1
        if outcome is None:
            cell["abstained"] += 1
            return
        cell[{"win": "wins", "tie": "ties", "loss": "losses"}[outcome]] += 1
        points[i] = _POINTS[outcome]

    for i, a, b, verdict in matches:
        add((a,), i, _outcome(verdict, "A"))
        add((b,), i, _outcome(verdict, "B"))
    rank = {k[0]: n for n, k in enumerate(sorted(series, key=lambda k: (-(_rate(series[k]) or 0.0), k)))}
    for i, a, b, verdict in matches:  # head to head, from the side of the better ranked system
        first, side = (a, "A") if rank[a] < rank[b] else (b, "B")
        add((first, b if first == a else a), i, _outcome(verdict, side))
    keys = list(series)
    intervals = _intervals([series[k] for k in keys], n_resamples, confidence, seed)
    rows = {
        k: {**counts[k], "win_rate": _rate(series[k]), "ci_low": lo, "ci_high": hi}
        for k, (lo, hi) in zip(keys, intervals)
    }
    order = lambda k: tuple(rank[name] for name in k)  # noqa: E731
    return {
        "systems": [{"system": k[0], **rows[k]} for k in sorted((k for k in keys if len(k) == 1), key=order)],
        "head_to_head": [
            {"system": k[0], "opponent": k[1], **rows[k]} for k in sorted((k for k in keys if len(k) == 2), key=order)
        ],
        "same_system_pairs": len(judged) - len(matches),
        "confidence": confidence,
        "n_resamples": n_resamples,
        "seed": seed,
    }


def _rate(points: np.ndarray) -> float | None:
    scored = points[~np.isnan(points)]
    return float(scored.mean()) if len(scored) else None


def _intervals(
    series: Sequence[np.ndarray], n_resamples: int, confidence: float, seed: int
) -> list[tuple[float | None, float | None]]:
    """Percentile intervals of each series' mean over the non-NaN pairs, all from one set of
    resampled pair indices; a resample without any pair of a series does not count for it."""
    if not series or not len(series[0]):
        return [(None, None)] * len(series)
    from voxjudge.stats import resample_chunks

    stacked = np.vstack(series)  # series x pairs
    values, present = np.nan_to_num(stacked).T, (~np.isnan(stacked)).T.astype(float)
    n_items = values.shape[0]
    means = []
    for idx in resample_chunks(n_items, n_resamples, seed):
        # how often each pair is drawn in each resample: the sums are then one matrix product
        offsets = (idx + n_items * np.arange(len(idx))[:, None]).ravel()
        drawn = np.bincount(offsets, minlength=len(idx) * n_items).reshape(len(idx), n_items).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            means.append((drawn @ values) / (drawn @ present))  # resamples x series
    dist = np.concatenate(means, axis=0).T
    alpha = (1 - confidence) / 2
    out = []
    for row in dist:
        row = row[~np.isnan(row)]
        if not len(row):
            out.append((None, None))
            continue
        lo, hi = np.quantile(row, [alpha, 1 - alpha])
        out.append((float(lo), float(hi)))
    return out


__all__ = ["sides", "win_rates"]
