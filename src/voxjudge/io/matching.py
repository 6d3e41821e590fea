"""Pair reference and hypothesis utterances by id (or by line for line-aligned files)."""

from __future__ import annotations

from dataclasses import dataclass

from voxjudge.errors import InputError
from voxjudge.io.readers import TextSet

_SHOW = 5


@dataclass(frozen=True)
class Paired:
    """Parallel lists in reference order."""

    ids: list[str]
    references: list[str]
    hypotheses: list[str]
    speakers: list[str | None]

    def __len__(self) -> int:
        return len(self.ids)


def _few(items: list[str]) -> str:
    shown = ", ".join(items[:_SHOW])
    return shown + (f" and {len(items) - _SHOW} more" if len(items) > _SHOW else "")


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
                f"{ref.path} has {len(ref)} lines but {hyp.path} has {len(hyp)}; "
                "line-aligned files must have one line per utterance in the same order"
            )
        hyp_texts = [r.text for r in hyp.records]
    else:
        by_id = {r.id: r.text for r in hyp.records}
        ref_ids = {r.id for r in ref.records}
        missing = [r.id for r in ref.records if r.id not in by_id]
        extra = [r.id for r in hyp.records if r.id not in ref_ids]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"{len(missing)} reference id(s) missing from {hyp.path}: {_few(missing)}")
            if extra:
                parts.append(f"{len(extra)} id(s) in {hyp.path} not in {ref.path}: {_few(extra)}")
            raise InputError("; ".join(parts))
        hyp_texts = [by_id[r.id] for r in ref.records]
    return Paired(
        ids=[r.id for r in ref.records],
        references=[r.text for r in ref.records],
        hypotheses=hyp_texts,
        speakers=[r.speaker for r in ref.records],
    )
