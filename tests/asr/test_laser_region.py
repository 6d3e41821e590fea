"""``align._region`` keeps the best option of each cell as it goes; the programme as it was (below,
building every option and taking ``min``) is the reference: the same pairs on random stretches
with merges (compounds, numbers, contractions, colloquial forms), swaps, equal keys inside a
stretch and ties broken by marks (Arabic with and without tashkeel)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from voxjudge.asr.laser.align import (
    MAX_MERGE,
    MAX_NUMBER_MERGE,
    Equivalent,
    RubricPair,
    _has_digit,
    _region,
    soft_key,
    word_key,
)
from voxjudge.asr.laser.rules import equivalent

WORDS = {
    "en": "every one everyone going to gonna do not don't it is it's 15 fifteen percent 15% 500 five hundred "
    "the cat sat mat cat. The half past three 3:30 x y".split(),
    "hi": "इस लिए इसलिए पाँच सौ 500 बाज़ार बाजार है हैं".split(),
    "ar": "كَتَبَ كتب الكِتَابُ الكتاب في في".split(),
}
SAME = {  # one thing written two ways: a merge where both sides hold them
    "en": [("every one", "everyone"), ("going to", "gonna"), ("do not", "don't"), ("it is", "it's"),
           ("fifteen percent", "15%"), ("five hundred", "500"), ("half past three", "3:30")],
    "hi": [("इस लिए", "इसलिए"), ("पाँच सौ", "500")],
    "ar": [("في", "في")],
}  # fmt: skip


def _reference_region(
    ref: Sequence[str],
    hyp: Sequence[str],
    rk: Sequence[str],
    hk: Sequence[str],
    r0: int,
    h0: int,
    equivalent: Equivalent,
) -> list[RubricPair]:
    """Best alignment of one mismatched stretch (ref[r0:], hyp[h0:] are the stretch's words;
    rk, hk their comparison keys)."""
    n, m = len(ref), len(hyp)
    inf = float("inf")
    # cost = edits * unit + pairs whose words differ even without marks: edits first, the
    # secondary count only among alignments with as few edits
    unit = n + m + 1
    rs, hs = [soft_key(k) for k in rk], [soft_key(k) for k in hk]
    # cost[i][j]: best cost aligning ref[i:] with hyp[j:]; ties prefer merges/swaps, then substitutions
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    move: list[list[tuple | None]] = [[None] * (m + 1) for _ in range(n + 1)]
    cost[n][m] = 0
    # how many words may merge onto each word of the other side
    reach_r = [MAX_NUMBER_MERGE if _has_digit(w) else MAX_MERGE for w in ref]
    reach_h = [MAX_NUMBER_MERGE if _has_digit(w) else MAX_MERGE for w in hyp]
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n and j == m:
                continue
            options = []
            if i < n and j < m:
                tag = "equal" if rk[i] == hk[j] else "substitute"
                step = 0 if tag == "equal" else unit + (rs[i] != hs[j])
                options.append((cost[i + 1][j + 1] + step, 1, tag, 1, 1))
            for k in range(2, max(reach_h[j] if j < m else 0, reach_r[i] if i < n else 0) + 1):
                if i + k <= n and j < m and k <= reach_h[j] and equivalent(tuple(ref[i : i + k]), (hyp[j],)):
                    options.append((cost[i + k][j + 1] + unit, 0, "merge", k, 1))
                if j + k <= m and i < n and k <= reach_r[i] and equivalent((ref[i],), tuple(hyp[j : j + k])):
                    options.append((cost[i + 1][j + k] + unit, 0, "merge", 1, k))
            if i + 1 < n and j + 1 < m and rk[i] == hk[j + 1] and rk[i + 1] == hk[j] and rk[i] != rk[i + 1]:
                options.append((cost[i + 2][j + 2] + unit, 0, "swap", 2, 2))
            if i < n:
                options.append((cost[i + 1][j] + unit + 1, 2, "delete", 1, 0))
            if j < m:
                options.append((cost[i][j + 1] + unit + 1, 2, "insert", 0, 1))
            best = min(options, key=lambda o: (o[0], o[1]))
            cost[i][j] = best[0]
            move[i][j] = best
    out, i, j = [], 0, 0
    while i < n or j < m:
        _, _, tag, di, dj = move[i][j]  # type: ignore[misc]
        out.append(RubricPair(tuple(ref[i : i + di]), tuple(hyp[j : j + dj]), tag, r0 + i, h0 + j))
        i, j = i + di, j + dj
    return out


@pytest.mark.parametrize("lang", sorted(WORDS))
@pytest.mark.parametrize("seed", range(30))
def test_region_is_the_programme_as_it_was(lang, seed):
    rng = random.Random(seed)
    eq = equivalent(lang)
    words = WORDS[lang]
    for _ in range(300):
        ref = rng.choices(words, k=rng.randint(0, 5))
        hyp = rng.choices(words, k=rng.randint(0 if ref else 1, 5))
        if rng.random() < 0.3 and len(ref) >= 2:  # a swap
            hyp = [ref[1], ref[0], *hyp[:2]]
        if rng.random() < 0.5:  # a merge, either way round
            a, b = rng.choice(SAME[lang])
            a, b = (a, b) if rng.random() < 0.5 else (b, a)
            k, j = rng.randint(0, len(ref)), rng.randint(0, len(hyp))
            ref, hyp = ref[:k] + a.split() + ref[k:], hyp[:j] + b.split() + hyp[j:]
        rk, hk = [word_key(w) for w in ref], [word_key(w) for w in hyp]
        r0, h0 = rng.randint(0, 9), rng.randint(0, 9)
        assert _region(ref, hyp, rk, hk, r0, h0, eq) == _reference_region(ref, hyp, rk, hk, r0, h0, eq)
