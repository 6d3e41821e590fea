"""Reference and hypothesis files paired as they are read, for corpora of millions of utterances.

``pair_files`` scans both files (``readers.scan_texts``: 8 bytes per utterance) and, when they
list the same ids in the same order (or are line-aligned with as many lines), gives a
``PairedStream`` that reads both files again, line by line, as the utterances are used. Files
in different orders, a pipe, and every problem go through the whole-file readers
(``matching.pair_texts``), so pairing, errors and messages are theirs, whichever way is taken.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import islice, zip_longest

from voxjudge.errors import InputError
from voxjudge.io.matching import Paired, leading_ids, pair_texts
from voxjudge.io.readers import TextScan, kaldi_parts


@dataclass(frozen=True)
class PairedStream:
    """``(id, reference, hypothesis)`` rows in reference order, read from the files as they are used."""

    ref: TextScan
    hyp: TextScan

    def __len__(self) -> int:
        return self.ref.count

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        if self.ref.kind == self.hyp.kind == "kaldi":
            return self._kaldi()
        return self._records()

    def _kaldi(self) -> Iterator[tuple[str, str, str]]:
        """Kaldi files split in C, without a record per line: what ``_records`` gives, in less time."""
        for k, (r, h) in enumerate(zip_longest(kaldi_parts(self.ref.path), kaldi_parts(self.hyp.path))):
            if r is None or h is None:
                self._grown()
            if r[0] != h[0]:
                line = next(islice(self.hyp.records(), k, None)).line
                raise InputError(f"{self.hyp.path}:{line}: the file changed while it was read; run again")
            yield r[0], r[1] if len(r) > 1 else "", h[1] if len(h) > 1 else ""
        self._same_files()

    def _records(self) -> Iterator[tuple[str, str, str]]:
        by_id = self.ref.has_ids
        for r, h in zip_longest(self.ref.records(), self.hyp.records()):
            if r is None or h is None:
                self._grown()
            if by_id and r.id != h.id:  # the scan saw the same ids in the same order
                raise InputError(f"{self.hyp.path}:{h.line}: the file changed while it was read; run again")
            yield r.id, r.text, h.text
        self._same_files()

    def _same_files(self) -> None:
        """After the last row: a file rewritten while it was read (same lines, other words) gave
        rows of two versions, so the run stops before anything is written."""
        for scan in (self.ref, self.hyp):
            if scan.changed():
                raise InputError(f"{scan.path}: the file changed while it was read; run again")

    def _grown(self):
        raise InputError(
            f"{self.ref.path}, {self.hyp.path}: a file changed while it was read (they no longer have as many "
            "lines as when the run began); run again"
        )

    @cached_property
    def leading_ids(self) -> tuple[str, ...]:
        """As ``Paired.leading_ids`` (read on demand: it stops at the first line without one)."""
        if self.ref.has_ids:
            return ()
        return leading_ids((r.text for r in self.ref.records()), (h.text for h in self.hyp.records()))


def pair_files(ref: TextScan, hyp: TextScan) -> Paired | PairedStream:
    """Pair two scanned files: streamed when they are in the same order, else read whole."""
    streamable = ref.whole is None and hyp.whole is None and ref.has_ids == hyp.has_ids
    if streamable and (ref.id_hashes == hyp.id_hashes if ref.has_ids else ref.count == hyp.count):
        return PairedStream(ref, hyp)
    return pair_texts(ref.text_set(), hyp.text_set())
