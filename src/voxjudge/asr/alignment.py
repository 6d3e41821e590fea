"""Word (or character) alignment of a reference and a hypothesis: the edit script jiwer shows.

The chunks are rapidfuzz's Levenshtein opcodes over exactly-compared tokens, which is what
jiwer 4.0 returns as its alignment. ``Alignment.pairs()`` flattens them into one row per aligned
position -- the word pairs that rubric judges classify later.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from voxjudge.asr.error_counts import ErrorCounts
from voxjudge.asr.tokenize import Split, Tokenizer, Unit

if TYPE_CHECKING:
    from voxjudge.asr.measures import Normalizer

Op = Literal["equal", "substitute", "delete", "insert"]


@dataclass(frozen=True)
class AlignmentChunk:
    """A run of one operation: ``ref[ref_start:ref_end]`` against ``hyp[hyp_start:hyp_end]``."""

    type: Op
    ref_start: int
    ref_end: int
    hyp_start: int
    hyp_end: int


@dataclass(frozen=True)
class WordPair:
    """One aligned position. ``ref`` is empty for an insertion, ``hyp`` for a deletion."""

    ref: str
    hyp: str
    op: Op
    ref_index: int | None
    hyp_index: int | None


@dataclass(frozen=True)
class Alignment:
    """The alignment of one reference/hypothesis pair (what ``align`` returns).

    - ``ref``, ``hyp``: the tokens of each side (words, or characters/graphemes by ``unit``), after
      the normalizer.
    - ``chunks``: the edit script as runs of one operation (``AlignmentChunk``: ``equal``,
      ``substitute``, ``delete`` or ``insert``, with the slices of ``ref`` and ``hyp`` it covers).

    ``counts`` sums them into an ``ErrorCounts`` (hits, substitutions, deletions, insertions, and
    the rates: ``error_rate`` is the WER or CER); ``pairs()`` flattens them into one ``WordPair``
    per aligned position.
    """

    ref: list[str]
    hyp: list[str]
    chunks: list[AlignmentChunk]

    @property
    def counts(self) -> ErrorCounts:
        """Hits, substitutions, deletions and insertions of the alignment (with the rates they give)."""
        h = s = d = i = 0
        for c in self.chunks:
            if c.type == "equal":
                h += c.ref_end - c.ref_start
            elif c.type == "substitute":
                s += c.ref_end - c.ref_start
            elif c.type == "delete":
                d += c.ref_end - c.ref_start
            else:
                i += c.hyp_end - c.hyp_start
        return ErrorCounts(h, s, d, i)

    def pairs(self) -> list[WordPair]:
        """One ``WordPair`` per aligned position, in order: ``ref`` empty for an insertion, ``hyp``
        for a deletion."""
        out: list[WordPair] = []
        for c in self.chunks:
            if c.type == "insert":
                out.extend(WordPair("", self.hyp[j], "insert", None, j) for j in range(c.hyp_start, c.hyp_end))
            elif c.type == "delete":
                out.extend(WordPair(self.ref[i], "", "delete", i, None) for i in range(c.ref_start, c.ref_end))
            else:
                out.extend(
                    WordPair(self.ref[i], self.hyp[j], c.type, i, j)
                    for i, j in zip(range(c.ref_start, c.ref_end), range(c.hyp_start, c.hyp_end))
                )
        return out


def align_tokens(ref: Sequence[str], hyp: Sequence[str]) -> list[AlignmentChunk]:
    """Opcodes of the Levenshtein alignment of two token sequences (exact token equality). A long
    pair goes through ``longform`` (ids ranked by frequency, Ctrl-C within a second): the same
    opcodes."""
    from voxjudge.asr import longform

    if longform.is_long(ref, hyp):
        ops = longform.opcodes(ref, hyp)
    else:
        from rapidfuzz.distance.Levenshtein import opcodes

        vocab: dict[str, int] = {}
        ref_ids = [vocab.setdefault(t, len(vocab)) for t in ref]
        hyp_ids = [vocab.setdefault(t, len(vocab)) for t in hyp]
        ops = opcodes(ref_ids, hyp_ids)
    return [
        AlignmentChunk("substitute" if tag == "replace" else tag, i1, i2, j1, j2)  # type: ignore[arg-type]
        for tag, i1, i2, j1, j2 in ops
    ]


def align(
    reference: str,
    hypothesis: str,
    *,
    unit: Unit = "word",
    split: Split = "unicode",
    normalizer: Normalizer | None = None,
) -> Alignment:
    """Align one reference/hypothesis pair after optional normalization."""
    for name, text in (("reference", reference), ("hypothesis", hypothesis)):
        if not isinstance(text, str):
            from voxjudge.errors import InputError

            raise InputError(f"the {name} is {text!r}, not a text (str): align() takes one pair of strings")
    tokenizer = Tokenizer(unit, split)
    if normalizer is not None:
        reference, hypothesis = normalizer(reference), normalizer(hypothesis)
    ref, hyp = list(tokenizer(reference)), list(tokenizer(hypothesis))
    return Alignment(ref, hyp, align_tokens(ref, hyp))
