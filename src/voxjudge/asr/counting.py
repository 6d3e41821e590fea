"""One pass over a corpus for the units asked: normalize each text once, split it once, align
only the pairs that differ, and feed each unit's tally (``CorpusTotals`` or ``UtteranceRows``).

The loop runs once per utterance of every metrics call, so it works a chunk of utterances at a
time with ``map()`` (the per-item work then runs in C) and keeps Python-level work to a few
integer operations per utterance. A chunk bounds the tokens held in memory at once.

Texts that are already single-spaced (checked a chunk at a time, in C) are their own character
strings: the CER aligns them as they are, with no splitting and joining.

Pairs identical after normalization are counted without an alignment: all their units are hits
(their Levenshtein alignment is the empty edit script, with any token comparison), so they cost
one split and no vocabulary either. Typical test sets have many of them.

Long-form lines (one 300k-word transcript) go through the same rapidfuzz call as jiwer, on
purpose. Anchoring on long exact matches and aligning only the gaps keeps the *cost* optimal
when the anchors are safe, but not the hits/substitutions/deletions/insertions jiwer reports:
optimal alignments tie (ref "a b" vs hyp "b c": two substitutions, or a deletion, a hit and an
insertion), and rapidfuzz breaks ties by its own backtrace over Hirschberg splits chosen from
whole DP rows, which a decomposition cannot reproduce. An anchored result is exact only where
every gap's counts are forced (equal over all its optimal alignments) and every optimal path
crosses the anchors; checking that needs the full DP, so there is no shortcut that is both
exact and sub-quadratic, and none is taken. What long lines do get: no CER unless asked
(the character alignment was most of their time), no per-utterance objects, token ids ranked
by frequency (faster, same script), and ``longform``'s limit and Ctrl-C: a line whose alignment
would take longer than the limit is refused before any counting starts (``check_lengths``), a
chunk whose pairs would hold the interpreter for long is counted in smaller slices, and one long
pair is aligned in a child process, so that Ctrl-C is acted on within a second.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress
from operator import eq, mul, not_

from voxjudge._gc import gc_paused
from voxjudge.asr import longform
from voxjudge.asr import units as unit_splits
from voxjudge.asr.inputs import misfits_named
from voxjudge.asr.rows import UtteranceRows
from voxjudge.asr.tokenize import collapse_whitespace
from voxjudge.asr.totals import CorpusTotals

Progress = Callable[[int, int], None]
CHUNK = 512
# Character pairs (raw text lengths multiplied) above which a chunk is counted in smaller slices:
# each C call that aligns a slice then holds the interpreter for a fraction of a second
SLICE_PAIRS = 2e9


def count_units(
    references: Sequence[str],
    hypotheses: Sequence[str],
    units: dict,
    normalizer,
    per_utterance: bool,
    rate_only: Sequence[str] = (),
    progress: Progress | None = None,
    where: Callable[[int], str] | None = None,
) -> dict:
    """A tally per unit of ``units`` (``unit_functions``): ``UtteranceRows`` if ``per_utterance``,
    else ``CorpusTotals``; units in ``rate_only`` get only their edit distance. Token lists are
    checked for rapidfuzz key collisions, and the corpus recounted exactly if any. A line too long
    to align raises ``longform.LineTooLong`` first; ``where(k)`` names line ``k`` (0-based). A text
    that is not a string is named (``InputError``) when the work trips on it."""
    with misfits_named(references=references, hypotheses=hypotheses):
        return _count_units(references, hypotheses, units, normalizer, per_utterance, rate_only, progress, where)


def _count_units(references, hypotheses, units, normalizer, per_utterance, rate_only, progress, where) -> dict:
    # the longest texts bound every line's and every chunk's cost: most corpora need no more checks
    longest = max(map(len, references), default=0) * max(map(len, hypotheses), default=0)
    margin = 1 if normalizer is None else 16  # a normalizer may lengthen a text (up to 4x, here)
    check_lengths(references, hypotheses, units, normalizer, where, longest * margin)
    sliced = longest * margin * CHUNK > SLICE_PAIRS
    vocabulary: set[str] = set()
    tallies = _tallies(units, per_utterance, rate_only)
    with gc_paused():
        _count_chunks(references, hypotheses, units, normalizer, tallies, vocabulary.update, progress, sliced)
    if vocabulary and unit_splits.keys_collide(vocabulary):
        tallies = _tallies(units, per_utterance, rate_only)
        with gc_paused():
            exact = unit_splits.exact_units(units)
            _count_chunks(references, hypotheses, exact, normalizer, tallies, None, None, sliced)
    return tallies


def _tallies(units: dict, per_utterance: bool, rate_only: Sequence[str]) -> dict:
    return {u: UtteranceRows() if per_utterance else CorpusTotals(u not in rate_only) for u in units}


def _count_chunks(references, hypotheses, units, normalizer, tallies, collect, progress, sliced) -> None:
    n_total = len(references)
    for start in range(0, n_total, CHUNK):
        refs, hyps = references[start : start + CHUNK], hypotheses[start : start + CHUNK]
        if normalizer is not None:
            refs, hyps = list(map(normalizer, refs)), list(map(normalizer, hyps))
        if sliced:
            _count_slice(refs, hyps, units, tallies, collect)
        else:
            _count_pairs(refs, hyps, units, tallies, collect, False)
        if progress is not None:
            progress(min(start + CHUNK, n_total), n_total)


def _count_slice(refs, hyps, units, tallies, collect) -> None:
    """One chunk's (normalized) texts, in halves while they would hold the interpreter for long."""
    if sum(map(mul, map(len, refs), map(len, hyps))) > SLICE_PAIRS:
        if len(refs) > 1:
            half = len(refs) // 2
            _count_slice(refs[:half], hyps[:half], units, tallies, collect)
            _count_slice(refs[half:], hyps[half:], units, tallies, collect)
            return
        _count_pairs(refs, hyps, units, tallies, collect, True)
        return
    _count_pairs(refs, hyps, units, tallies, collect, False)


