"""Classic error rates (WER, CER, MER, WIL, WIP) counted exactly as jiwer 4.0 counts them: the
public entry points.

Counting is the hot loop of the toolkit, so it stays lean: token lists go straight to rapidfuzz's
C++ Levenshtein (token equality checked to be exact, ``units.keys_collide``), pairs identical
after normalization are not aligned at all, and only the edit script's length and matching
blocks are read -- substitutions, deletions and insertions follow from them and the two lengths
(``error_counts.from_sums``). The edit script is the one jiwer uses, so hits, substitutions,
deletions and insertions are identical, not just the totals. Only the units asked for are
counted, and corpus totals need no per-utterance Python work.

Where the parts live: ``error_counts`` (the counts and their rates), ``counting`` (the pass over
the corpus), ``totals`` (corpus sums) and ``rows`` (per-utterance counts), ``units`` (splitting
and exact keys), ``metrics_result`` (the result and its per-utterance and per-group views).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext

from voxjudge.asr.counting import Progress, count_units
from voxjudge.asr.error_counts import ErrorCounts, total
from voxjudge.asr.inputs import paired, string_ids, texts
from voxjudge.asr.metrics_result import MetricsResult
from voxjudge.asr.tokenize import Split, Tokenizer
from voxjudge.asr.units import unit_functions
from voxjudge.errors import InputError

Normalizer = Callable[[str], str]

__all__ = [
    "UNIT_NAMES",
    "ErrorCounts",
    "MetricsResult",
    "Normalizer",
    "Progress",
    "Tokenizer",
    "cer",
    "compute_metrics",
    "count_errors",
    "count_words_and_chars",
    "total",
    "wer",
]


def count_errors(
    references: Sequence[str],
    hypotheses: Sequence[str],
    tokenizer: Tokenizer | None = None,
    normalizer: Normalizer | None = None,
    progress: Progress | None = None,
) -> list[ErrorCounts]:
    """Per-utterance counts for parallel lists of reference and hypothesis strings."""
    references, hypotheses, _ = paired(references, hypotheses)
    tokenizer = tokenizer or Tokenizer()
    units = {"word": tokenizer.function()} if tokenizer.unit == "word" else {"char": tokenizer.function()}
    tallies = count_units(references, hypotheses, units, normalizer, True, (), progress)
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
    references, hypotheses, _ = paired(references, hypotheses)
    tallies = count_units(
        references, hypotheses, unit_functions(("word", "char"), split, char_unit), normalizer, True, (), progress
    )
    return tallies["word"].rows, tallies["char"].rows  # type: ignore[return-value]


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
    embedder: str | None = None,
    embedder_base_url: str | None = None,
    embed_options=None,
    embed_progress=None,
) -> MetricsResult:
    """WER/MER/WIL/WIP on words and CER on code points (``char``) or graphemes, per utterance
    and corpus level. ``normalizer`` is applied to both sides first (see ``get_normalizer``).

    ``units``: which of ``word`` and ``char`` (the CER, in ``char_unit``) to count; the others
    cost nothing. ``per_utterance=False`` keeps only the corpus totals (no per-utterance Python
    work); with it, ``char_counts=False`` computes the corpus CER from the edit distance alone,
    without its split into hits, substitutions, deletions and insertions (the summary then has
    no ``char_counts``; per-utterance rows always have the split).

    ``embedder``: a spec (``default``, ``openai/<model>`` ...; ``llm.open_embedder``) to add SemDist
    per utterance and for the corpus (``asr.semdist``; on the texts as given, not normalised);
    ``embed_options`` a ``JudgeOptions`` for its cache and limits, ``embed_progress`` a context
    factory like ``run_laser``'s ``progress`` (default: ``progress`` counts the embeddings too).

    A line whose alignment would take longer than ``longform``'s limit (``longform.limit``)
    raises ``longform.LineTooLong`` before anything is counted."""
    if embedder is not None:  # "none": no embedder; a spec or server no request can go to fails before counting
        from voxjudge.asr.semdist import semdist_embedder

        embedder = semdist_embedder(embedder, embedder_base_url)
    if char_unit not in ("char", "grapheme"):
        raise InputError(f"char_unit must be 'char' or 'grapheme', not {char_unit!r}")
    units = (units,) if isinstance(units, str) else tuple(units)
    if not units or any(u not in UNIT_NAMES for u in units):
        raise InputError(f"units must be some of {', '.join(UNIT_NAMES)}, not {units!r}")
    if normalizer is not None and not callable(normalizer):
        raise InputError(
            f"normalizer is a function of a text (e.g. get_normalizer({normalizer!r})), not {normalizer!r}"
        )
    references, hypotheses, ids = paired(references, hypotheses, ids)
    ids = string_ids(ids) if ids is not None else [str(k + 1) for k in range(len(references))]
    tallies = count_units(
        references,
        hypotheses,
        unit_functions(units, split, char_unit),
        normalizer,
        per_utterance,
        () if char_counts else ("char",),
        progress,
        lambda k: f"utterance {ids[k]}" if ids[k] != str(k + 1) else f"line {k + 1}",
    )
    corpus: dict[str, ErrorCounts] = {}
    char_rate = None
    if not per_utterance:
        corpus = {u: t.counts() for u, t in tallies.items() if t.detail}
        if "char" in tallies and not tallies["char"].detail:
            char_rate = tallies["char"].rate()
    semdist = None
    if embedder:
        from voxjudge.asr.semdist import compute_semdist

        (semdist,) = compute_semdist(
            embedder,
            references,
            [hypotheses],
            ids,
            base_url=embedder_base_url,
            options=embed_options,
            progress=embed_progress or (lambda _what: nullcontext(progress)),
        )
    return MetricsResult(
        ids=list(ids),
        word=tallies["word"].rows if per_utterance and "word" in tallies else None,
        char=tallies["char"].rows if per_utterance and "char" in tallies else None,
        char_unit=char_unit,
        split=split,
        normalizer=getattr(normalizer, "name", "custom") if normalizer else "none",
        _corpus=corpus,
        _char_rate=char_rate,
        semdist=semdist,
    )


def _as_list(text: str | Sequence[str]) -> Sequence[str]:
    # As in jiwer, an empty list is one empty sentence: wer([], ["a"]) == 1, wer([], []) == 0.
    if isinstance(text, str):
        return [text]
    text = texts(text, "the texts")
    return text if len(text) else [""]


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
    if unit not in ("char", "grapheme"):
        raise InputError(f"unit must be 'char' or 'grapheme', not {unit!r} (the WER is wer())")
    refs, hyps = _as_list(reference), _as_list(hypothesis)
    return _corpus_rate(refs, hyps, Tokenizer(unit, split), normalizer)  # type: ignore[arg-type]


def _corpus_rate(refs, hyps, tokenizer: Tokenizer, normalizer) -> float:
    """The corpus error rate from the summed edit distances alone (no per-utterance work)."""
    refs, hyps, _ = paired(refs, hyps)
    key = "word" if tokenizer.unit == "word" else "char"
    ref_len, errors = count_units(refs, hyps, {key: tokenizer.function()}, normalizer, False, (key,), None)[key].rate()
    return errors / ref_len if ref_len else float(errors)
