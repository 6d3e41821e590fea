"""Agreement of any metric with human *preferences* between two hypotheses of one reference.

A preference is a triplet (reference, hypothesis A, hypothesis B) with the votes people gave
each side. As in the HATS evaluator: a metric agrees when it prefers the hypothesis most people
chose; a tie on either side (the metric scores both alike, or people split evenly) counts as
disagreement. Agreement is reported at *certitude* thresholds, certitude being the share of
votes the winning side got: 100% (unanimous), 70% (at least 70%) and all triplets. Confidence
intervals resample reference groups (every triplet of a reference moves together), on the same
resamples for every threshold and every metric, so figures are paired.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from voxjudge.errors import InputError
from voxjudge.stats.bootstrap import DEFAULT_RESAMPLES, resample_chunks

# (name, lowest certitude counted); exact fractions so 7 of 10 votes is exactly 70%.
CERTITUDES: tuple[tuple[str, Fraction], ...] = (("100%", Fraction(1)), ("70%", Fraction(7, 10)), ("all", Fraction(0)))


@dataclass(frozen=True)
class Preference:
    """One triplet and its votes. ``group`` is what the bootstrap resamples (the reference by default)."""

    reference: str
    hyp_a: str
    hyp_b: str
    votes_a: int
    votes_b: int
    group: Hashable = None
    line: int | None = None  # where it came from, for messages

    def __post_init__(self) -> None:
        if self.votes_a < 0 or self.votes_b < 0 or self.votes_a + self.votes_b == 0:
            raise ValueError(f"votes must be non-negative and not all zero (got {self.votes_a}, {self.votes_b})")
        if self.group is None:
            object.__setattr__(self, "group", self.reference)

    @property
    def certitude(self) -> Fraction:
        return Fraction(max(self.votes_a, self.votes_b), self.votes_a + self.votes_b)

    @property
    def human(self) -> int:
        """+1 when people preferred A, -1 for B, 0 for an even split."""
        return (self.votes_a > self.votes_b) - (self.votes_a < self.votes_b)


@dataclass(frozen=True)
class LevelAgreement:
    """Agreement at one certitude threshold. ``agreement`` is over ``judged`` triplets (those the
    metric scored on both sides); ``unscored`` triplets are coverage, not disagreements."""

    level: str
    threshold: float
    n: int
    judged: int
    agree: int
    metric_ties: int
    human_ties: int
    agreement: float | None
    ci_low: float | None
    ci_high: float | None

    @property
    def unscored(self) -> int:
        return self.n - self.judged

    def as_dict(self) -> dict:
        return {**asdict(self), "unscored": self.unscored}


def preference_agreement(
    preferences: Sequence[Preference],
    values_a: Sequence[float | None],
    values_b: Sequence[float | None],
    *,
    higher_is_better: bool,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    levels: Sequence[tuple[str, Fraction]] = CERTITUDES,
) -> list[LevelAgreement]:
    """How often a metric prefers the hypothesis most people chose, per certitude level.

    ``values_a[k]``/``values_b[k]`` are the metric's scores of ``preferences[k]``'s hypotheses
    (None: the metric could not score it; the triplet is then unscored at every level). Pass
    ``higher_is_better=False`` for error rates. Percentile CIs from a cluster bootstrap over
    ``Preference.group`` drawn from ``numpy.random.default_rng(seed)``.
    """
    n = len(preferences)
    if not (len(values_a) == len(values_b) == n):
        raise ValueError(f"{len(values_a)} and {len(values_b)} metric values for {n} preferences")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    human = np.array([p.human for p in preferences], dtype=int)
    judged = np.array([a is not None and b is not None for a, b in zip(values_a, values_b)], dtype=bool)
    sign = 1 if higher_is_better else -1
    metric = np.array(
        [sign * ((a > b) - (a < b)) if ok else 0 for a, b, ok in zip(values_a, values_b, judged)], dtype=int
    )
    agree = judged & (human != 0) & (metric == human)
    group_of = {g: k for k, g in enumerate(dict.fromkeys(p.group for p in preferences))}
    groups = np.array([group_of[p.group] for p in preferences], dtype=int)
    certitude = [p.certitude for p in preferences]
    masks = [np.array([c >= lowest for c in certitude], dtype=bool) for _, lowest in levels]
    # per group, per level: judged and agreeing triplets; a resample sums the groups it drew
    n_groups = len(group_of)
    judged_g = np.zeros((len(levels), n_groups))
    agree_g = np.zeros((len(levels), n_groups))
    for k, mask in enumerate(masks):
        np.add.at(judged_g[k], groups[mask & judged], 1)
        np.add.at(agree_g[k], groups[mask & agree], 1)
    samples: list[list[np.ndarray]] = [[] for _ in levels]
    if n_groups:
        for idx in resample_chunks(n_groups, n_resamples, seed):
            for k in range(len(levels)):
                with np.errstate(invalid="ignore", divide="ignore"):
                    samples[k].append(agree_g[k][idx].sum(axis=1) / judged_g[k][idx].sum(axis=1))
    alpha = (1 - confidence) / 2
    out = []
    for k, ((name, lowest), mask) in enumerate(zip(levels, masks)):
        n_level, n_judged = int(mask.sum()), int((mask & judged).sum())
        boot = np.concatenate(samples[k]) if samples[k] else np.empty(0)
        boot = boot[np.isfinite(boot)]
        low, high = (float(q) for q in np.quantile(boot, [alpha, 1 - alpha])) if boot.size else (None, None)
        hits = int((mask & agree).sum())
        out.append(
            LevelAgreement(
                level=name,
                threshold=float(lowest),
                n=n_level,
                judged=n_judged,
                agree=hits,
                metric_ties=int((mask & judged & (metric == 0)).sum()),
                human_ties=int((mask & (human == 0)).sum()),
                agreement=hits / n_judged if n_judged else None,
                ci_low=low,
                ci_high=high,
            )
        )
    return out


# ---- reading ----

_REFERENCE = ("reference", "ref")
_HATS_COLUMNS = ("reference", "hyp_a", "votes_a", "hyp_b", "votes_b")


def read_preferences(path: str | Path, *, group_column: str | None = None) -> list[Preference]:
    """Preferences from TSV/CSV/JSONL.

    Columns: ``reference`` (or ``ref``), ``hyp_a``, ``hyp_b`` and either ``votes_a`` and
    ``votes_b`` (counts, the HATS layout) or ``choice`` (``a`` or ``b``, any case: one vote per
    row; rows of the same triplet, in either order, are pooled into one triplet's votes). A
    header-less 5-column TSV is read as HATS (reference, hyp_a, votes_a, hyp_b, votes_b).
    ``group_column`` names the column to group the bootstrap by (default: the reference).
    """
    from voxjudge.io.readers import jsonl_objects, read_lines, table_rows

    path = str(path)
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        rows = jsonl_objects(path)
    elif suffix in (".csv", ".tsv"):
        lines = read_lines(path)
        delimiter = "\t" if suffix == ".tsv" else ","
        first = lines[0].split(delimiter) if lines else []
        if suffix == ".tsv" and len(first) == 5 and not set(first) & {*_HATS_COLUMNS, "ref"}:
            lines = ["\t".join(_HATS_COLUMNS)] + lines  # header-less HATS
        rows = table_rows(path, lines, delimiter)[1]
    else:
        raise InputError(f"{path}: preferences must be .tsv, .csv or .jsonl")
    if not rows:
        raise InputError(f"{path}: no preferences found")
    columns = set(rows[0][1])
    ref_col = next((c for c in _REFERENCE if c in columns), None)
    missing = [c for c in ("hyp_a", "hyp_b") if c not in columns] + ([] if ref_col else ["reference"])
    has_votes, has_choice = {"votes_a", "votes_b"} <= columns, "choice" in columns
    if not (has_votes or has_choice):
        missing.append("votes_a and votes_b, or choice")
    if group_column and group_column not in columns:
        missing.append(group_column)
    if missing:
        raise InputError(
            f"{path}: preferences need columns {', '.join(missing)} (found: {', '.join(sorted(columns))}); "
            "expected reference, hyp_a, hyp_b and votes_a/votes_b or choice (a/b)"
            + (
                "; the reference groups the bootstrap unless {group_column} names another column"
                if group_column
                else ""
            ),
            options={"group_column": "group_column="},
        )

    def text(n: int, row: dict, col: str) -> str:
        value = row.get(col)
        if value is None or not isinstance(value, str | int | float):
            raise InputError(f"{path}:{n}: '{col}' is missing or not text")
        return str(value).strip()

    def group(n: int, row: dict, reference: str) -> Hashable:
        return text(n, row, group_column) if group_column else reference

    if has_votes:
        out = []
        for n, row in rows:
            votes = [_count(path, n, row.get(c), c) for c in ("votes_a", "votes_b")]
            if sum(votes) == 0:
                raise InputError(f"{path}:{n}: no votes for either hypothesis")
            ref = text(n, row, ref_col)
            out.append(Preference(ref, text(n, row, "hyp_a"), text(n, row, "hyp_b"), *votes, group(n, row, ref), n))
        return out
    pooled: dict[tuple[str, str, str], list] = {}
    for n, row in rows:
        choice = str(row.get("choice") or "").strip().lower()
        if choice not in ("a", "b"):
            raise InputError(f"{path}:{n}: choice must be a or b (got {row.get('choice')!r})")
        ref, a, b = (text(n, row, c) for c in (ref_col, "hyp_a", "hyp_b"))
        swapped = (ref, a, b) not in pooled and (ref, b, a) in pooled
        key, side = ((ref, b, a), "ab"[choice == "a"]) if swapped else ((ref, a, b), choice)
        cell = pooled.setdefault(key, [0, 0, group(n, row, ref), n])
        cell[0 if side == "a" else 1] += 1
    return [Preference(r, a, b, va, vb, g, n) for (r, a, b), (va, vb, g, n) in pooled.items()]


def _count(path: str, n: int, value, column: str) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{path}:{n}: {column} must be a whole number of votes (got {value!r})") from None
    if number < 0 or number != int(number):
        raise InputError(f"{path}:{n}: {column} must be a whole number of votes (got {value!r})")
    return int(number)
