"""Classic error rates (WER, CER, MER, WIL, WIP) counted exactly as jiwer 4.0 counts them.

Counting is the hot loop of the toolkit, so it stays lean: token lists go straight to rapidfuzz's
C++ Levenshtein (token equality checked to be exact, see ``_keys_collide``), and we read only the
edit script's length and matching blocks -- substitutions, deletions and insertions follow from
them and the two lengths (``_Tally``). The edit script is the one jiwer uses, so hits,
substitutions, deletions and insertions are identical, not just the totals. Only the units asked
for are counted, and corpus totals need no per-utterance Python work.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import NamedTuple

from voxjudge._gc import gc_paused
from voxjudge.asr.tokenize import Split, Tokenizer

Normalizer = Callable[[str], str]
Progress = Callable[[int, int], None]


class ErrorCounts(NamedTuple):
    """Alignment counts for one utterance or summed over a corpus, with the derived rates.

    Rates follow jiwer's conventions, including the empty reference: WER is then the number of
    inserted units (0 when the hypothesis is empty too), MER is 0 or 1, WIP is 1 or 0.
    A NamedTuple because the counting loop builds one per utterance and tuples are cheapest.
    """

    hits: int = 0
    substitutions: int = 0
    deletions: int = 0
    insertions: int = 0

    @property
    def ref_len(self) -> int:
        return self.hits + self.substitutions + self.deletions

    @property
    def hyp_len(self) -> int:
        return self.hits + self.substitutions + self.insertions

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def error_rate(self) -> float:
        """WER for word units, CER for character units."""
        if self.ref_len == 0:
            return float(self.insertions)
        return float(self.errors) / float(self.ref_len)

    wer = error_rate

    @property
    def mer(self) -> float:
        if self.ref_len == 0:
            return 0.0 if self.hyp_len == 0 else 1.0
        return float(self.errors) / float(self.ref_len + self.insertions)

    @property
    def wip(self) -> float:
        if self.ref_len == 0:
            return 1.0 if self.hyp_len == 0 else 0.0
        if self.hyp_len == 0:
            return 0.0
        # Same operation order as jiwer, so the floats agree bit for bit.
        return (float(self.hits) / self.ref_len) * (float(self.hits) / self.hyp_len)

    @property
    def wil(self) -> float:
        return 1 - self.wip

    def __add__(self, other: ErrorCounts) -> ErrorCounts:  # type: ignore[override]
        return ErrorCounts(
            self.hits + other.hits,
            self.substitutions + other.substitutions,
            self.deletions + other.deletions,
            self.insertions + other.insertions,
        )

    def counts(self) -> dict[str, int]:
        return {
            "hits": self.hits,
            "substitutions": self.substitutions,
            "deletions": self.deletions,
            "insertions": self.insertions,
        }


def total(counts: Iterable[ErrorCounts]) -> ErrorCounts:
    """Corpus-level counts: errors summed over utterances (as jiwer and sclite do)."""
    h = s = d = i = 0
    for c in counts:
        h += c.hits
        s += c.substitutions
        d += c.deletions
        i += c.insertions
    return ErrorCounts(h, s, d, i)


def count_errors(
    references: Sequence[str],
    hypotheses: Sequence[str],
    tokenizer: Tokenizer | None = None,
    normalizer: Normalizer | None = None,
    progress: Progress | None = None,
) -> list[ErrorCounts]:
    """Per-utterance counts for parallel lists of reference and hypothesis strings."""
    _check_lengths(references, hypotheses)
    tokenizer = tokenizer or Tokenizer()
    units = {"word": tokenizer.function()} if tokenizer.unit == "word" else {"char": tokenizer.function()}
    tallies = _count_units(references, hypotheses, units, normalizer, True, (), progress)
    return tallies[tokenizer.unit if tokenizer.unit == "word" else "char"].rows  # type: ignore[return-value]


def count_words_and_chars(
    references: Sequence[str],
    hypotheses: Sequence[str],
    *,
    split: Split = "unicode",
    char_unit: str = "char",
    normalizer: Normalizer | None = None,
    progress: Progress | None = None,
) -> tuple[list[ErrorCounts], list[ErrorCounts]]:
    """Word counts and character counts in one pass over the corpus (each text is normalized and
    split once for both: with the default splitting the character string is the words joined by
    single spaces)."""
    _check_lengths(references, hypotheses)
    tallies = _count_units(
        references, hypotheses, _unit_functions(("word", "char"), split, char_unit), normalizer, True, (), progress
    )
    return tallies["word"].rows, tallies["char"].rows  # type: ignore[return-value]


def _check_lengths(references: Sequence[str], hypotheses: Sequence[str]) -> None:
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references but {len(hypotheses)} hypotheses; they must pair up")


# Marks the character unit of the default splitting: the words joined by single spaces, which is
# what " ".join(text.split()) gives, without splitting the text a second time.
_JOINED_WORDS = "joined words"


def _unit_functions(units: Sequence[str], split: str, char_unit: str) -> dict:
    """The tokenizing function of each unit asked for ("word", "char"), for ``_count_units``."""
    out: dict = {}
    if "word" in units:
        out["word"] = Tokenizer("word", split).function()  # type: ignore[arg-type]
    if "char" in units:
        joined = "word" in units and split == "unicode" and char_unit == "char"
        out["char"] = _JOINED_WORDS if joined else Tokenizer(char_unit, split).function()  # type: ignore[arg-type]
    return out


# rapidfuzz compares list elements by a 64-bit key: the code point of a one-character string,
# else its Python hash. That is exact unless two distinct tokens share a key, so the counting
# loop collects the vocabulary of token lists and we check; in the (astronomically rare) event of
# a collision the corpus is recounted through an integer vocabulary, which is exact by
# construction. Strings (code points) are compared as they are.
_UINT64 = (1 << 64) - 1


def _rapidfuzz_key(token: str) -> int:
    return ord(token) if len(token) == 1 else hash(token) & _UINT64


def _keys_collide(vocabulary: set[str]) -> bool:
    return len({_rapidfuzz_key(w) for w in vocabulary}) != len(vocabulary)


# Long-form lines (one 300k-word transcript) go through the same rapidfuzz call as jiwer, on
# purpose. Anchoring on long exact matches and aligning only the gaps keeps the *cost* optimal
# when the anchors are safe, but not the hits/substitutions/deletions/insertions jiwer reports:
# optimal alignments tie (ref "a b" vs hyp "b c": two substitutions, or a deletion, a hit and an
# insertion), and rapidfuzz breaks ties by its own backtrace over Hirschberg splits chosen from
# whole DP rows, which a decomposition cannot reproduce. An anchored result is exact only where
# every gap's counts are forced (equal over all its optimal alignments) and every optimal path
# crosses the anchors; checking that needs the full DP, so there is no shortcut that is both
# exact and sub-quadratic, and none is taken. What long lines do get: no CER unless asked
# (the character alignment was most of their time) and no per-utterance objects.
#
# The counting loop runs once per utterance of every metrics call, so it works a chunk of
# utterances at a time with map() (the per-item work then runs in C) and keeps Python-level work
# to a few integer operations per utterance -- none at all when only corpus totals are asked
# for. A chunk bounds the tokens held in memory at once.
_CHUNK = 512


class _Tally:
    """One unit's counts over a corpus: every utterance's (``rows``), or only their sums.

    Sums need no per-utterance Python work: with H hits (the matching blocks of the edit script),
    n_ref + n_hyp - 2H - n_ops substitutions, and the deletions and insertions from
    D + I = n_ops - S and D - I = n_ref - n_hyp, all linear, so they add up over utterances.
    ``detail=False`` keeps only the edit distance (the error rate, not its split into S/D/I)."""

    def __init__(self, per_utterance: bool, detail: bool) -> None:
        self.rows: list[ErrorCounts] | None = [] if per_utterance else None
        self.detail = detail or per_utterance
        self.hits = self.n_ref = self.n_hyp = self.n_ops = 0

    def add(self, refs: list, hyps: list) -> None:
        from rapidfuzz.distance.Levenshtein import distance, editops

        if not self.detail:
            self.n_ref += sum(map(len, refs))
            self.n_ops += sum(map(distance, refs, hyps))
            return
        scripts = list(map(editops, refs, hyps))
        if self.rows is not None:
            self.rows += map(_counts_from_script, scripts, map(len, refs), map(len, hyps))
            return
        self.n_ref += sum(map(len, refs))
        self.n_hyp += sum(map(len, hyps))
        self.n_ops += sum(map(len, scripts))
        self.hits += sum(map(_size, chain.from_iterable(map(_blocks, scripts))))

    def counts(self) -> ErrorCounts:
        """The corpus counts (needs ``detail``)."""
        if self.rows is not None:
            return total(self.rows)
        return _from_sums(self.hits, self.n_ref, self.n_hyp, self.n_ops)

    def rate(self) -> tuple[int, int]:
        """Reference length and errors, summed over the corpus."""
        if self.detail:
            c = self.counts()
            return c.ref_len, c.errors
        return self.n_ref, self.n_ops


def _from_sums(hits: int, n_ref: int, n_hyp: int, n_ops: int) -> ErrorCounts:
    subs = n_ref + n_hyp - 2 * hits - n_ops
    dels = (n_ops - subs + n_ref - n_hyp) // 2
    return _new(ErrorCounts, (hits, subs, dels, n_ops - subs - dels))


def _counts_from_script(ops, n_ref: int, n_hyp: int) -> ErrorCounts:
    """Hits, substitutions, deletions and insertions of one rapidfuzz edit script."""
    n_ops = len(ops)
    # With no more edits than the length difference there can be no substitution; otherwise the
    # matching blocks give the hits (fewer objects than listing the edits).
    hits = sum(map(_size, ops.as_matching_blocks())) if n_ops > abs(n_ref - n_hyp) else (n_ref + n_hyp - n_ops) // 2
    return _from_sums(hits, n_ref, n_hyp, n_ops)


_new = tuple.__new__  # builds the NamedTuple without its Python-level __new__
_size = attrgetter("size")


def _blocks(ops):
    return ops.as_matching_blocks()


def _count_units(references, hypotheses, units: dict, normalizer, per_utterance: bool, rate_only, progress):
    """One pass over the corpus for the units asked (``_unit_functions``): a ``_Tally`` per unit.

    Each text is normalized once and split once; token lists are checked for key collisions.
    Units in ``rate_only`` get only their edit distance (see ``_Tally``)."""
    tallies = {u: _Tally(per_utterance, u not in rate_only) for u in units}
    vocabulary: set[str] = set()
    with gc_paused():
        _count_chunks(references, hypotheses, units, normalizer, tallies, vocabulary.update, progress)
    if vocabulary and _keys_collide(vocabulary):
        tallies = {u: _Tally(per_utterance, u not in rate_only) for u in units}
        with gc_paused():
            _count_chunks(references, hypotheses, _exact(units), normalizer, tallies, None, None)
    return tallies


def _exact(units: dict) -> dict:
    """The same units with token lists mapped to integers (exact keys for rapidfuzz)."""
    to_ints = defaultdict(itertools.count().__next__).__getitem__
    out = {}
    for unit, split in units.items():
        if split is _JOINED_WORDS:
            out[unit] = Tokenizer("char").function()
        elif isinstance(split("a b"), str):
            out[unit] = split
        else:
            out[unit] = _mapped(split, to_ints)
    return out


def _mapped(split, to_ints):
    return lambda t: list(map(to_ints, split(t)))


def _count_chunks(references, hypotheses, units, normalizer, tallies, collect, progress) -> None:
    words, chars = units.get("word"), units.get("char")
    n_total = len(references)
    for start in range(0, n_total, _CHUNK):
        refs, hyps = references[start : start + _CHUNK], hypotheses[start : start + _CHUNK]
        if normalizer is not None:
            refs, hyps = list(map(normalizer, refs)), list(map(normalizer, hyps))
        if words is not None:
            ref_words, hyp_words = list(map(words, refs)), list(map(words, hyps))
            if collect is not None:
                collect(chain.from_iterable(ref_words))
                collect(chain.from_iterable(hyp_words))
            tallies["word"].add(ref_words, hyp_words)
        if chars is _JOINED_WORDS:
            tallies["char"].add(list(map(" ".join, ref_words)), list(map(" ".join, hyp_words)))
        elif chars is not None:
            ref_chars, hyp_chars = list(map(chars, refs)), list(map(chars, hyps))
            if collect is not None and ref_chars and not isinstance(ref_chars[0], str):
                collect(chain.from_iterable(ref_chars))
                collect(chain.from_iterable(hyp_chars))
            tallies["char"].add(ref_chars, hyp_chars)
        if progress is not None:
            progress(min(start + _CHUNK, n_total), n_total)


@dataclass
class MetricsResult:
    """Word- and character-level counts for every utterance, in input order.

    ``corpus_*`` are the corpus-level figures (errors summed over all utterances, then divided);
    ``per_utterance`` lists each utterance's own rates. Means of per-utterance rates are not
    reported because they weight short utterances as heavily as long ones.

    Only the units asked for are counted (``compute_metrics(units=...)``): ``word`` or ``char``
    is None for a unit not counted, or when only corpus totals were kept (``per_utterance=False``,
    the totals are then in ``_corpus``); ``_char_rate`` holds the character reference length and
    edit distance when the CER was asked for without its hit/substitution/deletion/insertion split.
    """

    ids: list[str]
    word: list[ErrorCounts] | None
    char: list[ErrorCounts] | None
    char_unit: str = "char"
    split: str = "unicode"
    normalizer: str = "none"
    _corpus: dict[str, ErrorCounts] = field(default_factory=dict, repr=False)
    _char_rate: tuple[int, int] | None = field(default=None, repr=False)

    @property
    def has_words(self) -> bool:
        return self.word is not None or "word" in self._corpus

    @property
    def has_chars(self) -> bool:
        return self.char is not None or "char" in self._corpus or self._char_rate is not None

    @property
    def has_char_counts(self) -> bool:
        return self.char is not None or "char" in self._corpus

    @property
    def corpus_word(self) -> ErrorCounts:
        return self._total("word", self.word)

    @property
    def corpus_char(self) -> ErrorCounts:
        return self._total("char", self.char)

    def _total(self, unit: str, rows: list[ErrorCounts] | None) -> ErrorCounts:
        if unit not in self._corpus:
            if rows is None:
                what = "counted" if unit == "word" or self._char_rate is None else "split into hits and edits"
                raise ValueError(f"{unit} units were not {what}; ask compute_metrics for them")
            self._corpus[unit] = total(rows)
        return self._corpus[unit]

    @property
    def wer(self) -> float:
        return self.corpus_word.wer

    @property
    def cer(self) -> float:
        if self._char_rate is not None and not self.has_char_counts:
            ref_len, errors = self._char_rate
            return errors / ref_len if ref_len else float(errors)
        return self.corpus_char.error_rate

    def summary(self) -> dict:
        """Corpus level: the documented JSON keys of the units counted, plus sizes and settings."""
        out: dict = {}
        if self.has_words:
            w = self.corpus_word
            out.update(_word_rates(w))
            if self.has_chars:
                out = {"wer": out.pop("wer"), "cer": self.cer, **out}
            out["ref_words"], out["hyp_words"] = w.ref_len, w.hyp_len
        elif self.has_chars:
            out["cer"] = self.cer
        if self.has_chars:
            out["ref_chars"] = self.corpus_char.ref_len if self.has_char_counts else self._char_rate[0]  # type: ignore[index]
            if self.has_char_counts:
                out["char_counts"] = self.corpus_char.counts()
            out["cer_unit"] = self.char_unit
        out.update(utterances_count=len(self.ids), level="corpus", split=self.split, normalize=self.normalizer)
        return out

    def per_utterance(self) -> list[dict]:
        """One record per utterance, in input order, with the same keys as the summary."""
        word, char = self._rows()
        out = []
        with gc_paused():
            if word is not None and char is not None:
                for uid, w, c in zip(self.ids, word, char):
                    row = {"id": uid, **_rates(w, c)}
                    row["ref_words"], row["ref_chars"] = w[0] + w[1] + w[2], c[0] + c[1] + c[2]
                    out.append(row)
            elif word is not None:
                for uid, w in zip(self.ids, word):
                    row = {"id": uid, **_word_rates(w)}
                    row["ref_words"] = w[0] + w[1] + w[2]
                    out.append(row)
            else:
                out = [{"id": uid, **_char_rates(c)} for uid, c in zip(self.ids, char)]  # type: ignore[arg-type]
        return out

    def _rows(self) -> tuple[list[ErrorCounts] | None, list[ErrorCounts] | None]:
        if (self.has_words and self.word is None) or (self.has_chars and self.char is None):
            raise ValueError("per-utterance counts were not kept; ask compute_metrics(..., per_utterance=True)")
        return self.word, self.char

    def by_group(self, labels: Sequence[str]) -> dict[str, dict]:
        """Corpus-level figures per label (e.g. speaker), labels in first-seen order."""
        word, char = self._rows()
        groups: dict[str, list[int]] = {}
        for k, label in enumerate(labels):
            groups.setdefault(label, []).append(k)
        out = {}
        for label, idx in groups.items():
            w = total(word[k] for k in idx) if word is not None else None
            c = total(char[k] for k in idx) if char is not None else None
            if w is not None and c is not None:
                out[label] = {**_rates(w, c), "utterances_count": len(idx), "ref_words": w.ref_len}
            elif w is not None:
                out[label] = {**_word_rates(w), "utterances_count": len(idx), "ref_words": w.ref_len}
            else:
                out[label] = {**_char_rates(c), "utterances_count": len(idx)}  # type: ignore[arg-type]
        return out


def _word_rates(word: ErrorCounts) -> dict:
    """The ErrorCounts properties, computed from the four counts directly: ``per_utterance``
    builds one of these per utterance, and the property calls dominated its time."""
    h, s, d, i = word
    ref, hyp, errors = h + s + d, h + s + i, s + d + i
    if ref:
        wer, mer = errors / ref, errors / (ref + i)
        wip = (h / ref) * (h / hyp) if hyp else 0.0
    else:
        wer, mer, wip = float(i), (0.0 if hyp == 0 else 1.0), (1.0 if hyp == 0 else 0.0)
    return {
        "wer": wer,
        "mer": mer,
        "wil": 1 - wip,
        "wip": wip,
        "hits": h,
        "substitutions": s,
        "deletions": d,
        "insertions": i,
    }


def _cer(char: ErrorCounts) -> float:
    c_ref = char[0] + char[1] + char[2]
    return (char[1] + char[2] + char[3]) / c_ref if c_ref else float(char[3])


def _rates(word: ErrorCounts, char: ErrorCounts) -> dict:
    rates = _word_rates(word)
    return {"wer": rates.pop("wer"), "cer": _cer(char), **rates}


def _char_rates(char: ErrorCounts) -> dict:
    """Per-utterance or per-group keys when only characters were counted."""
    h, s, d, i = char
    return {
        "cer": _cer(char),
        "ref_chars": h + s + d,
        "char_hits": h,
        "char_substitutions": s,
        "char_deletions": d,
        "char_insertions": i,
    }


UNIT_NAMES = ("word", "char")


def compute_metrics(
    references: Sequence[str],
    hypotheses: Sequence[str],
    ids: Sequence[str] | None = None,
    *,
    normalizer: Normalizer | None = None,
    split: Split = "unicode",
    char_unit: str = "char",
    units: Sequence[str] = UNIT_NAMES,
    per_utterance: bool = True,
    char_counts: bool = True,
    progress: Progress | None = None,
) -> MetricsResult:
    """WER/MER/WIL/WIP on words and CER on code points (``char``) or graphemes, per utterance
    and corpus level. ``normalizer`` is applied to both sides first (see ``get_normalizer``).

    ``units``: which of ``word`` and ``char`` (the CER, in ``char_unit``) to count; the others
    cost nothing. ``per_utterance=False`` keeps only the corpus totals (no per-utterance Python
    work); ``char_counts=False`` computes the CER from the edit distance alone, without its
    split into hits, substitutions, deletions and insertions (the summary then has no
    ``char_counts``)."""
    if char_unit not in ("char", "grapheme"):
        raise ValueError(f"char_unit must be 'char' or 'grapheme', not {char_unit!r}")
    units = tuple(units)
    if not units or any(u not in UNIT_NAMES for u in units):
        raise ValueError(f"units must be some of {', '.join(UNIT_NAMES)}, not {units!r}")
    _check_lengths(references, hypotheses)
    if ids is None:
        ids = [str(k + 1) for k in range(len(references))]
    elif len(ids) != len(references):
        raise ValueError(f"{len(ids)} ids for {len(references)} utterances")
    tallies = _count_units(
        references,
        hypotheses,
        _unit_functions(units, split, char_unit),
        normalizer,
        per_utterance,
        () if char_counts else ("char",),
        progress,
    )
    corpus: dict[str, ErrorCounts] = {}
    char_rate = None
    if not per_utterance:
        corpus = {u: t.counts() for u, t in tallies.items() if t.detail}
        if "char" in tallies and not tallies["char"].detail:
            char_rate = tallies["char"].rate()
    return MetricsResult(
        ids=list(ids),
        word=tallies["word"].rows if "word" in tallies else None,
        char=tallies["char"].rows if "char" in tallies else None,
        char_unit=char_unit,
        split=split,
        normalizer=getattr(normalizer, "name", "custom") if normalizer else "none",
        _corpus=corpus,
        _char_rate=char_rate,
    )


def _as_list(text: str | Sequence[str]) -> Sequence[str]:
    # As in jiwer, an empty list is one empty sentence: wer([], ["a"]) == 1, wer([], []) == 0.
    return [text] if isinstance(text, str) else (text if len(text) else [""])


def wer(
    reference: str | Sequence[str],
    hypothesis: str | Sequence[str],
    *,
    normalizer: Normalizer | None = None,
    split: Split = "unicode",
) -> float:
    """Corpus-level word error rate of one utterance or parallel lists of utterances.

    An empty list counts as one empty sentence, as in jiwer."""
    refs, hyps = _as_list(reference), _as_list(hypothesis)
    return _corpus_rate(refs, hyps, Tokenizer("word", split), normalizer)


def cer(
    reference: str | Sequence[str],
    hypothesis: str | Sequence[str],
    *,
    unit: str = "char",
    normalizer: Normalizer | None = None,
    split: Split = "unicode",
) -> float:
    """Corpus-level character error rate by code point (``char``) or grapheme cluster.

    An empty list counts as one empty sentence, as in jiwer."""
    refs, hyps = _as_list(reference), _as_list(hypothesis)
    return _corpus_rate(refs, hyps, Tokenizer(unit, split), normalizer)  # type: ignore[arg-type]


def _corpus_rate(refs, hyps, tokenizer: Tokenizer, normalizer) -> float:
    """The corpus error rate from the summed edit distances alone (no per-utterance work)."""
    _check_lengths(refs, hyps)
    key = "word" if tokenizer.unit == "word" else "char"
    ref_len, errors = _count_units(refs, hyps, {key: tokenizer.function()}, normalizer, False, (key,), None)[key].rate()
    return errors / ref_len if ref_len else float(errors)
