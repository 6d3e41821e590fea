"""A chunk's result (``ChunkResult``: what ``stream.ChunkScorer`` gives back for a chunk of
utterances) and the assembly of its record bytes: record lines, made by the scorer as UTF-8
fragments, joined PIECE lines at a time into one bytes object (``_flush_lines``), and a long-form
line of many pairs built as one buffer (``_long_record``). A chunk's records
leave as UTF-8 bytes, written by the caller as they are (``ChunkResult.write_records``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from voxjudge import _spool
from voxjudge.asr.laser.scoring import UtteranceScore
from voxjudge.asr.laser.tally import TallyPart

PIECE = 16  # record lines per bytes object (~44 KB: under malloc's mmap threshold, no page faults)
JOIN_STEP = 4096  # pairs joined at a time into a long-form line's buffer (``_long_record``)


@dataclass
class ChunkResult:
    """What a chunk gives back, in input order: its records (JSONL as UTF-8, when asked), per-utterance
    figures for the tally, the labelled pairs of scored utterances, and what a caller keeps."""

    # UTF-8 bytes, PIECE lines a piece (or one long-form line, a bytearray), not a str per line:
    # the process that writes them neither decodes (unpickling) nor encodes (writing) them again
    records: list[bytes | bytearray] = field(default_factory=list)
    # the record lines while the chunk is made, as UTF-8 fragments (heads, joined pairs, ends):
    # joined PIECE lines at a time as soon as there are that many, while they are still in cache
    lines: list[bytes] = field(default_factory=list)
    n_lines: int = 0  # lines in ``lines``
    tally: TallyPart | None = None  # the figures and events below, added up (they are then dropped)
    # (penalty, laser, ref_words, edits, n_identical, n_events, format_errors, semdist, laser_calibrated)
    figures: list[tuple] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)  # (label, error_type, penalty, disputed)
    scores: list[tuple] = field(default_factory=list)  # (id, laser, wer, laser_calibrated, semdist), when asked
    utterances: list[UtteranceScore] = field(default_factory=list)  # when kept
    # (memory file, bytes): where a worker left the records, while ``score_chunks`` is on this
    # chunk; written there by ``write_records``, or read back into ``records`` when it moves on
    spooled: tuple[int, int] | None = None

    def write_records(self, sink) -> None:
        """The records onto a ``RecordStream`` (the way to write them: they may still be in a
        memory file, not in ``records``)."""
        if self.spooled is not None:
            sink.write_spooled(*self.spooled)
            self.spooled = None
        for piece in self.records:
            sink.write_jsonl(piece)

    def keep_records(self) -> None:
        """Records still in a memory file read back into ``records`` (before the file is lent again)."""
        if self.spooled is not None:
            self.records = [_spool.read(*self.spooled)]
            self.spooled = None


def _flush_lines(out: ChunkResult) -> None:
    """The record lines made so far onto ``out.records`` as one piece (at most PIECE lines), in order."""
    if out.lines:
        out.records.append(b"".join(out.lines))
        out.lines, out.n_lines = [], 0


def _long_record(head: str, parts: list[bytes]) -> bytearray:
    """One record line of many pairs, joined a few thousand pairs at a time into one buffer: the
    line exists once (joined whole, it was two copies at its peak -- 0.5 GB for a 1M-word line).
    Written as it is, like the other pieces."""
    buf = bytearray(head.encode())
    for k in range(0, len(parts), JOIN_STEP):
        if k:
            buf += b", "
        buf += b", ".join(parts[k : k + JOIN_STEP])
    buf += b"]}\n"
    return buf
