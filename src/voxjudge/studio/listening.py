"""What of each clip went out to an annotator, and the must-listen check on it: a rating counts
only when every clip of the item was sent whole, its first bytes at least its duration ago. The
server counts what it sent (a HEAD or a partial download does not count), nothing the page says.
"""

from __future__ import annotations

import json

import sqlalchemy as sa

from voxjudge.studio import tasks
from voxjudge.studio.store import assignments, audio, item_audio, listens

LISTEN_SLACK = 0.3  # seconds (at most 10% of the clip): buffering; a rating sooner than that before the end is refused
MAX_SPANS = 64  # disjoint byte ranges recorded per clip


def merge_spans(spans: list[list[int]]) -> list[list[int]]:
    """[start, end) ranges merged where they overlap or touch, in order."""
    out: list[list[int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


class Listening:
    """The listening part of ``flow.Flow`` (its ``store`` and ``insert``): clips by presented slot,
    the bytes sent, and the check before an answer is stored."""

    def clip(self, annotator_pk: int, seq: int, slot: int) -> tuple[int, str] | None:
        """(assignment pk, file relative to the audio root) of presented clip ``slot`` of the
        annotator's item ``seq``; None when there is no such clip."""
        with self.store.engine.connect() as c:
            row = c.execute(
                sa.select(assignments.c.pk, assignments.c.item_pk, assignments.c.present).where(
                    assignments.c.annotator_pk == annotator_pk, assignments.c.seq == seq
                )
            ).first()
            if row is None:
                return None
            present = json.loads(row.present) if row.present else None
            n = c.execute(sa.select(sa.func.count()).where(item_audio.c.item_pk == row.item_pk)).scalar()
            if not 0 <= slot < n:
                return None
            source_slot = present[slot] if present else slot
            path = c.execute(
                sa.select(audio.c.path)
                .select_from(item_audio.join(audio, audio.c.pk == item_audio.c.audio_pk))
                .where(item_audio.c.item_pk == row.item_pk, item_audio.c.slot == source_slot)
            ).scalar()
        return row.pk, path

    def note_sent(self, assignment_pk: int, slot: int, start: int, end: int, size: int, first_at: float) -> None:
        """Record that bytes [start, end) of a clip of ``size`` bytes went out to the annotator, the
        first of them at ``first_at``: the must-listen check counts what was sent, nothing else."""
        if end <= start:
            return
        for _ in range(3):
            with self.store.writer.begin() as c:
                key = (listens.c.assignment_pk == assignment_pk, listens.c.slot == slot)
                row = c.execute(sa.select(listens).where(*key).with_for_update()).first()
                if row is None:
                    done = c.execute(
                        self.insert(listens)
                        .values(
                            assignment_pk=assignment_pk,
                            slot=slot,
                            first_at=first_at,
                            size=size,
                            covered=json.dumps([[start, end]]),
                        )
                        .on_conflict_do_nothing(index_elements=[listens.c.assignment_pk, listens.c.slot])
                    ).rowcount
                    if done == 1:
                        return
                    continue  # a concurrent request of the same clip inserted first: merge into it
                spans = json.loads(row.covered) if row.size == size else []  # a replaced file starts again
                merged = merge_spans([*spans, [start, end]])
                if len(merged) > MAX_SPANS:  # scattered one-byte ranges are not listening
                    return
                c.execute(
                    sa.update(listens)
                    .where(*key)
                    .values(first_at=min(row.first_at, first_at), size=size, covered=json.dumps(merged))
                )
                return

    def _heard(self, c, assignment_pk: int, seconds: list[float | None], now: float) -> None:
        """AnswerError unless every clip was sent whole, its first bytes at least its duration ago
        (server-side check: a HEAD or a partial download does not count)."""
        got = {
            r.slot: r
            for r in c.execute(
                sa.select(listens.c.slot, listens.c.first_at, listens.c.size, listens.c.covered).where(
                    listens.c.assignment_pk == assignment_pk
                )
            )
        }
        for slot, length in enumerate(seconds):
            name = f"clip {slot + 1}" if len(seconds) > 1 else "the clip"
            r = got.get(slot)
            if r is None or json.loads(r.covered) != [[0, r.size]]:
                raise tasks.AnswerError(f"play {name} to the end before answering")
            if length is not None and now - r.first_at < length - min(LISTEN_SLACK, 0.1 * length):
                raise tasks.AnswerError(f"listen to {name} to the end ({length:.1f} s) before answering")
