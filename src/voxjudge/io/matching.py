"""Pair reference and hypothesis utterances by id (or by line for line-aligned files)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from operator import itemgetter

from voxjudge.errors import InputError, few_ids
from voxjudge.io.line_records import LineRecords, line_ids
from voxjudge.io.readers import TextSet
from voxjudge.plural import counted

_SHOW = 5
# An utterance id as Kaldi files write them: one token of word characters and - _ . : / with a digit.
_ID_LIKE = re.compile(r"[\w\-.:/]*\d[\w\-.:/]*")


@dataclass(frozen=True)
class Paired:
    """Parallel lists in reference order."""

    ids: list[str]
    references: list[str]
    hypotheses: list[str]
    speakers: list[str | None]
    # line-aligned files whose every line, on both sides, begins with the same id-like token: the
    # first few such tokens (the files are probably Kaldi 'id text' read without ids), else ()
    leading_ids: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self):
        """``(id, reference, hypothesis)`` rows, as ``streamed.PairedStream`` gives them."""
        return zip(self.ids, self.references, self.hypotheses)


def pair_texts(ref: TextSet, hyp: TextSet) -> Paired:
    """Match utterances. Id sets must be equal; line-aligned files must have equal line counts."""
    if ref.has_ids != hyp.has_ids:
        with_ids, without = (ref, hyp) if ref.has_ids else (hyp, ref)
        raise InputError(
            f"{with_ids.path} has utterance ids but {without.path} does not; "
            "give both files ids (e.g. Kaldi 'id text' with {ids}) or neither",
            options={"ids": "ids=True"},
        )
    if not ref.has_ids:
        if len(ref) != len(hyp):
            raise InputError(
                f"{ref.path} has {counted(len(ref), 'line')} but {hyp.path} has {len(hyp)}; "
                "line-aligned files must have one line per utterance in the same order"
            )
        ref_texts, hyp_texts = _texts(ref.records), _texts(hyp.records)
        return Paired(
            ids=line_ids(len(ref_texts)),
            references=ref_texts,
            hypotheses=hyp_texts,
            speakers=[None] * len(ref_texts),
            leading_ids=leading_ids(ref_texts, hyp_texts),
        )
    by_id = {r.id: r.text for r in hyp.records}
    ref_ids = {r.id for r in ref.records}
    missing = [r.id for r in ref.records if r.id not in by_id]
    extra = [r.id for r in hyp.records if r.id not in ref_ids]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"{len(missing)} reference id(s) missing from {hyp.path}: {few_ids(missing)}")
        if extra:
            parts.append(f"{len(extra)} id(s) in {hyp.path} not in {ref.path}: {few_ids(extra)}")
        raise InputError("; ".join(parts))
    return Paired(
        ids=[r.id for r in ref.records],
        references=[r.text for r in ref.records],
        hypotheses=[by_id[r.id] for r in ref.records],
        speakers=[r.speaker for r in ref.records],
    )


def _texts(records) -> list[str]:
    """The texts of line-aligned records: the lines themselves when they were never made records."""
    return list(records.lines) if isinstance(records, LineRecords) else list(map(itemgetter(1), records))


def leading_ids(references: list[str], hypotheses: list[str]) -> tuple[str, ...]:
    """The first tokens (up to five) when every line of both sides begins with the same id-like
    token and no two lines share it, as Kaldi 'id text' files read as plain text do; else ()."""
    tokens = []
    for ref, hyp in zip(references, hypotheses):
        r, h = ref.split(maxsplit=1), hyp.split(maxsplit=1)
        if not r or not h or r[0] != h[0] or not _ID_LIKE.fullmatch(r[0]):
            return ()
        tokens.append(r[0])
    if not tokens or len(set(tokens)) != len(tokens):
        return ()
    return tuple(tokens[:_SHOW])
