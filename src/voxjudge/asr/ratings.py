"""Human ratings of single hypotheses (reference, hypothesis, a score), and how well the raters
agree with each other: the split-half reliability of their mean, the ceiling for any metric.

Each rating has a ``group``, what a bootstrap resamples as one unit: the reference by default, so
that all the hypotheses of one utterance (several systems' outputs of the same sentence, which
are not independent of each other) move together."""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voxjudge.errors import InputError

SCORE_COLUMNS = ("score", "human_mean", "rating")  # tried in this order when no column is named


@dataclass(frozen=True)
class Rating:
    id: str
    reference: str
    hypothesis: str
    score: float
    lang: str | None = None
    raters: tuple[float, ...] | None = None  # per-rater scores, when the file has them
    group: Hashable = None  # the bootstrap's unit; None: the reference

    def __post_init__(self) -> None:
        if self.group is None:
            object.__setattr__(self, "group", self.reference)


def read_ratings(path: str | Path, *, column: str | None = None, group_column: str | None = None) -> list[Rating]:
    """Ratings from CSV/TSV/JSONL: ``ref`` (or ``reference``), ``hyp`` (or ``hypothesis``), the
    score ``column`` (default: the first of score, human_mean, rating), optional ``id``, ``lang``
    and ``ratings`` (the per-rater scores as a JSON list, for the raters' split-half agreement).
    ``group_column`` names the column the bootstrap resamples by (default: the reference)."""
    from voxjudge.io.readers import rows_of

    path = str(path)
    rows = rows_of(path)
    if not rows:
        raise InputError(f"{path}: no ratings found")
    columns = set(rows[0][1])
    ref_col = next((c for c in ("ref", "reference") if c in columns), None)
    hyp_col = next((c for c in ("hyp", "hypothesis") if c in columns), None)
    score_col = column or next((c for c in SCORE_COLUMNS if c in columns), None)
    missing = [name for name, col in (("ref", ref_col), ("hyp", hyp_col)) if col is None]
    if score_col is None or score_col not in columns:
        missing.append(score_col or "a score (score, human_mean or rating; another column with {ratings_col})")
    if group_column and group_column not in columns:
        missing.append(f"{group_column} (named by {{ratings_group_col}})")
    if missing:
        raise InputError(
            f"{path}: ratings need columns {', '.join(missing)} (found: {', '.join(sorted(columns))})",
            options={"ratings_col": "column=", "ratings_group_col": "group_column="},
        )
    out, seen = [], set()
    for n, row in rows:
        uid = str(row.get("id") or n)
        if uid in seen:
            raise InputError(f"{path}:{n}: id {uid!r} appears twice")
        seen.add(uid)
        out.append(
            Rating(
                uid,
                _text(path, n, row, ref_col),
                _text(path, n, row, hyp_col),
                _number(path, n, row.get(score_col), score_col),
                _lang(path, n, row.get("lang")),
                _raters(path, n, row.get("ratings")) if "ratings" in columns else None,
                (str(row.get(group_column) or "").strip() or None) if group_column else None,
            )
        )
    return out


def _lang(path: str, n: int, value) -> str | None:
    """A lang cell as its canonical code ('EN', 'en-US' -> 'en'); empty: None (detected)."""
    from voxjudge.asr.laser.profiles import canonical

    code = str(value).strip() if value is not None else ""
    if not code:
        return None
    try:
        return canonical(code)
    except InputError as e:
        raise InputError(f"{path}:{n}: lang: {e}") from None


def _text(path: str, n: int, row: dict, col: str) -> str:
    from voxjudge.io.readers import text_cell

    value = row.get(col)
    return "" if value is None else text_cell(path, n, value, col).strip()


def _number(path: str, n: int, value, column: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{path}:{n}: {column} {value!r} is not a number") from None
    if not math.isfinite(number):
        raise InputError(f"{path}:{n}: {column} is {value!r}; scores must be finite numbers")
    return number


def _raters(path: str, n: int, value) -> tuple[float, ...]:
    try:
        scores = json.loads(value) if isinstance(value, str) else value
        out = tuple(float(x) for x in scores)
    except (TypeError, ValueError):
        raise InputError(f"{path}:{n}: ratings must be a JSON list of numbers (got {str(value)[:40]!r})") from None
    if not all(math.isfinite(x) for x in out):
        raise InputError(f"{path}:{n}: ratings must be finite numbers")
    return out


def split_half(raters: Sequence[Sequence[float]], *, n_splits: int = 1000, seed: int = 0) -> dict:
    """The raters' agreement with each other, the ceiling for a metric's Pearson r with their mean.

    Each split shuffles every item's raters (``numpy.random.default_rng(seed)``) and correlates the
    mean of one half with the mean of the other (Pearson, across items); ``half_r`` is the mean
    over splits. Spearman-Brown gives the reliability of the whole panel's mean,
    ``2r / (1 + r)``, and a metric equal to the raters' true scores would correlate with that
    mean at about ``sqrt(reliability)``: the ``ceiling``. Items need at least two raters.
    """
    if len(raters) < 3:
        raise ValueError(f"split-half agreement needs at least 3 rated items, got {len(raters)}")
    counts = np.array([len(r) for r in raters])
    if counts.min() < 2:
        raise ValueError("split-half agreement needs at least two raters per item")
    width = int(counts.max())
    table = np.full((len(raters), width), np.nan)
    for k, r in enumerate(raters):
        table[k, : len(r)] = r
    half = (counts // 2)[:, None]
    present = ~np.isnan(table)
    rng = np.random.default_rng(seed)
    rs = np.empty(n_splits)
    for s in range(n_splits):
        keys = np.where(present, rng.random(table.shape), np.inf)
        rank = np.argsort(np.argsort(keys, axis=1), axis=1)  # each rater's place in this item's shuffle
        first = present & (rank < half)
        second = present & (rank >= half) & (rank < 2 * half)  # an odd rater out sits in neither half
        a = np.nansum(np.where(first, table, 0), axis=1) / half[:, 0]
        b = np.nansum(np.where(second, table, 0), axis=1) / half[:, 0]
        rs[s] = np.corrcoef(a, b)[0, 1]
    rs = rs[np.isfinite(rs)]
    if not rs.size:
        raise ValueError("split-half agreement is undefined: the half means never vary")
    r = float(rs.mean())
    reliability = 2 * r / (1 + r) if r > -1 else float("nan")
    return {
        "items": len(raters),
        "raters_per_item": [int(counts.min()), int(counts.max())],
        "splits": int(rs.size),
        "seed": seed,
        "half_r": r,
        "reliability": reliability,
        "ceiling": math.sqrt(reliability) if reliability > 0 else 0.0,
    }


def join_ratings(
    ids: Sequence[str],
    references: Sequence[str],
    hypotheses: Sequence[str],
    scores: dict[str, float],
    *,
    texts_name: str = "hypotheses",
    scores_name: str = "the human scores",
    allow_partial: bool = False,
) -> tuple[list[Rating], dict]:
    """Ratings from hypotheses by id and a separate file of human scores by id, joined with the
    shared rules (``voxjudge.io.join``): an id on one side only is an error unless
    ``allow_partial``. Returns the ratings in hypothesis order and the join's coverage."""
    from voxjudge.io.join import join_by_id

    texts = dict(zip(ids, zip(references, hypotheses)))
    joined = join_by_id(
        texts, scores, left_name=texts_name, right_name=scores_name, what="hypotheses", allow_partial=allow_partial
    )
    ratings = [Rating(uid, ref, hyp, score) for uid, (ref, hyp), score in joined.triples()]
    return ratings, joined.coverage()
