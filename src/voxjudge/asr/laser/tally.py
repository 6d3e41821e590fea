"""The LASER summary as a running tally: utterance by utterance, in input order, holding only
counts and sums, so a corpus of any size is summarised in constant memory and the figures are
the same whether the utterances were kept, streamed, or scored by worker processes.

Partial is never a headline. ``coverage`` (the first key) says how many utterances were scored
and why the others were not. An empty reference has no LASER score by definition (the score
divides by reference words); that is stated, and the corpus figures cover the others. When a
judge left utterances unscored, the run is ``partial``: only utterances with mismatches can go
unscored, so LASER over the scored ones is biased upwards -- it is not reported as the score
(``laser_micro``/``laser_macro`` are None) but kept apart under ``scored_only`` with that warning.

WER beside LASER is the corpus WER (word edits / reference words, summed over utterances) on
the very tokens the LASER alignment compares (``align.word_key``: NFC, case folded, edge
punctuation off; punctuation-only tokens dropped), over the utterances with a reference.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import reduce
from itertools import compress
from operator import add
from typing import Any

from voxjudge.asr.laser.rubric import LaserRubric

EMPTY_REFERENCE = "reference with no words, empty or only punctuation and symbols: LASER divides by reference words"
WER_TOKENS = "the LASER alignment's tokens (NFC, case folded, edge punctuation off, punctuation-only tokens dropped)"
SEMDIST_COVERS = (
    "every utterance, scored or not: SemDist needs no reference words, and an unscored one has its distance too"
)
NOT_THE_SCORE = (
    "covers only the scored utterances; only utterances with mismatches can go unscored, so this "
    "is biased upwards and is not the corpus score"
)


class LaserTally:
    def __init__(self) -> None:
        self.utterances = 0
        self.scored = 0
        self.reasons: dict[str, int] = {}
        self.penalty: float | int = 0
        self.ref_words = 0
        self.laser_sum: float | int = 0
        self.labels = {"match": 0, "no_penalty": 0, "minor": 0, "major": 0}
        self.disputed = 0
        self.types: dict[str, dict[str, float]] = {}
        self.wer_errors = 0
        self.wer_ref_words = 0
        self.wer_utterances = 0
        self.format_errors = 0
        self.semdist_sum: float | int = 0
        self.semdist_n = 0
        self.calibrated_sum: float | int = 0
        self.calibrated_n = 0

    def add_scored(self, u) -> None:
        """An ``UtteranceScore`` with its pairs (every pair of a scored one, identical ones too)."""
        events = [(p.label, p.error_type, p.penalty, p.disputed) for p in u.pairs] if u.laser is not None else []
        figures = (u.penalty, u.laser, u.ref_words, u.word_edits, 0, len(events), u.format_errors, u.semdist)
        self.add_part(tally_part([(*figures, u.laser_calibrated)], events, u.unscored))

    def add_part(self, part: TallyPart) -> None:
        """A chunk's ``tally_part``: the same figures as its utterances and pairs one by one (the
        float sums add the same numbers in the same order)."""
        self.utterances += part.utterances
        self.wer_errors += part.wer_errors
        self.wer_ref_words += part.wer_ref_words
        self.wer_utterances += part.wer_utterances
        for reason, n in part.unscored.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + n
        self.scored += len(part.penalties)
        self.penalty = reduce(add, part.penalties, self.penalty)
        self.ref_words += part.ref_words
        self.laser_sum = reduce(add, part.lasers, self.laser_sum)
        for label, n in part.labels.items():
            self.labels[label] += n
        self.disputed += part.disputed
        for error_type, (n, penalties) in part.types.items():
            cell = self.types.setdefault(error_type, {"count": 0, "penalty": 0.0})
            cell["count"] += n
            cell["penalty"] = reduce(add, penalties, cell["penalty"])
        self.format_errors += part.format_errors
        self.semdist_sum = reduce(add, part.semdists, self.semdist_sum)
        self.semdist_n += len(part.semdists)
        self.calibrated_sum = reduce(add, part.calibrated, self.calibrated_sum)
        self.calibrated_n += len(part.calibrated)

    @property
    def partial(self) -> bool:
        return any(reason != EMPTY_REFERENCE for reason in self.reasons)

    def summary(self, rubric: LaserRubric) -> dict[str, Any]:
        n, unscored = self.scored, self.utterances - self.scored
        micro = max(0.0, 1 - self.penalty / self.ref_words) if self.ref_words else None  # floored as each utterance is
        macro = (self.laser_sum / n) if n else None
        partial = self.partial
        coverage: dict[str, Any] = {
            "utterances": self.utterances,
            "scored": n,
            "unscored": unscored,
            "unscored_reasons": dict(self.reasons),
            "partial": partial,
            "covers": {
                "laser": f"{n} of {self.utterances} utterances (the scored ones)",
                "wer": f"{self.wer_utterances} of {self.utterances} utterances (those with a reference)",
            },
        }
        out: dict[str, Any] = {
            "coverage": coverage,
            "n": n,
            "n_unscored": unscored,
            "laser_micro": None if partial else micro,
            "laser_macro": None if partial else macro,
            "wer": (self.wer_errors / self.wer_ref_words) if self.wer_ref_words else None,
            "wer_errors": self.wer_errors,
            "wer_ref_words": self.wer_ref_words,
            "wer_tokens": WER_TOKENS,
            # case and punctuation: a figure of their own (the rubric score does not count them)
            "format_errors": self.format_errors,
            "format_error_rate": (self.format_errors / self.ref_words) if self.ref_words else None,
            "penalty": self.penalty,
            "ref_words": self.ref_words,
            "labels": dict(self.labels),
            "disputed": self.disputed,
            "error_types": dict(sorted(self.types.items(), key=lambda kv: -kv[1]["count"])),
            "rubric": {"name": rubric.name, "version": rubric.version, "sha256": rubric.sha256, "tiers": rubric.tiers},
        }
        if self.calibrated_n:  # the mean of the figure fitted to people, over the utterances that have it
            out["laser_calibrated"] = None if partial else self.calibrated_sum / self.calibrated_n
        if self.semdist_n:  # every utterance, scored or not: a distance needs no reference words
            out["semdist"] = self.semdist_sum / self.semdist_n
            coverage["covers"]["semdist"] = f"{self.semdist_n} of {self.utterances} utterances ({SEMDIST_COVERS})"
        if partial:
            out["scored_only"] = {"laser_micro": micro, "laser_macro": macro, "n": n, "note": NOT_THE_SCORE}
        return out


@dataclass
class TallyPart:
    """A chunk's share of the tally, made where the chunk was scored (a worker process), so that
    the process adding the chunks up does a few steps per chunk, not one per utterance and pair.
    Float sums travel as the numbers to add, in order: added in another order they could differ."""

    utterances: int
    unscored: dict[str, int]  # why utterances have no score -> how many
    penalties: list  # of the scored utterances, in order
    lasers: list
    ref_words: int  # of the scored utterances
    wer_errors: int
    wer_ref_words: int
    wer_utterances: int
    labels: dict[str, int]  # identical pairs counted as matches
    disputed: int
    types: dict[str, tuple[int, list]]  # error type -> (count, penalties in order), in order of first sight
    format_errors: int = 0  # pairs that match but for case or punctuation, of the scored utterances
    semdists: list = field(default_factory=list)  # SemDist of the utterances that have one, in order
    calibrated: list = field(default_factory=list)  # laser_calibrated of the scored ones that have it


def tally_part(figures: list[tuple], events: list[tuple], unscored: str | None = None) -> TallyPart:
    """``figures``: (penalty, laser, ref_words, edits, identical pairs, labelled pairs, format errors,
    SemDist or None, laser_calibrated or None) per utterance (an utterance without a score has
    no pairs); ``events``: (label, error_type,
    penalty, disputed) per labelled pair, in order; ``unscored``: why the utterances without a
    score have none (default: an empty reference). Added up by columns and by distinct events, in
    C, not in a loop per utterance and pair (``tests/asr/test_laser_tally.py`` holds it to the loop)."""
    columns = zip(*figures) if figures else [()] * 9
    penalty, laser, words, edits, identical, _, formatting, semdist, fitted = columns
    scored = [x is not None for x in laser]
    wer = [bool(w) and e is not None for w, e in zip(words, edits)]
    n_unscored = len(scored) - sum(scored)
    matches = sum(compress(identical, scored))
    reasons = {unscored or EMPTY_REFERENCE: n_unscored} if n_unscored else {}
    labels, disputed, types = _events(events, {"match": matches} if matches else {})
    return TallyPart(
        len(figures),
        reasons,
        list(compress(penalty, scored)),
        list(compress(laser, scored)),
        sum(compress(words, scored)),
        sum(compress(edits, wer)),
        sum(compress(words, wer)),
        sum(wer),
        labels,
        disputed,
        types,
        sum(compress(formatting, scored)),
        [x for x in semdist if x is not None],
        [x for x in compress(fitted, scored) if x is not None],
    )


def _events(events: list[tuple], labels: dict[str, int]) -> tuple[dict, int, dict]:
    """Label counts, disputed pairs and (count, penalties in order) per error type, from each
    distinct event once. A type whose events carry one penalty has it ``count`` times (0.0 and
    -0.0 count as one: added to a sum that starts at 0.0 they give the same); another has its
    penalties listed in order (a float sum depends on it)."""
    disputed = 0
    types: dict[str, list] = {}  # in order of first sight
    uneven = set()
    for (label, error_type, penalty, dispute), n in Counter(events).items():
        labels[label] = labels.get(label, 0) + n
        disputed += dispute * n
        if error_type:
            cell = types.get(error_type)
            if cell is None:
                types[error_type] = [n, penalty]
            else:
                cell[0] += n
                if penalty != cell[1]:
                    uneven.add(error_type)
    parts = {}
    for error_type, (n, penalty) in types.items():
        if error_type in uneven:
            parts[error_type] = (n, [e[2] for e in events if e[1] == error_type])
        else:
            parts[error_type] = (n, [penalty] * n)
    return labels, disputed, parts


def coverage_text(summary: dict[str, Any]) -> str | None:
    """The sentence that comes before any LASER figure when an utterance is unscored (None when
    every utterance was scored), for the table and the report alike."""
    c = summary.get("coverage") or {}
    if not c.get("unscored"):
        return None
    why = ", ".join(f"{n} {reason}" for reason, n in c["unscored_reasons"].items())
    line = f"{c['unscored']} of {c['utterances']} utterances unscored ({why})."
    covers = c.get("covers", {})
    semdist = f" SemDist covers all {c['utterances']} (it needs no reference words)." if "semdist" in covers else ""
    if c["partial"]:
        return (
            f"PARTIAL: {line} No LASER score: only utterances with mismatches can go unscored, so LASER "
            f"over the {c['scored']} scored ones would be too high. Pair counts cover the scored utterances only."
            + semdist
        )
    return f"{line} LASER and pair counts cover the other {c['scored']}." + semdist
