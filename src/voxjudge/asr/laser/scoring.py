"""LASER scores: align, classify every pair, and compute 1 - total penalty / reference words.

The model (or the rules) only labels pairs; penalties, scores and corpus figures are computed
here. Tokens are whitespace-separated words with punctuation-only tokens (।, -, ...) dropped.
An empty reference has no LASER score (the formula divides by the number of reference words);
such utterances are reported as unscored. A score is floored at 0: additions can bring the penalty
past the number of reference words, and a transcript cannot be worse than one with every word wrong
(the records keep the penalty itself).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from voxjudge.asr.laser.align import RubricPair, word_key
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import Label, classify
from voxjudge.asr.laser.utterances import align_utterances, words  # noqa: F401 (words: part of this module's API)

PairLabeler = Callable[[list[tuple[str, RubricPair, str]]], list[Label]]
_CHUNK = 2000  # word pairs labelled between two progress reports


def laser_score(penalty: float, ref_words: int) -> float | None:
    """1 - penalty / reference words, floored at 0; None for an empty reference."""
    return max(0.0, 1 - penalty / ref_words) if ref_words else None


@dataclass
class ScoredPair:
    ref: str
    hyp: str
    op: str
    label: str
    error_type: str | None
    reason: str
    penalty: float
    disputed: bool = False

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class UtteranceScore:
    """One utterance as LASER scored it (``LaserResult.utterances``; ``as_dict()`` is its record).

    - ``id``; ``lang``: the language it was scored in.
    - ``ref_words``: its reference words (punctuation-only tokens dropped), LASER's denominator.
    - ``pairs``: one ``ScoredPair`` per aligned word pair (``ref``, ``hyp``, ``op``, ``label``,
      ``error_type``, ``reason``, ``penalty``, ``disputed``).
    - ``penalty``: the sum of the pairs' penalties (no penalty 0, minor 0.5, major 1.0).
    - ``laser``: 1 - penalty / reference words, floored at 0; None when unscored.
    - ``wer``: the utterance's WER under the 'basic' normalization, to sit beside LASER (None for
      an empty reference); ``word_edits``: the word edit distance behind the corpus WER.
    - ``unscored``: why a judge left it unscored (None: scored, or an empty reference, which needs
      no reason).
    - ``laser_calibrated`` (a property): LASER fitted to people, from ``laser`` and ``semdist``,
      when the run has that model (``people``); else None.
    - ``semdist``: the SemDist of the two sentences when the run has an embedder
      (``has_semdist``); None otherwise.
    - ``format_errors``: pairs that match but for case or punctuation.
    """

    id: str
    lang: str
    ref_words: int
    pairs: list[ScoredPair] = field(default_factory=list)
    penalty: float = 0.0
    laser: float | None = None
    wer: float | None = None
    word_edits: int | None = None  # word edit distance on the alignment's tokens (for the corpus WER)
    unscored: str | None = None  # why a judge left it unscored (an empty reference needs no reason)
    people: Any = None  # the model of laser_calibrated, when the run has one (``people.PeopleModel``)
    semdist: float | None = None  # SemDist of the sentences, when the run has an embedder
    has_semdist: bool = False  # whether the run has an embedder (records then carry ``semdist``)
    format_errors: int = 0  # pairs that match but for case or punctuation

    @property
    def laser_calibrated(self) -> float | None:
        return None if self.people is None else self.people(self.laser, self.semdist)

    def as_dict(self, run: dict[str, str] | None = None) -> dict[str, Any]:
        """The utterance's record; ``run``: the judge and embedder that made it, named in it (``LaserResult.run``)."""
        out: dict[str, Any] = {"id": self.id, "lang": self.lang, **(run or {}), "laser": self.laser}
        if self.people is not None:
            out["laser_calibrated"] = self.laser_calibrated
        if self.has_semdist:
            out["semdist"] = self.semdist
        out |= {
            "format_errors": self.format_errors,
            "wer": self.wer,
            "penalty": self.penalty,
            "ref_words": self.ref_words,
            "pairs": [p.as_dict() for p in self.pairs],
        }
        if self.unscored:
            out["unscored"] = self.unscored
        return out


def rules_labeler(items: list[tuple[str, RubricPair, str]]) -> list[Label]:
    """The pure rules judge under the shipped rubric's conventions."""
    from voxjudge.asr.laser.phonetics import prefetch_items

    prefetch_items(items)
    return [classify(pair, lang) for _, pair, lang in items]


def score_aligned(
    aligned: list[tuple[str, str, list[RubricPair]]],
    labels: dict[tuple[str, int], Label],
    rubric: LaserRubric,
    wers: Sequence[float | None],
    edits: Sequence[int] | None = None,
    people: Any = None,
    semdist: dict[str, float | None] | None = None,
) -> list[UtteranceScore]:
    results = []
    for k, ((uid, lang, pairs), wer) in enumerate(zip(aligned, wers)):
        ref_words = sum(len(p.ref) for p in pairs)
        u = UtteranceScore(uid, lang, ref_words, wer=wer, word_edits=None if edits is None else edits[k], people=people)
        if semdist is not None:
            u.semdist, u.has_semdist = semdist[uid], True
        for k, p in enumerate(pairs):
            lab = labels[(uid, k)]
            pen = rubric.pair_penalty(lab)
            u.pairs.append(
                ScoredPair(p.ref_text, p.hyp_text, p.op, lab.label, lab.error_type, lab.reason, pen, lab.disputed)
            )
            u.penalty += pen
            u.format_errors += lab.label == "match" and p.ref != p.hyp
        u.laser = laser_score(u.penalty, ref_words)
        results.append(u)
    return results


