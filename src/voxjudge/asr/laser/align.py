"""Word alignment for rubric scoring.

Start from the minimum-edit alignment, then re-align every stretch between two matching words
with a small dynamic programme that may also take:

* N:1 and 1:N merges (up to three words, up to eight onto a word with digits) when the two sides
  are the same thing written differently -- a compound split or joined (``इस लिए``/``इसलिए``,
  ``every one``/``everyone``), a number or another value in words and digits (``पाँच सौ``/``500``,
  ``fifteen percent``/``15%``, ``half past three``/``3:30``), a contraction or colloquial form
  (``do not``/``don't``, ``going to``/``gonna``);
* an adjacent swap (``x y``/``y x``) as one reordering.

Each merge or swap costs one edit, so the re-aligned stretch never costs more than the plain
edit script (which is one of the programme's options). Insertions and deletions stay separate
pairs with an empty side -- never glued onto a correct neighbour.

Words are compared by a key (NFC, case folded, edge punctuation stripped), so ``cat.`` and
``cat`` align as equal; the pairs keep the original words for display and for the judges.

Among alignments of equal cost, the programme prefers the one that pairs words which differ only
in combining marks or in the seat of a hamza (``soft_key``): an Arabic reference written with
tashkeel against a hypothesis without it has no equal key at all, and without this preference
one added word shifted every later pair onto its neighbour's word. It only breaks ties, so the
cost stays the plain edit script's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from voxjudge.asr.alignment import align_tokens

MAX_MERGE = 3
# a word with digits may stand for a longer phrase ('$125' / 'one hundred twenty five dollars',
# '12/05/2024' / 'the twelfth of may twenty twenty four'): merges onto it go further
MAX_NUMBER_MERGE = 8
Equivalent = Callable[[tuple[str, ...], tuple[str, ...]], bool]


@lru_cache(maxsize=100_000)  # pure, and asked again for the same words (pairs, neighbours, speech flags)
def word_key(word: str) -> str:
    """What two words must share to align as equal: NFC, case folded, edge punctuation off."""
    w = unicodedata.normalize("NFC", word).casefold()
    start, end = 0, len(w)
    while start < end and unicodedata.category(w[start])[0] in "PZ":
        start += 1
    while end > start and unicodedata.category(w[end - 1])[0] in "PZ":
        end -= 1
    return w[start:end] or w


@dataclass(frozen=True, init=False)
class RubricPair:
    ref: tuple[str, ...]
    hyp: tuple[str, ...]
    op: str  # equal | substitute | delete | insert | merge | swap
    ref_start: int
    hyp_start: int
    # context the pair alone cannot show, set where pairs are formed (speech.py): filler |
    # repetition | false_start; part of the pair's identity, so label caches keep them apart
    note: str = ""

    def __init__(
        self, ref: tuple[str, ...], hyp: tuple[str, ...], op: str, ref_start: int, hyp_start: int, note: str = ""
    ):
        # the fields straight into the instance's dict: a frozen dataclass's own __init__ calls
        # object.__setattr__ once per field, 2.3x the time (a 200k-utterance run makes ~400k pairs)
        d = self.__dict__
        d["ref"], d["hyp"], d["op"] = ref, hyp, op
        d["ref_start"], d["hyp_start"], d["note"] = ref_start, hyp_start, note

    @property
    def ref_text(self) -> str:
        return " ".join(self.ref)

    @property
    def hyp_text(self) -> str:
        return " ".join(self.hyp)

    @property
    def cost(self) -> int:
        return 0 if self.op == "equal" else 1


_ALEF = str.maketrans("أإآٱ", "اااا")


@lru_cache(maxsize=100_000)
def soft_key(key: str) -> str:
    """A word key without combining marks (tashkeel, nukta, accents) and with one alef: what
    breaks ties between equally cheap alignments (never what makes two words equal)."""
    if key.isascii():
        return key
    stripped = "".join(ch for ch in unicodedata.normalize("NFD", key) if unicodedata.category(ch) != "Mn")
    return stripped.translate(_ALEF)


# the programme's moves: (op, reference words, hypothesis words)
_EQUAL, _SUBSTITUTE, _SWAP = ("equal", 1, 1), ("substitute", 1, 1), ("swap", 2, 2)
_DELETE, _INSERT = ("delete", 1, 0), ("insert", 0, 1)


def _region(
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
            # the options in a fixed order; the first with the least (cost, preference) wins (0: merge
            # or swap, 1: equal or substitute, 2: delete or insert), as min() over them would pick
            c, p, best = inf, 3, None
            if i < n and j < m:
                if rk[i] == hk[j]:
                    c, p, best = cost[i + 1][j + 1], 1, _EQUAL
                else:
                    c, p, best = cost[i + 1][j + 1] + unit + (rs[i] != hs[j]), 1, _SUBSTITUTE
            for k in range(2, max(reach_h[j] if j < m else 0, reach_r[i] if i < n else 0) + 1):
                if i + k <= n and j < m and k <= reach_h[j] and equivalent(tuple(ref[i : i + k]), (hyp[j],)):
                    x = cost[i + k][j + 1] + unit
                    if x < c or (x == c and p > 0):
                        c, p, best = x, 0, ("merge", k, 1)
                if j + k <= m and i < n and k <= reach_r[i] and equivalent((ref[i],), tuple(hyp[j : j + k])):
                    x = cost[i + 1][j + k] + unit
                    if x < c or (x == c and p > 0):
                        c, p, best = x, 0, ("merge", 1, k)
            if i + 1 < n and j + 1 < m and rk[i] == hk[j + 1] and rk[i + 1] == hk[j] and rk[i] != rk[i + 1]:
                x = cost[i + 2][j + 2] + unit
                if x < c or (x == c and p > 0):
                    c, p, best = x, 0, _SWAP
            if i < n:
                x = cost[i + 1][j] + unit + 1
                if x < c or (x == c and p > 2):
                    c, p, best = x, 2, _DELETE
            if j < m:
                x = cost[i][j + 1] + unit + 1
                if x < c or (x == c and p > 2):
                    c, p, best = x, 2, _INSERT
            cost[i][j] = c
            move[i][j] = best
    out, i, j = [], 0, 0
    while i < n or j < m:
        tag, di, dj = move[i][j]  # type: ignore[misc]
        out.append(RubricPair(tuple(ref[i : i + di]), tuple(hyp[j : j + dj]), tag, r0 + i, h0 + j))
        i, j = i + di, j + dj
    return out


# The stretch programme runs in Python: ~10,000 of its cells (ref word x hyp word) a second here,
# ~100 bytes each (bench/asr_longform.py). A long line is mostly matches, but a stretch of
# thousands of words with no word in common (a hallucinated passage) would take hours.
REGION_CELLS_PER_SECOND = 1e4
REGION_BYTES_PER_CELL = 100


def check_region(n: int, m: int, ref_start: int) -> None:
    """``longform.LineTooLong`` for a mismatched stretch that would take longer than the limit."""
    from voxjudge.asr import longform

    minutes = longform.limit_minutes()
    seconds = n * m / REGION_CELLS_PER_SECOND
    if minutes is None or seconds <= 60 * minutes:
        return
    raise longform.LineTooLong(
        f"a stretch of {n:,} reference x {m:,} hypothesis words with no word in common (from reference word "
        f"{ref_start + 1:,}) is too long to align for the rubric: it would take about {longform.duration(seconds)} "
        f"and {n * m * REGION_BYTES_PER_CELL / 2**20:,.0f} MB (the limit is {minutes:g} min); split the line there, "
        "or raise {max_align_minutes}",
        options={"max_align_minutes": "the limit (voxjudge.asr.longform.limit(minutes))"},
    )


def rubric_align(ref: Sequence[str], hyp: Sequence[str], equivalent: Equivalent | None = None) -> list[RubricPair]:
    """Pairs covering both word sequences in order (see the module docstring)."""
    equivalent = equivalent or (lambda a, b: False)
    rk, hk = [word_key(w) for w in ref], [word_key(w) for w in hyp]
    pairs: list[RubricPair] = []
    pending_r = pending_h = None  # start of the current mismatched stretch
    chunks = align_tokens(rk, hk)
    for c in chunks + [None]:  # type: ignore[operator]
        if c is not None and c.type != "equal":
            if pending_r is None:
                pending_r, pending_h = c.ref_start, c.hyp_start
            continue
        if pending_r is not None:
            end_r = c.ref_start if c is not None else len(ref)
            end_h = c.hyp_start if c is not None else len(hyp)
            check_region(end_r - pending_r, end_h - pending_h, pending_r)
            pairs += _region(
                ref[pending_r:end_r],
                hyp[pending_h:end_h],
                rk[pending_r:end_r],
                hk[pending_h:end_h],
                pending_r,
                pending_h,
                equivalent,
            )
            pending_r = pending_h = None
        if c is not None:
            pairs += [
                RubricPair((ref[c.ref_start + k],), (hyp[c.hyp_start + k],), "equal", c.ref_start + k, c.hyp_start + k)
                for k in range(c.ref_end - c.ref_start)
            ]
    return swaps(pairs, _word_keys)


def _equal_pair(item) -> RubricPair | None:
    return item if type(item) is RubricPair and item.op == "equal" else None


def swaps(
    items: list,
    keys: Callable[[tuple[str, ...]], list[str]],
    single: Callable[[Any], RubricPair | None] = _equal_pair,
) -> list:
    """Mirrored for plain lines in ``_plain.c`` (``align_line``): a change here needs the same there.
    An edit script may spell an adjacent swap as insert x, keep y, delete x (or the mirror);
    that is one reordering, not two errors. ``keys`` gives the comparison keys of a pair's words;
    ``single`` says which item is one kept word (as an equal pair) -- the streamed path's items
    include runs of identical words (``stream.py``), the rest are ``RubricPair``s."""
    out: list = []
    k, n = 0, len(items)
    while k < n:
        a = items[k]
        if k + 2 < n and type(a) is RubricPair and a.op in ("insert", "delete"):
            c = items[k + 2]
            if type(c) is RubricPair and c.op in ("insert", "delete") and c.op != a.op:
                b = single(items[k + 1])
                if b is not None:
                    if a.op == "insert" and keys(a.hyp) == keys(c.ref):
                        out.append(RubricPair(b.ref + c.ref, a.hyp + b.hyp, "swap", b.ref_start, a.hyp_start))
                        k += 3
                        continue
                    if a.op == "delete" and keys(a.ref) == keys(c.hyp):
                        out.append(RubricPair(a.ref + b.ref, b.hyp + c.hyp, "swap", a.ref_start, b.hyp_start))
                        k += 3
                        continue
        out.append(a)
        k += 1
    return out


@lru_cache(maxsize=100_000)
def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def _word_keys(words: tuple[str, ...]) -> list[str]:
    return [word_key(w) for w in words]
