"""Classic error rates (WER, CER, MER, WIL, WIP) counted exactly as jiwer 4.0 counts them.

Counting is the hot loop of the toolkit, so it stays lean: token lists go straight to rapidfuzz's
C++ Levenshtein (token equality checked to be exact, see ``count_errors``), and we count only the
edit script's substitutions -- deletions and insertions follow from the edit distance and the
length difference. The edit script is the one jiwer uses, so
hits, substitutions, deletions and insertions are identical, not just the totals.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter, itemgetter
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
    split = tokenizer.function()
    tokenize = split if normalizer is None else (lambda t: split(normalizer(t)))
    if tokenizer.unit == "char":
        # Strings are compared code point by code point: exact as they are.
        with gc_paused():
            return _count(references, hypotheses, tokenize, None, progress)
    vocabulary: set[str] = set()
    with gc_paused():
        out = _count(references, hypotheses, tokenize, vocabulary.update, progress)
    if _keys_collide(vocabulary):
        out = _recount_exactly(references, hypotheses, tokenize)
    return out


def count_words_and_chars(
    references: Sequence[str],
    hypotheses: Sequence[str],
    *,
    split: Split = "unicode",
    char_unit: str = "char",
    normalizer: Normalizer | None = None,
    progress: Progress | None = None,
) -> tuple[list[ErrorCounts], list[ErrorCounts]]:
    """Word counts and character counts in one pass over the corpus.

    With the default splitting the character string is the words joined by single spaces, so each
    text is normalized and split once for both (``asr metrics`` spends most of its time here).
    Other settings count the two units separately; the numbers are the same either way.
    """
    _check_lengths(references, hypotheses)
    n = len(references)
    if split != "unicode" or char_unit != "char":
        word_progress = char_progress = None
        if progress is not None:
            # Two passes (words, then characters) report as one bar of 2n steps.
            word_progress = lambda done, _n: progress(done, 2 * n)  # noqa: E731
            char_progress = lambda done, _n: progress(n + done, 2 * n)  # noqa: E731
        if normalizer is not None:
            references, hypotheses = list(map(normalizer, references)), list(map(normalizer, hypotheses))
        word = count_errors(references, hypotheses, Tokenizer("word", split), None, word_progress)
        char = count_errors(references, hypotheses, Tokenizer(char_unit, split), None, char_progress)  # type: ignore[arg-type]
        return word, char
    vocabulary: set[str] = set()
    with gc_paused():
        word, char = _count_both(references, hypotheses, normalizer, vocabulary.update, progress)
    if _keys_collide(vocabulary):
        tokenize = str.split if normalizer is None else (lambda t: normalizer(t).split())
        word = _recount_exactly(references, hypotheses, tokenize)
    return word, char


def _check_lengths(references: Sequence[str], hypotheses: Sequence[str]) -> None:
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references but {len(hypotheses)} hypotheses; they must pair up")


# rapidfuzz compares list elements by a 64-bit key: the code point of a one-character string,
# else its Python hash. That is exact unless two distinct tokens share a key, so the counting
# loops collect the vocabulary and we check; in the (astronomically rare) event of a collision
# the corpus is recounted through an integer vocabulary, which is exact by construction.
_UINT64 = (1 << 64) - 1


def _rapidfuzz_key(token: str) -> int:
    return ord(token) if len(token) == 1 else hash(token) & _UINT64


def _keys_collide(vocabulary: set[str]) -> bool:
    return len({_rapidfuzz_key(w) for w in vocabulary}) != len(vocabulary)


def _recount_exactly(references, hypotheses, tokenize) -> list[ErrorCounts]:
    to_ints = defaultdict(itertools.count().__next__).__getitem__
    with gc_paused():
        return _count(references, hypotheses, lambda t: list(map(to_ints, tokenize(t))), None, None)


# The counting loops run once per utterance of every metrics call, so they work a chunk of
# utterances at a time with map() (the per-item work then runs in C) and keep Python-level work
# to a few integer operations per utterance. A chunk bounds the tokens held in memory at once.
_CHUNK = 512


def _counts_from_script(ops, n_ref: int, n_hyp: int) -> ErrorCounts:
    """Hits, substitutions, deletions and insertions of one rapidfuzz edit script."""
    n_ops = len(ops)
    # With no more edits than the length difference there can be no substitution.
    subs = list(map(_first, ops.as_list())).count("replace") if n_ops > abs(n_ref - n_hyp) else 0
    # deletions + insertions = n_ops - subs and deletions - insertions = n_ref - n_hyp
    dels = (n_ops - subs + n_ref - n_hyp) // 2
    return _new(ErrorCounts, (n_ref - subs - dels, subs, dels, n_ops - subs - dels))


def _counts_from_char_script(ops, n_ref: int, n_hyp: int) -> ErrorCounts:
    """As ``_counts_from_script``; character scripts have many edits but fewer matching blocks,
    and substitutions = n_ref + n_hyp - 2 * hits - n_ops."""
    n_ops = len(ops)
    subs = n_ref + n_hyp - 2 * sum(map(_size, ops.as_matching_blocks())) - n_ops if n_ops > abs(n_ref - n_hyp) else 0
    dels = (n_ops - subs + n_ref - n_hyp) // 2
    return _new(ErrorCounts, (n_ref - subs - dels, subs, dels, n_ops - subs - dels))


_new = tuple.__new__  # builds the NamedTuple without its Python-level __new__
_first = itemgetter(0)
_size = attrgetter("size")


def _count(references, hypotheses, tokenize, collect, progress) -> list[ErrorCounts]:
    from rapidfuzz.distance.Levenshtein import editops

    out: list[ErrorCounts] = []
    n_total = len(references)
    for start in range(0, n_total, _CHUNK):
        refs = list(map(tokenize, references[start : start + _CHUNK]))
        hyps = list(map(tokenize, hypotheses[start : start + _CHUNK]))
        if collect is not None:
            collect(chain.from_iterable(refs))
            collect(chain.from_iterable(hyps))
        out += map(_counts_from_script, map(editops, refs, hyps), map(len, refs), map(len, hyps))
        if progress is not None:
            progress(len(out), n_total)
    return out


def _count_both(references, hypotheses, normalizer, collect, progress) -> tuple[list, list]:
    """``_count`` for words and code points at once: the code-point string is the words joined
    by single spaces."""
    from rapidfuzz.distance.Levenshtein import editops

    word: list[ErrorCounts] = []
    char: list[ErrorCounts] = []
    n_total = len(references)
    for start in range(0, n_total, _CHUNK):
        refs, hyps = references[start : start + _CHUNK], hypotheses[start : start + _CHUNK]
        if normalizer is not None:
            refs, hyps = map(normalizer, refs), map(normalizer, hyps)
        refs, hyps = list(map(str.split, refs)), list(map(str.split, hyps))
        collect(chain.from_iterable(refs))
        collect(chain.from_iterable(hyps))
        word += map(_counts_from_script, map(editops, refs, hyps), map(len, refs), map(len, hyps))
        refs, hyps = list(map(" ".join, refs)), list(map(" ".join, hyps))
        char += map(_counts_from_char_script, map(editops, refs, hyps), map(len, refs), map(len, hyps))
        if progress is not None:
            progress(len(word), n_total)
    return word, char


@dataclass
class MetricsResult:
    """Word- and character-level counts for every utterance, in input order.

    ``corpus_*`` are the corpus-level figures (errors summed over all utterances, then divided);
    ``per_utterance`` lists each utterance's own rates. Means of per-utterance rates are not
    reported because they weight short utterances as heavily as long ones.
    """

    ids: list[str]
    word: list[ErrorCounts]
    char: list[ErrorCounts]
    char_unit: str = "char"
    split: str = "unicode"
    normalizer: str = "none"
    _corpus: dict[str, ErrorCounts] = field(default_factory=dict, repr=False)

    @property
    def corpus_word(self) -> ErrorCounts:
        if "word" not in self._corpus:
            self._corpus["word"] = total(self.word)
        return self._corpus["word"]

    @property
    def corpus_char(self) -> ErrorCounts:
        if "char" not in self._corpus:
            self._corpus["char"] = total(self.char)
        return self._corpus["char"]

    @property
    def wer(self) -> float:
        return self.corpus_word.wer

    @property
    def cer(self) -> float:
        return self.corpus_char.error_rate

    def summary(self) -> dict:
        """Corpus level: the documented JSON keys, plus sizes and settings."""
        return {
            **_rates(self.corpus_word, self.corpus_char),
            "ref_words": self.corpus_word.ref_len,
            "hyp_words": self.corpus_word.hyp_len,
            "ref_chars": self.corpus_char.ref_len,
            "char_counts": self.corpus_char.counts(),
            "cer_unit": self.char_unit,
            "utterances_count": len(self.ids),
            "level": "corpus",
            "split": self.split,
            "normalize": self.normalizer,
        }

    def per_utterance(self) -> list[dict]:
        """One record per utterance, in input order, with the same keys as the summary."""
        out = []
        with gc_paused():
            for uid, w, c in zip(self.ids, self.word, self.char):
                row = {"id": uid, **_rates(w, c)}
                row["ref_words"], row["ref_chars"] = w[0] + w[1] + w[2], c[0] + c[1] + c[2]
                out.append(row)
        return out

    def by_group(self, labels: Sequence[str]) -> dict[str, dict]:
        """Corpus-level figures per label (e.g. speaker), labels in first-seen order."""
        groups: dict[str, list[int]] = {}
        for k, label in enumerate(labels):
            groups.setdefault(label, []).append(k)
        out = {}
        for label, idx in groups.items():
            w = total(self.word[k] for k in idx)
            c = total(self.char[k] for k in idx)
            out[label] = {**_rates(w, c), "utterances_count": len(idx), "ref_words": w.ref_len}
        return out


def _rates(word: ErrorCounts, char: ErrorCounts) -> dict:
    """The ErrorCounts properties, computed from the four counts directly: ``per_utterance``
    builds one of these per utterance, and the property calls dominated its time."""
    h, s, d, i = word
    ref, hyp, errors = h + s + d, h + s + i, s + d + i
    if ref:
        wer, mer = errors / ref, errors / (ref + i)
        wip = (h / ref) * (h / hyp) if hyp else 0.0
    else:
        wer, mer, wip = float(i), (0.0 if hyp == 0 else 1.0), (1.0 if hyp == 0 else 0.0)
    c_ref = char[0] + char[1] + char[2]
    cer = (char[1] + char[2] + char[3]) / c_ref if c_ref else float(char[3])
    return {
        "wer": wer,
        "cer": cer,
        "mer": mer,
        "wil": 1 - wip,
        "wip": wip,
        "hits": h,
        "substitutions": s,
        "deletions": d,
        "insertions": i,
    }


def compute_metrics(
    references: Sequence[str],
    hypotheses: Sequence[str],
    ids: Sequence[str] | None = None,
    *,
    normalizer: Normalizer | None = None,
    split: Split = "unicode",
    char_unit: str = "char",
    progress: Progress | None = None,
) -> MetricsResult:
    """WER/MER/WIL/WIP on words and CER on code points (``char``) or graphemes, per utterance
    and corpus level. ``normalizer`` is applied to both sides first (see ``get_normalizer``)."""
    if char_unit not in ("char", "grapheme"):
        raise ValueError(f"char_unit must be 'char' or 'grapheme', not {char_unit!r}")
    if ids is None:
        ids = [str(k + 1) for k in range(len(references))]
    elif len(ids) != len(references):
        raise ValueError(f"{len(ids)} ids for {len(references)} utterances")
    word, char = count_words_and_chars(
        references, hypotheses, split=split, char_unit=char_unit, normalizer=normalizer, progress=progress
    )
    return MetricsResult(
        ids=list(ids),
        word=word,
        char=char,
        char_unit=char_unit,
        split=split,
        normalizer=getattr(normalizer, "name", "custom") if normalizer else "none",
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
    return total(count_errors(refs, hyps, Tokenizer("word", split), normalizer)).wer


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
    return total(count_errors(refs, hyps, Tokenizer(unit, split), normalizer)).error_rate  # type: ignore[arg-type]
