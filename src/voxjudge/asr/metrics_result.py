"""The result of ``compute_metrics``: corpus figures, and the per-utterance rows and per-group
figures built from its counts (the rates computed from the four counts directly, for speed)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from voxjudge._gc import gc_paused
from voxjudge.asr.error_counts import ErrorCounts, total
from voxjudge.errors import InputError


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
    semdist: Any = None  # ``asr.semdist.SemDist`` when an embedder was given

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
        if self.semdist is not None:  # mean over utterances (a distance per sentence, not per word)
            out["semdist"], out["embedder"] = self.semdist.mean(), self.semdist.embedder
            if self.semdist.server is not None:
                out["embedder_server"] = self.semdist.server
            out["embedder_usage"] = dict(self.semdist.usage)
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
            if self.semdist is not None:
                for k, row in enumerate(out):
                    row["semdist"] = self.semdist.value(k)
        return out

    def _rows(self) -> tuple[list[ErrorCounts] | None, list[ErrorCounts] | None]:
        if (self.has_words and self.word is None) or (self.has_chars and self.char is None):
            raise ValueError("per-utterance counts were not kept; ask compute_metrics(..., per_utterance=True)")
        return self.word, self.char

    def by_group(self, labels: Sequence[str]) -> dict[str, dict]:
        """Corpus-level figures per label (e.g. speaker), labels in first-seen order; with an
        embedder, each group's SemDist too (its utterances' mean, as the corpus figure is)."""
        word, char = self._rows()
        labels = list(labels)
        if len(labels) != len(self.ids):
            raise InputError(f"{len(labels)} labels for {len(self.ids)} utterances: give one label per utterance")
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
            if self.semdist is not None:  # the mean over the group's utterances with a distance
                import numpy as np  # (only with an embedder: the plain metrics import none)

                found = self.semdist.distances[idx]
                found = found[~np.isnan(found)]
                out[label]["semdist"] = float(found.mean()) if len(found) else None
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
