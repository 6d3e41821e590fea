"""The judge card: WER, CER and any LASER judges side by side on a user's own human data.

Human preferences (which of two hypotheses people chose) give agreement at certitude 100%, 70%
and all (``voxjudge.asr.preference``); human ratings of single hypotheses give Pearson, Spearman
and Kendall (scipy's estimates) with CIs from a bootstrap that resamples whole utterances (every
hypothesis of one reference together: ``voxjudge.stats.grouped``), and, when the file has
per-rater scores, the raters' own split-half ceiling. Every pair of metrics also gets the paired
difference of its figures (agreement at each level, each correlation) with a CI from the same
resamples, which is what says whether one judge is really better than another. Every metric scores each
unique (reference, hypothesis) once (the work is deduplicated), but the card keeps one row per human
datum: each rated hypothesis, and each side of each preference triplet, with its id, so its records
and its coverage count what people judged; a hypothesis a judge could not score (an LLM that gave no
valid answer) is counted as coverage, never dropped from sight. How the LASER judges are run
(the scorer the card takes) and what a card would send and cost: ``voxjudge.asr.judge_card_laser``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from voxjudge.asr.judge_card_laser import LaserScorer, laser_scorer
from voxjudge.asr.laser.people import FITTED
from voxjudge.asr.preference import Preference, agreement_differences, preference_agreement, triplet_side
from voxjudge.asr.ratings import Rating, split_half
from voxjudge.stats.bootstrap import DEFAULT_RESAMPLES
from voxjudge.summaries import embedder_named

Texts = tuple[str, str]  # (reference, hypothesis)
# Kendall's bootstrap costs ~10x Pearson's on a few hundred items; it is there when asked for
METHODS = ("pearson", "spearman")


@dataclass(frozen=True)
class Metric:
    name: str
    higher_is_better: bool
    values: dict[Texts, float | None] = field(repr=False)
    run: dict[str, Any] = field(default_factory=dict, repr=False)  # e.g. an LLM judge's usage
    # what the figure is fitted to people from (laser_calibrated's model), None for the others:
    # the card names it so, since on the shipped human sets it is not out of fold
    fitted: str | None = None
    # the calibration file it came from, as asr score's summary names it: {"calibration": ...,
    # "calibration_sha256": ...} (no digest: the shipped one)
    calibration: dict[str, str] = field(default_factory=dict)

    def scored(self, keys: Sequence[Texts]) -> int:
        return sum(self.values[k] is not None for k in keys)

    def goodness(self, key: Texts) -> float | None:
        """The value oriented so that higher is better (1 - WER), for correlations with ratings."""
        v = self.values[key]
        return None if v is None else (v if self.higher_is_better else 1 - v)


# what the card shows for a metric: "1 - WER" for one whose correlations use 1 - value
# (``Metric.goodness``), as ``asr score --human`` names them, and "(fitted to people)" after a
# figure fitted to people (the house rule: named so wherever it appears); the JSON keys and the
# --out columns keep the metric's own name, since they hold its own values
def label(m: Metric) -> str:
    shown = m.name if m.higher_is_better else f"1 - {m.name}"
    return f"{shown} ({FITTED})" if m.fitted else shown


# the identity columns of a card's rows, in the order the records give them
ROW_KEYS = ("source", "id", "system", "lang", "triplet", "line", "side", "reference", "hypothesis")
# and what people said of it: a rating's score (the file's scale), a side's votes and its rival's
HUMAN_KEYS = ("human", "votes", "votes_other")


@dataclass
class JudgeCard:
    settings: dict[str, Any]
    summary: dict[str, Any]
    metrics: list[Metric] = field(repr=False)
    rows: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def unscored(self) -> int:
        """Hypotheses some metric could not score (each counted once per metric)."""
        return sum(c["total"] - c["scored"] for c in self.summary["coverage"].values())

    @property
    def total(self) -> int:
        return sum(c["total"] for c in self.summary["coverage"].values())

    @property
    def records(self) -> list[dict[str, Any]]:
        """One record per row (each rated hypothesis, each side of each preference triplet): its id
        (system and lang where the ratings give them), texts, what people said (``human``: the
        rating; ``votes``, ``votes_other``: the side's votes and its rival's), and every metric's
        own value (WER, not 1 - WER; None: unscored). Every record has the same columns."""
        columns = [k for k in (*ROW_KEYS, *HUMAN_KEYS) if any(k in row for row in self.rows)]
        return [
            {k: row.get(k) for k in columns}
            | {m.name: m.values[(row["reference"], row["hypothesis"])] for m in self.metrics}
            for row in self.rows
        ]


def classic_metrics(keys: Sequence[Texts], normalize: str = "basic") -> list[Metric]:
    """WER and CER per hypothesis after ``normalize`` (default 'basic': case and punctuation
    ignored, as LASER's side-by-side WER is); an empty reference has neither."""
    from voxjudge.asr.measures import count_words_and_chars
    from voxjudge.asr.normalize import get_normalizer

    refs, hyps = [k[0] for k in keys], [k[1] for k in keys]
    word, char = count_words_and_chars(refs, hyps, normalizer=get_normalizer(normalize))
    wer = {k: (w.error_rate if w.ref_len else None) for k, w in zip(keys, word)}
    cer = {k: (c.error_rate if c.ref_len else None) for k, c in zip(keys, char)}
    return [Metric("WER", False, wer), Metric("CER", False, cer)]


def unique_texts(preferences: Sequence[Preference] = (), ratings: Sequence[Rating] = ()) -> list[Texts]:
    keys: dict[Texts, None] = {}
    for p in preferences:
        keys[(p.reference, p.hyp_a)] = None
        keys[(p.reference, p.hyp_b)] = None
    for r in ratings:
        keys[(r.reference, r.hypothesis)] = None
    return list(keys)


def card_names(keys: Sequence[Texts], preferences: Sequence[Preference] = (), ratings: Sequence[Rating] = ()):
    """What each unique text pair is called in a judge's messages (an embedder that could not
    embed it, say): the first human datum it comes from, as the user's files name it."""
    names: dict[Texts, str] = {}
    for k, p in enumerate(preferences, 1):
        names.setdefault((p.reference, p.hyp_a), triplet_side(k, p.line, "hyp_a"))
        names.setdefault((p.reference, p.hyp_b), triplet_side(k, p.line, "hyp_b"))
    for r in ratings:
        names.setdefault((r.reference, r.hypothesis), f"rating {r.id}")
    return [names[k] for k in keys]


def card_rows(
    preferences: Sequence[Preference] = (), ratings: Sequence[Rating] = (), systems: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The card's rows: each side of each preference triplet (numbered from 1, with its file line
    when known), then each rated hypothesis with its id, and its system (``systems``: by rating id)
    and lang when known. Rows with the same texts stay apart; their metrics score the texts once."""
    rows: list[dict[str, Any]] = []
    for k, p in enumerate(preferences, 1):
        where = {"triplet": k} | ({"line": p.line} if p.line is not None else {})
        for side, hyp, votes, other in (("a", p.hyp_a, p.votes_a, p.votes_b), ("b", p.hyp_b, p.votes_b, p.votes_a)):
            rows.append(
                {"source": "preferences", **where, "side": side, "reference": p.reference, "hypothesis": hyp}
                | {"votes": votes, "votes_other": other}
            )
    for r in ratings:
        known = {"system": (systems or {}).get(r.id), "lang": r.lang}
        rows.append(
            {"source": "ratings", "id": r.id, **{k: v for k, v in known.items() if v}}
            | {"reference": r.reference, "hypothesis": r.hypothesis, "human": r.score}
        )
    return rows


def judge_card(
    *,
    preferences: Sequence[Preference] | None = None,
    ratings: Sequence[Rating] | None = None,
    judges: Sequence[str] = ("default",),
    laser: LaserScorer | None = None,
    names: dict[str, str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    split_halves: int = 1000,
    normalize: str = "basic",
    methods: Sequence[str] = METHODS,
    ratings_join: dict[str, Any] | None = None,
    ratings_unit: str = "utterance",
    systems: dict[str, str] | None = None,
) -> JudgeCard:
    """Agreement of WER, CER and LASER under each of ``judges`` with the human preferences and
    ratings given (at least one of them). ``laser(spec, refs, hyps)`` scores hypotheses with one
    judge (default: ``laser_scorer()``, the shipped rubric through ``run_laser``); ``names`` labels
    the human sets (e.g. by file) in the summary; ``methods``: the correlations with ratings
    (pearson, spearman, kendall; the first is the card's headline); ``ratings_join``: the coverage
    of the join that built ``ratings`` from separate files (``join_ratings``), shown first;
    ``ratings_unit``: what ``Rating.group`` holds, for the summary (default: the utterance, i.e.
    the reference); ``systems``: each rating's system by id, for the records."""
    from voxjudge.stats.correlation import METHODS as KNOWN

    if not methods or any(m not in KNOWN for m in methods):
        raise ValueError(f"methods must be some of {', '.join(KNOWN)}, got {', '.join(methods) or 'none'}")
    if not preferences and not ratings:
        raise ValueError("a judge card needs human preferences, ratings, or both")
    preferences, ratings = list(preferences or ()), list(ratings or ())
    laser = laser or laser_scorer()
    keys = unique_texts(preferences, ratings)  # the work: each text pair once
    rows = card_rows(preferences, ratings, systems)  # what is reported: each human datum
    metrics = classic_metrics(keys, normalize)
    # a lang column decides each rated text's language; the other texts are one input (its language
    # detected once), as 'asr score' decides it for a file
    lang_of = {(r.reference, r.hypothesis): r.lang for r in ratings if r.lang}
    given: dict[str, list] = {"langs": [lang_of.get(k) for k in keys]} if lang_of else {}
    # the offline judges first: what can refuse the card (an embedder its calibration has no model
    # for, a calibration of another rubric) refuses it before an LLM judge is paid; rows keep the
    # order given
    from voxjudge.asr.laser import is_offline

    if getattr(laser, "takes_names", False):
        given["names"] = card_names(keys, preferences, ratings)
    scored = {
        spec: laser(spec, [k[0] for k in keys], [k[1] for k in keys], **given)
        for spec in sorted(judges, key=lambda spec: not is_offline(spec))
    }
    semdist = None
    for spec in judges:
        values, run = scored[spec]
        figures = run.pop("figures", {})
        metrics.append(Metric(f"LASER {spec}", True, dict(zip(keys, values)), run))
        if figures.get("laser_calibrated") is not None:
            metrics.append(
                Metric(
                    f"LASER {spec} calibrated",
                    True,
                    dict(zip(keys, figures["laser_calibrated"])),
                    fitted=run.get("laser_calibrated_model"),
                    calibration={k: run[k] for k in ("calibration", "calibration_sha256") if run.get(k)},
                )
            )
        if semdist is None and figures.get("semdist") is not None:
            semdist = Metric(f"SemDist ({embedder_named(run)})", False, dict(zip(keys, figures["semdist"])))
    if semdist is not None:
        metrics.append(semdist)
    boot = {"resamples": n_resamples, "confidence": confidence, "seed": seed}
    texts = [(row["reference"], row["hypothesis"]) for row in rows]
    summary: dict[str, Any] = {
        "metrics": [
            {"name": m.name, "label": label(m), "higher_is_better": m.higher_is_better}
            | ({"fitted": m.fitted} if m.fitted else {})
            | m.calibration
            for m in metrics
        ],
        # over the rows (rated hypotheses, preference sides), as the figures count them
        "coverage": {m.name: {"scored": m.scored(texts), "total": len(texts)} for m in metrics},
        "bootstrap": boot,
        "normalization": normalize,  # of WER and CER; LASER judges words as the rubric says
    }
    names = names or {}
    if preferences:
        summary["preferences"] = _preferences(preferences, metrics, boot, names.get("preferences"))
    if ratings:
        summary["ratings"] = _ratings(ratings, metrics, boot, names.get("ratings"), split_halves, list(methods))
        summary["ratings"]["bootstrap_unit"] = ratings_unit
        if ratings_join is not None:
            summary["ratings"]["join"] = ratings_join
    runs = {m.name: m.run for m in metrics if m.run}
    if runs:
        summary["runs"] = runs
    settings = {
        "judges": list(judges),
        **boot,
        "split_halves": split_halves,
        "normalize": normalize,
        "methods": list(methods),
    }
    return JudgeCard(settings, summary, metrics, rows)


def _preferences(prefs: list[Preference], metrics: list[Metric], boot: dict, name: str | None) -> dict[str, Any]:
    by_metric = {}
    for m in metrics:
        a = [m.values[(p.reference, p.hyp_a)] for p in prefs]
        b = [m.values[(p.reference, p.hyp_b)] for p in prefs]
        levels = preference_agreement(
            prefs,
            a,
            b,
            higher_is_better=m.higher_is_better,
            n_resamples=boot["resamples"],
            confidence=boot["confidence"],
            seed=boot["seed"],
        )
        by_metric[m.name] = [lv.as_dict() for lv in levels]
    differences = []
    for later, earlier in metric_pairs(metrics):

        def scores(m: Metric):
            a = [m.values[(p.reference, p.hyp_a)] for p in prefs]
            return a, [m.values[(p.reference, p.hyp_b)] for p in prefs], m.higher_is_better

        found = agreement_differences(
            prefs,
            (later.name, scores(later)),
            (earlier.name, scores(earlier)),
            n_resamples=boot["resamples"],
            confidence=boot["confidence"],
            seed=boot["seed"],
        )
        differences += [d.as_dict() for d in found]
    first = next(iter(by_metric.values()))
    return {
        "source": name,
        "triplets": len(prefs),
        "groups": len({p.group for p in prefs}),
        "votes": sum(p.votes_a + p.votes_b for p in prefs),
        "levels": {lv["level"]: lv["n"] for lv in first},
        "human_ties": first[-1]["human_ties"],
        "by_metric": by_metric,
        "differences": differences,
        "bootstrap_unit": "reference group",
    }


def metric_pairs(metrics: Sequence[Metric]) -> list[tuple[Metric, Metric]]:
    """The pairs a card compares: every metric against each one listed before it (CER - WER,
    LASER - WER, LASER - CER, a second judge - the first, ...)."""
    return [(metrics[j], metrics[i]) for j in range(len(metrics)) for i in range(j)]


def _ratings(
    ratings: list[Rating], metrics: list[Metric], boot: dict, name: str | None, splits: int, methods: list[str]
) -> dict:
    langs = sorted({r.lang for r in ratings if r.lang})
    subsets: list[tuple[str, list[Rating]]] = [("all", ratings)]
    if len(langs) > 1:
        subsets += [(lang, [r for r in ratings if r.lang == lang]) for lang in langs]
    out: dict[str, Any] = {
        "source": name,
        "items": len(ratings),
        "langs": langs,
        "methods": methods,
        "by_subset": {},
    }
    for subset, rows in subsets:
        cell = _correlations(rows, metrics, boot, name, methods)
        if all(r.raters for r in rows):
            try:
                cell["raters"] = split_half([r.raters for r in rows], n_splits=splits, seed=boot["seed"])
            except ValueError as e:
                cell["raters"] = {"note": str(e)}
        out["by_subset"][subset] = cell
    return out


def _correlations(rows: list[Rating], metrics: list[Metric], boot: dict, name: str | None, methods: list[str]) -> dict:
    """Each metric's correlations with the ratings and every pair's paired differences, all from one
    set of utterance resamples."""
    from voxjudge.stats.grouped import grouped_correlations

    values = {m.name: [m.goodness((r.reference, r.hypothesis)) for r in rows] for m in metrics}
    found = grouped_correlations(
        values,
        [r.score for r in rows],
        [r.group for r in rows],
        methods,
        pairs=[(a.name, b.name) for a, b in metric_pairs(metrics)],
        n_resamples=boot["resamples"],
        confidence=boot["confidence"],
        seed=boot["seed"],
    )
    by_metric: dict[str, Any] = {}
    for m in metrics:
        n = sum(v is not None for v in values[m.name])
        cell: dict[str, Any] = {"n": n, "unscored": len(rows) - n}
        got = found.by_metric[m.name]
        by_metric[m.name] = (
            {**cell, "note": got} if isinstance(got, str) else {**cell, **{k: c.as_dict() for k, c in got.items()}}
        )
    return {
        "items": len(rows),
        "groups": found.groups,
        "by_metric": by_metric,
        "differences": [d.as_dict() for d in found.differences],
    }
