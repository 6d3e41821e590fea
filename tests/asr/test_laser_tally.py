"""``tally.tally_part`` adds a chunk up by columns and by distinct events; the loop it replaced
(below, as it was) is the reference: the same part, and the same sums float by float, on random
figures and events (unscored utterances, -0.0, one type with several penalties, disputed pairs,
no error type)."""

from __future__ import annotations

import random
from dataclasses import astuple
from functools import reduce
from operator import add

import pytest

from voxjudge.asr.laser.tally import EMPTY_REFERENCE, TallyPart, tally_part


def _loop(figures: list[tuple], events: list[tuple], unscored: str | None = None) -> TallyPart:
    penalties, lasers, semdists, calibrated = [], [], [], []
    n_unscored = ref_words = wer_errors = wer_ref_words = wer_utterances = matches = n_format = 0
    for penalty, laser, words, edits, identical, _, formatting, semdist, fitted in figures:
        if semdist is not None:
            semdists.append(semdist)
        if words and edits is not None:
            wer_errors += edits
            wer_ref_words += words
            wer_utterances += 1
        if laser is None:
            n_unscored += 1
            continue
        penalties.append(penalty)
        lasers.append(laser)
        ref_words += words
        matches += identical
        n_format += formatting
        if fitted is not None:
            calibrated.append(fitted)
    labels: dict[str, int] = {"match": matches} if matches else {}
    disputed = 0
    types: dict[str, list] = {}
    for label, error_type, penalty, dispute in events:
        labels[label] = labels.get(label, 0) + 1
        disputed += dispute
        if error_type:
            cell = types.get(error_type)
            if cell is None:
                cell = types[error_type] = [0, []]
            cell[0] += 1
            cell[1].append(penalty)
    parts = {t: (n, pens) for t, (n, pens) in types.items()}
    reasons = {unscored or EMPTY_REFERENCE: n_unscored} if n_unscored else {}
    return TallyPart(
        len(figures), reasons, penalties, lasers, ref_words, wer_errors, wer_ref_words, wer_utterances,
        labels, disputed, parts, n_format, semdists, calibrated,
    )  # fmt: skip


def _figures(rng: random.Random, n: int) -> list[tuple]:
    out = []
    for _ in range(n):
        words = rng.choice([0, 0, 1, 3, 17])
        laser = None if not words or rng.random() < 0.1 else rng.choice([1.0, 0.5, rng.random()])
        edits = None if rng.random() < 0.1 else rng.randrange(0, 5)
        semdist = None if rng.random() < 0.5 else rng.random()
        fitted = None if rng.random() < 0.5 else rng.random()
        penalty = rng.choice([0.0, -0.0, 0.5, 1.0, rng.random()])
        out.append((penalty, laser, words, edits, rng.randrange(0, 9), 0, rng.randrange(0, 2), semdist, fitted))
    return out


def _events(rng: random.Random, n: int) -> list[tuple]:
    kinds = [
        ("match", None, 0.0, False),
        ("match", "case", -0.0, False),
        ("match", "case", 0.0, False),
        ("minor", "spelling", 0.25, False),
        ("minor", "spelling", 0.25, True),
        ("major", "wrong_word", 1.0, False),
        ("major", "wrong_word", 0.1 + 0.2, True),  # one type, two penalties: listed in order
        ("no_penalty", "", 0.0, False),
        ("no_penalty", "filler", 0.0, True),
    ]
    return [rng.choice(kinds[: rng.randrange(1, len(kinds) + 1)]) for _ in range(n)]


@pytest.mark.parametrize("seed", range(40))
def test_tally_part_is_the_loop(seed):
    rng = random.Random(seed)
    figures, events = _figures(rng, rng.choice([0, 1, 5, 200])), _events(rng, rng.choice([0, 1, 7, 500]))
    unscored = rng.choice([None, "judge failed"])
    got, want = tally_part(figures, events, unscored), _loop(figures, events, unscored)
    # every field as the loop made it, but the penalties of a type: those only feed a sum
    # (``LaserTally.add_part``), where a 0.0 may stand for a -0.0 (the sums are bit for bit the same)
    assert repr(astuple(got)[:10] + astuple(got)[11:]) == repr(astuple(want)[:10] + astuple(want)[11:])
    assert list(got.types) == list(want.types) and list(got.labels) == list(want.labels)
    for error_type, (n, pens) in got.types.items():
        assert n == want.types[error_type][0]
        for start in (0.0, 0.1, rng.random()):  # the tally's running sum: 0.0 at first, then anything
            assert repr(reduce(add, pens, start)) == repr(reduce(add, want.types[error_type][1], start))