def score(
    references: Sequence[str],
    hypotheses: Sequence[str],
    ids: Sequence[str] | None = None,
    *,
    lang: str | None = None,
    rubric: LaserRubric | None = None,
    labeler: PairLabeler | None = None,
    progress: Callable[[int, int], None] | None = None,
    people: Any = None,
    semdist: dict[str, float | None] | None = None,
) -> list[UtteranceScore]:
    """LASER per utterance with a synchronous pair labeler (default: the shipped offline judge,
    rules + the learned Hindi model; ``rules_labeler`` for the pure rules); ``people``: the model
    of ``laser_calibrated`` (``people.PeopleModel``), ``semdist``: SemDist by id, when the run has them.

    ``progress(done, total)`` is called as word pairs are labelled (in chunks of whole utterances,
    so a long run shows that it moves and a labeler still sees each utterance at once)."""
    rubric = rubric or LaserRubric.load()
    if labeler is None:
        from voxjudge.asr.laser.judges import offline_labeler

        labeler, _ = offline_labeler(None, rubric)
    ids = list(ids) if ids is not None else [str(k + 1) for k in range(len(references))]
    aligned = align_utterances(references, hypotheses, ids, lang)
    items = [(uid, p, language) for uid, language, pairs in aligned for p in pairs]
    keys = [(uid, k) for uid, _, pairs in aligned for k in range(len(pairs))]
    if progress is None:
        found = labeler(items)
    else:
        found, start = [], 0
        ends = list(accumulate(len(pairs) for _, _, pairs in aligned))
        for end in ends:
            if end - start >= _CHUNK or end == len(items):
                found += labeler(items[start:end])
                start = end
                progress(end, len(items))
    labels = dict(zip(keys, found))
    wers, edits = side_by_side_wer(references, hypotheses), word_edits(references, hypotheses)
    return score_aligned(aligned, labels, rubric, wers, edits, people, semdist)


def word_edits(references: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
    """Per utterance, the word edit distance on the tokens the LASER alignment compares."""
    from rapidfuzz.distance import Levenshtein

    keys: dict[str, int] = {}
    out = []
    for ref, hyp in zip(references, hypotheses):
        rk = [keys.setdefault(word_key(w), len(keys)) for w in words(ref)]
        hk = [keys.setdefault(word_key(w), len(keys)) for w in words(hyp)]
        out.append(Levenshtein.distance(rk, hk))
    return out


def side_by_side_wer(references: Sequence[str], hypotheses: Sequence[str]) -> list[float | None]:
    """Per-utterance WER under the 'basic' normalization (case and punctuation ignored), so that
    it sits beside LASER on equal terms."""
    from voxjudge.asr.measures import Tokenizer, count_errors
    from voxjudge.asr.normalize import get_normalizer

    counts = count_errors(references, hypotheses, Tokenizer(), get_normalizer("basic"))
    return [c.wer if c.ref_len else None for c in counts]


def summarize(utterances: Sequence[UtteranceScore], rubric: LaserRubric) -> dict[str, Any]:
    """The corpus summary of scored utterances (``tally.py`` says what it holds)."""
    from voxjudge.asr.laser.tally import LaserTally

    tally = LaserTally()
    for u in utterances:
        tally.add_scored(u)
    return tally.summary(rubric)


def agreement(
    utterances: Sequence[Any],
    human: dict[str, float],
    *,
    allow_partial: bool = False,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[dict, dict]:
    """Pearson, Spearman and Kendall (bootstrap CIs) with human scores of LASER, of
    ``laser_calibrated`` and 1 - SemDist when the run has them, and of 1 - WER, over the scored
    utterances (anything with ``id``, ``laser``, ``wer``, ``laser_calibrated``, ``semdist``), and
    the join's coverage. Every scored utterance needs a human score unless ``allow_partial`` (then
    the ones that have one); human ids beyond the run are ignored (a study's file beside part of it)."""
    from voxjudge.io.join import join_by_id
    from voxjudge.stats import agreement as agree

    scored = (
        (u.id, (u.laser, u.wer, u.laser_calibrated, u.semdist))
        for u in utterances
        if u.laser is not None and u.wer is not None
    )
    joined = join_by_id(
        scored,
        human,
        left_name="the run",
        right_name="the human scores",
        what="utterances",
        allow_partial=allow_partial,
        right_extra="ignore",
        partial_setting="LaserOptions(allow_partial=True)",
    )
    h = list(joined.right)
    rows = list(joined.left)
    sides = [("laser", "LASER", [r[0] for r in rows])]
    if rows and all(r[2] is not None for r in rows):
        sides.append(("laser_calibrated", "LASER calibrated (fitted to people)", [r[2] for r in rows]))
    if rows and all(r[3] is not None for r in rows):
        sides.append(("one_minus_semdist", "1 - SemDist", [1 - r[3] for r in rows]))
    sides.append(("one_minus_wer", "1 - WER", [1 - r[1] for r in rows]))
    found = {
        key: [
            c.as_dict()
            for c in agree(x, h, metric_name=name, n_resamples=n_resamples, confidence=confidence, seed=seed)
        ]
        for key, name, x in sides
    }
    return found, joined.coverage()
