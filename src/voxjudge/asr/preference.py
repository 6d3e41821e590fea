"""Agreement of any metric with human *preferences* between two hypotheses of one reference.

A preference is a triplet (reference, hypothesis A, hypothesis B) with the votes people gave
each side. As in the HATS evaluator: a metric agrees when it prefers the hypothesis most people
chose; a tie on either side (the metric scores both alike, or people split evenly) counts as
disagreement. Agreement is reported at *certitude* thresholds, certitude being the share of
votes the winning side got: 100% (unanimous), 70% (at least 70%) and all triplets. Confidence
intervals resample reference groups (every triplet of a reference moves together), on the same
resamples for every threshold and every metric, so figures are paired: ``agreement_differences``
gives one metric's agreement minus another's per level, with its CI from those resamples.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from voxjudge.errors import InputError
from voxjudge.stats.bootstrap import DEFAULT_RESAMPLES, resample_chunks
from voxjudge.stats.grouped import MIN_GROUPS

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


def triplet_side(k: int, line: int | None, side: str) -> str:
    """How messages name one hypothesis of the ``k``-th triplet (1-based): ``triplet 3 (line 4) hyp_b``."""
    return f"triplet {k}" + (f" (line {line})" if line is not None else "") + f" {side}"


@dataclass(frozen=True)
class LevelAgreement:
    """Agreement at one certitude threshold. ``agreement`` is over ``judged`` triplets (those the
    metric scored on both sides); ``unscored`` triplets are coverage, not disagreements.
    ``groups``: the reference groups of the judged triplets, which the bootstrap resamples; with
    fewer than two there is no interval (every resample would redraw the same triplets)."""

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
    groups: int = 0

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
    judged, agree, metric = _verdicts(preferences, values_a, values_b, higher_is_better)
    human = np.array([p.human for p in preferences], dtype=int)
    groups, n_groups, masks = _groups_and_levels(preferences, levels)
    judged_g = _per_group(groups, n_groups, [mask & judged for mask in masks])
    agree_g = _per_group(groups, n_groups, [mask & agree for mask in masks])
    samples = _resampled(agree_g, judged_g, n_groups, n_resamples, seed)
    out = []
    for k, ((name, lowest), mask) in enumerate(zip(levels, masks)):
        n_judged = int((mask & judged).sum())
        n_groups_judged = _groups_of(groups, mask & judged)
        low, high = _interval(samples[k], confidence) if n_groups_judged >= MIN_GROUPS else (None, None)
        hits = int((mask & agree).sum())
        out.append(
            LevelAgreement(
                level=name,
                threshold=float(lowest),
                n=int(mask.sum()),
                judged=n_judged,
                agree=hits,
                metric_ties=int((mask & judged & (metric == 0)).sum()),
                human_ties=int((mask & (human == 0)).sum()),
                agreement=hits / n_judged if n_judged else None,
                ci_low=low,
                ci_high=high,
                groups=n_groups_judged,
            )
        )
    return out


@dataclass(frozen=True)
class LevelDifference:
    """Agreement of metric ``a`` minus that of metric ``b`` at one certitude level, over the
    ``judged`` triplets both scored, with a paired percentile CI and a two-sided bootstrap p-value
    (none over fewer than two reference ``groups``)."""

    a: str
    b: str
    level: str
    judged: int
    a_agreement: float | None
    b_agreement: float | None
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    groups: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


Scores = tuple[Sequence[float | None], Sequence[float | None], bool]  # (values of A, of B, higher is better)


def agreement_differences(
    preferences: Sequence[Preference],
    a: tuple[str, Scores],
    b: tuple[str, Scores],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    levels: Sequence[tuple[str, Fraction]] = CERTITUDES,
) -> list[LevelDifference]:
    """Is metric ``a`` really better than ``b``? Per certitude level, agreement(a) - agreement(b)
    over the triplets both metrics scored, each resample drawing the same reference groups as
    ``preference_agreement`` with the same seed draws (so the difference is paired). ``a`` and
    ``b`` are ``(name, (values_a, values_b, higher_is_better))``."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    (name_a, (aa, ab, hib_a)), (name_b, (ba, bb, hib_b)) = a, b
    if not (len(aa) == len(ab) == len(ba) == len(bb) == len(preferences)):
        raise ValueError("each metric needs one value per hypothesis of every preference")
    judged_a, agree_a, _ = _verdicts(preferences, aa, ab, hib_a)
    judged_b, agree_b, _ = _verdicts(preferences, ba, bb, hib_b)
    both = judged_a & judged_b
    groups, n_groups, masks = _groups_and_levels(preferences, levels)
    judged_g = _per_group(groups, n_groups, [mask & both for mask in masks])
    gain_g = _per_group(groups, n_groups, [mask & both & agree_a for mask in masks]) - _per_group(
        groups, n_groups, [mask & both & agree_b for mask in masks]
    )
    samples = _resampled(gain_g, judged_g, n_groups, n_resamples, seed)
    out = []
    for k, ((name, _), mask) in enumerate(zip(levels, masks)):
        judged = int((mask & both).sum())
        n_groups_judged = _groups_of(groups, mask & both)
        d = samples[k] if n_groups_judged >= MIN_GROUPS else np.empty(0)
        low, high = _interval(d, confidence)
        p = min(1.0, 2 * min(float(np.mean(d <= 0)), float(np.mean(d >= 0)))) if d.size else None
        share_a = int((mask & both & agree_a).sum()) / judged if judged else None
        share_b = int((mask & both & agree_b).sum()) / judged if judged else None
        diff = share_a - share_b if judged else None  # type: ignore[operator]
        out.append(LevelDifference(name_a, name_b, name, judged, share_a, share_b, diff, low, high, p, n_groups_judged))
    return out


