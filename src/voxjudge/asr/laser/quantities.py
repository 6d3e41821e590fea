"""Comparing a number written with digits on one side (``15%``, ``$5``, ``5km``, ``3:30``,
``3rd``, ``12/05/2024``) with what the other side says (``fifteen percent``, ``five dollars``,
``five kilometres``, ``half past three``, ``the third``, ``the twelfth of May twenty twenty four``).

The written side is read into a value (``quantity_written``); the other side matches when it is
one of that value's spoken forms (``quantity_spoken``) or another way of writing it. Same value ->
no penalty; a side that reads as another value of the same kind (``sixteen percent`` for ``15%``,
``$6`` for ``$5``) -> major. A language without word lists (``quantity_words``) still gets digits
against digits, and ordinals and numbers in words where num2words has it.
"""

from __future__ import annotations

from functools import lru_cache

from voxjudge.asr.laser.lang import number_words
from voxjudge.asr.laser.quantity_spoken import joined, ordinals, spoken_forms
from voxjudge.asr.laser.quantity_words import CURRENCY, PERCENT, UNITS
from voxjudge.asr.laser.quantity_written import Quantity, parse_written


def quantities_equal(a: tuple[str, ...], b: tuple[str, ...], lang: str) -> Quantity | None:
    """The value, when one side is one written quantity and the other says the same value (in
    words, or written another way); else None."""
    for written, other in ((a, b), (b, a)):
        if len(written) == 1:
            q = parse_written(written[0], lang)
            if q is None or (q.kind == "number" and len(other) != 1):
                continue  # a plain number against words: lang.numbers_equal's (third / 3: one word)
            if len(other) == 1:
                q2 = parse_written(other[0], lang)
                if q2 is not None and _same(q, q2):
                    return q
            said = joined(" ".join(other))
            if q.kind == "number":  # one word: the number as an ordinal (May 3 / May third)
                if (lang != "en" or said.endswith(("st", "nd", "rd", "th"))) and said in ordinals(
                    q.value[0], lang, article=False
                ):
                    return q
                continue
            if said in spoken_forms(q, lang):
                return q
    return None


def _same(q: Quantity, q2: Quantity) -> bool:
    if q == q2:
        return True
    if q.kind == q2.kind == "date":
        return q.value[1] == q2.value[1] and bool(q.value[0] & q2.value[0])
    if q.kind == q2.kind == "time":  # 15:30 / 3:30pm
        (h, m, x), (h2, m2, y) = q.value, q2.value
        return (
            m == m2 and (h % 12 == h2 % 12) and (x == y or not x or not y) and (h == h2 or h > 12 or h2 > 12 or x or y)
        )
    return False


@lru_cache(maxsize=16)
def _markers(lang: str) -> dict[str, tuple[str, ...]]:
    """Joined words that say which kind a spoken side is (percent words, currency names, unit
    names), longest first."""
    cur = {s: names.get(lang, ()) for s, names in CURRENCY.items()}
    out = {"percent": tuple(joined(w) for w in PERCENT.get(lang, ()))}
    for s, names in cur.items():
        out["currency:" + s] = tuple(joined(w) for w in names)
    for u, names in UNITS.items():
        out["unit:" + u] = tuple(joined(w) for w in names.get(lang, ()))
    return {k: tuple(sorted(set(v), key=len, reverse=True)) for k, v in out.items() if v}


@lru_cache(maxsize=16)
def _spoken_numbers(lang: str) -> dict[str, int]:
    """Joined number words -> value, for 0..100 and the round hundreds and thousands (reading a
    spoken value; kept small: it is made in every process that meets a digit)."""
    table: dict[str, int] = {}
    for n in [*range(101), *range(200, 1001, 100), *range(2000, 10001, 1000)]:
        for form in number_words(n, lang):
            table.setdefault(form, n)
    return table


def _amount(q: Quantity) -> float | None:
    """The number a value of one of the countable kinds says."""
    v = q.value
    if q.kind in ("number", "ordinal", "percent", "decimal"):
        return float(v[0])
    if q.kind == "unit":
        return float(v[1])
    if q.kind == "currency":
        return v[1] + v[2] / 100
    return None


def spoken_value(words: tuple[str, ...], q: Quantity, lang: str) -> str | None:
    """What a side says when it reads as another value of ``q``'s kind (``sixteen percent`` for
    ``15%``): its description; None when it says the same value or does not read as one --
    to tell a different value from a different word."""
    if len(words) == 1:
        q2 = parse_written(words[0], lang)
        if q2 is not None:
            if q2.kind != q.kind or _same(q, q2):
                return None
            if q.kind in ("time", "date"):
                return q2.describe()
            same_unit = q.kind not in ("currency", "unit") or q.value[0] == q2.value[0]
            return q2.describe() if same_unit and _amount(q2) != _amount(q) else None
    said = joined(" ".join(words))
    if q.kind in ("number", "percent", "currency", "unit"):
        marker = {"percent": "percent", "currency": f"currency:{q.value[0]}", "unit": f"unit:{q.value[0]}"}.get(q.kind)
        rest = said
        if marker is not None:
            ends = _markers(lang).get(marker, ())
            end = next((e for e in ends if said.endswith(e) and len(said) > len(e)), None)
            if end is None:
                return None
            rest = said[: -len(end)]
        n = _spoken_numbers(lang).get(rest)
        if n is None and rest.isdigit():
            n = int(rest)
        return None if n is None or n == _amount(q) else f"{' '.join(words)} ({q.kind} {n})"
    if q.kind == "ordinal":
        for n in range(1, 101):
            if n != q.value[0] and said in ordinals(n, lang, article=True):
                return f"{' '.join(words)} (ordinal {n})"
    return None


def different_value(a: tuple[str, ...], b: tuple[str, ...], lang: str) -> tuple[str, str] | None:
    """(what one side says, what the other says) when both read as values of one kind and the
    values differ (``15%`` / ``sixteen percent``, ``$5`` / ``$6``, ``3rd`` / ``fourth``); else None."""
    for written, other, ref_first in ((a, b, True), (b, a, False)):
        if len(written) == 1:
            q = parse_written(written[0], lang)
            if q is None:
                continue
            said = spoken_value(other, q, lang)
            if said is not None:
                return (q.describe(), said) if ref_first else (said, q.describe())
    return None


__all__ = ["different_value", "quantities_equal", "spoken_value"]