def _count_pairs(refs, hyps, units, tallies, collect, long: bool) -> None:
    words, chars = units.get("word"), units.get("char")
    joined = chars is unit_splits.JOINED_WORDS
    # Character units under which a single-spaced text is its own character string.
    collapsed = joined or chars is collapse_whitespace or chars is str.strip
    # Texts already single-spaced are their own character strings: no splitting and joining.
    as_is = collapsed and unit_splits.single_spaced(refs + hyps)
    same = list(map(eq, refs, hyps))
    if True in same:
        differ = list(map(not_, same))
        refs, hyps, alike = list(compress(refs, differ)), list(compress(hyps, differ)), list(compress(refs, same))
    else:
        same, alike = None, []
    if words is not None:
        ref_words, hyp_words = list(map(words, refs)), list(map(words, hyps))
        alike_words = list(map(words, alike))
        if collect is not None and ref_words:
            collect(*ref_words, *hyp_words)
        tallies["word"].add(ref_words, hyp_words, same, list(map(len, alike_words)), long)
    if as_is:
        tallies["char"].add(refs, hyps, same, list(map(len, alike)), long)
    elif joined:
        alike_chars = list(map(len, map(" ".join, alike_words)))
        tallies["char"].add(list(map(" ".join, ref_words)), list(map(" ".join, hyp_words)), same, alike_chars, long)
    elif chars is not None:
        ref_chars, hyp_chars = list(map(chars, refs)), list(map(chars, hyps))
        if collect is not None and ref_chars and not isinstance(ref_chars[0], str):
            collect(*ref_chars, *hyp_chars)
        tallies["char"].add(ref_chars, hyp_chars, same, list(map(len, map(chars, alike))), long)


def check_lengths(
    references: Sequence[str], hypotheses: Sequence[str], units: dict, normalizer, where=None, bound=None
) -> None:
    """Before any counting: ``longform.LineTooLong`` for the first line whose alignment in one of
    ``units`` would take longer than ``longform``'s limit. The raw lengths bound the cost (a
    text has at most half as many words as characters, plus one; ``bound``: the largest product
    of the two, with a margin for the normalizer); only lines past it are normalized and split
    to be measured. ``where(k)``: how line ``k`` (0-based) is named."""
    minutes = longform.limit_minutes()
    if bound is None:
        bound = max(map(len, references), default=0) * max(map(len, hypotheses), default=0)
        bound *= 1 if normalizer is None else 16
    # what the raw lengths may reach before a unit could be over the limit
    budget = 60 * minutes * min(longform.PAIRS_PER_SECOND.values()) if minutes is not None else 0
    if minutes is None or bound <= budget:
        return
    margin = 1 if normalizer is None else 16
    products = map(mul, map(len, references), map(len, hypotheses))
    where = where or (lambda k: f"line {k + 1}")
    for k, product in enumerate(products):
        if product * margin <= budget:
            continue
        ref, hyp = references[k], hypotheses[k]
        if normalizer is not None:
            ref, hyp = normalizer(ref), normalizer(hyp)
        for unit, split in units.items():
            if split is unit_splits.JOINED_WORDS:
                r, h = " ".join(ref.split()), " ".join(hyp.split())
            else:
                r, h = split(ref), split(hyp)
            longform.check(r, h, unit, where(k))