def _verdicts(preferences: Sequence[Preference], values_a, values_b, higher_is_better: bool):
    """Per triplet: scored on both sides; agrees with people; the metric's preference (+1 A, -1 B, 0 tie)."""
    human = np.array([p.human for p in preferences], dtype=int)
    judged = np.array([x is not None and y is not None for x, y in zip(values_a, values_b)], dtype=bool)
    sign = 1 if higher_is_better else -1
    metric = np.array(
        [sign * ((x > y) - (x < y)) if ok else 0 for x, y, ok in zip(values_a, values_b, judged)], dtype=int
    )
    return judged, judged & (human != 0) & (metric == human), metric


def _groups_and_levels(preferences: Sequence[Preference], levels: Sequence[tuple[str, Fraction]]):
    group_of = {g: k for k, g in enumerate(dict.fromkeys(p.group for p in preferences))}
    groups = np.array([group_of[p.group] for p in preferences], dtype=int)
    certitude = [p.certitude for p in preferences]
    masks = [np.array([c >= lowest for c in certitude], dtype=bool) for _, lowest in levels]
    return groups, len(group_of), masks


def _groups_of(groups: np.ndarray, mask: np.ndarray) -> int:
    """How many reference groups the triplets of ``mask`` come from."""
    return len(np.unique(groups[mask]))


def _per_group(groups: np.ndarray, n_groups: int, masks: list[np.ndarray]) -> np.ndarray:
    """(levels x groups) counts of the triplets each mask selects."""
    out = np.zeros((len(masks), n_groups))
    for k, mask in enumerate(masks):
        np.add.at(out[k], groups[mask], 1)
    return out


def _resampled(numerator: np.ndarray, denominator: np.ndarray, n_groups: int, n_resamples: int, seed: int):
    """Per level, the ratio of sums over each resample's groups (NaN-free)."""
    samples: list[list[np.ndarray]] = [[] for _ in numerator]
    if n_groups:
        for idx in resample_chunks(n_groups, n_resamples, seed):
            for k in range(len(numerator)):
                with np.errstate(invalid="ignore", divide="ignore"):
                    samples[k].append(numerator[k][idx].sum(axis=1) / denominator[k][idx].sum(axis=1))
    out = []
    for chunks in samples:
        boot = np.concatenate(chunks) if chunks else np.empty(0)
        out.append(boot[np.isfinite(boot)])
    return out


def _interval(boot: np.ndarray, confidence: float) -> tuple[float | None, float | None]:
    alpha = (1 - confidence) / 2
    if not boot.size:
        return None, None
    low, high = np.quantile(boot, [alpha, 1 - alpha])
    return float(low), float(high)


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
    from voxjudge.io.readers import read_lines, rows_of, text_cell

    path = str(path)
    suffix = Path(path).suffix.lower()
    lines = None if suffix in (".jsonl", ".ndjson") else read_lines(path)
    first = lines[0].split("\t") if lines else []
    if suffix != ".csv" and len(first) == 5 and not set(first) & {*_HATS_COLUMNS, "ref"}:
        lines = ["\t".join(_HATS_COLUMNS)] + lines  # header-less HATS (tab-separated)
    rows = rows_of(path, lines)
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
        if value is None:
            raise InputError(f"{path}:{n}: '{col}' is missing or not text")
        return text_cell(path, n, value, col).strip()

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
