"""Reading the written side of a quantity: a token with digits (``15%``, ``$5``, ``5km``,
``3:30``, ``3rd``, ``12/05/2024``, in any script's digits) becomes a ``Quantity``, its kind and
the value that must be equal.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from voxjudge.asr.laser.fold import strip_edges
from voxjudge.asr.laser.lang import _DIGIT_TABLE

# curly and modifier apostrophes read as the plain one
APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})
# currency codes written beside an amount -> the symbol the names are listed under
_CURRENCY_CODES = {"rs": "₹", "rs.": "₹", "inr": "₹", "usd": "$", "eur": "€", "gbp": "£", "us$": "$", "jpy": "¥"}
# a written ordinal's suffix (3rd, 3e); the English one is read in every language
ORDINAL_SUFFIX = {
    "en": re.compile(r"^(\d+)(st|nd|rd|th)$"),
    "fr": re.compile(r"^(\d+)(er|re|ère|ere|e|ème|eme|nd|nde|d|de)$"),
}

_PERCENT = re.compile(r"^(\d+(?:[.,]\d+)?)\s*[%٪]$")
_CURRENCY = re.compile(r"^([$€£₹¥]|rs\.?|inr|usd|eur|gbp|us\$|jpy)(\d[\d,]*(?:\.\d{1,2})?)(?:/-)?$")
_CURRENCY_AFTER = re.compile(r"^(\d[\d,]*(?:[.,]\d{1,2})?)([$€£₹¥]|rs|inr|usd|eur|gbp)$")
_TIME = re.compile(r"^(\d{1,2})(?::(\d{2})|h(\d{2})?)(am|pm|a\.m\.?|p\.m\.?)?$")
_TIME_MERIDIEM = re.compile(r"^(\d{1,2})(am|pm|a\.m\.?|p\.m\.?)$")
_UNIT = re.compile(r"^(\d+(?:[.,]\d+)?)(km/h|kmph|km|kg|mph|cm|mm|ml|hrs|hr|min|°c|°f|°|m|g|l|h|s)$")
_DATE = re.compile(r"^(\d{1,4})([/.-])(\d{1,2})\2(\d{2,4})$")
_DECIMAL = re.compile(r"^(\d+)[.,](\d+)$")


@dataclass(frozen=True)
class Quantity:
    kind: str  # number | decimal | percent | currency | unit | time | ordinal | date
    value: tuple  # what must be equal: (n,), (symbol, whole, cents), (h, m, meridiem), (dates ...)

    def describe(self) -> str:
        v = self.value
        if self.kind == "currency":
            return f"{v[0]}{v[1]}" + (f".{v[2]:02d}" if v[2] else "")
        if self.kind == "time":
            return f"{v[0]}:{v[1]:02d}{v[2]}"
        if self.kind == "date":
            return " or ".join(f"{d}/{m}" for d, m in sorted(v[0])) + f"/{v[1]}"
        if self.kind == "unit":
            return f"{v[1]} {v[0]}"
        return f"{self.kind} {v[0]}"


def _int(text: str) -> int | None:
    t = text.replace(",", "")
    return int(t) if t.isdigit() else None


@lru_cache(maxsize=20_000)
def parse_written(token: str, lang: str) -> Quantity | None:
    """The value of a token written with digits (any script's), or None."""
    if not any(c.isdigit() for c in token):
        return None
    t = _written(token)
    if t.endswith(".") and not t.endswith(("a.m.", "p.m.")):
        t = t[:-1]
    if lang == "fr" and re.match(r"^\d+,\d{1,2}$", t):  # French decimal comma: 1,5
        return Quantity("decimal", (t.replace(",", "."),))
    if (n := _int(t)) is not None:
        return Quantity("number", (n,))
    if m := _PERCENT.match(t):
        return Quantity("percent", (m.group(1).replace(",", "."),))
    if m := _CURRENCY.match(t):
        return _money(_CURRENCY_CODES.get(m.group(1), m.group(1)), m.group(2))
    if m := _CURRENCY_AFTER.match(t):
        return _money(
            _CURRENCY_CODES.get(m.group(2), m.group(2)), m.group(1).replace(",", ".") if lang == "fr" else m.group(1)
        )
    if m := _TIME.match(t):
        h, mins = int(m.group(1)), int(m.group(2) or m.group(3) or 0)
        # English 5h is five hours (a unit, below), French 5h five o'clock
        if (":" in t or (lang != "en" and "h" in t)) and h <= 24 and mins < 60:
            return Quantity("time", (h, mins, _meridiem(m.group(4))))
    if m := _TIME_MERIDIEM.match(t):
        h = int(m.group(1))
        return Quantity("time", (h, 0, _meridiem(m.group(2)))) if 1 <= h <= 12 else None
    # English suffixes in every language (3rd in Hindi or Malayalam text), the language's own too
    if (m := ORDINAL_SUFFIX["en"].match(t)) or (lang in ORDINAL_SUFFIX and (m := ORDINAL_SUFFIX[lang].match(t))):
        return Quantity("ordinal", (int(m.group(1)),))
    if m := _UNIT.match(t):
        return Quantity("unit", (m.group(2), m.group(1).replace(",", ".")))
    if m := _DATE.match(t):
        return _date(int(m.group(1)), int(m.group(3)), int(m.group(4)), m.group(1))
    if m := _DECIMAL.match(t):
        return Quantity("decimal", (f"{m.group(1)}.{m.group(2)}",))
    return None


_KEEP = frozenset("%٪.")  # edge punctuation that is part of the value


def _written(token: str) -> str:
    """A token as the parser reads it: NFKC, case folded, ASCII digits, edge punctuation off but
    the percent sign and a final dot (p.m.)."""
    t = unicodedata.normalize("NFKC", token).casefold().translate(_DIGIT_TABLE).translate(APOSTROPHES)
    return strip_edges(t, _KEEP)


def _meridiem(text: str | None) -> str:
    return "" if not text else "am" if text.startswith("a") else "pm"


def _money(symbol: str, amount: str) -> Quantity | None:
    whole, _, cents = amount.replace(",", "").partition(".")
    if not whole.isdigit():
        return None
    return Quantity("currency", (symbol, int(whole), int(cents.ljust(2, "0")) if cents else 0))


def _date(a: int, b: int, y: int, first: str) -> Quantity | None:
    if len(first) == 4:  # ISO: year-month-day
        a, b, y = y, b, a
        orders = ((a, b),) if 1 <= b <= 12 and 1 <= a <= 31 else ()
    else:
        orders = tuple((d, m) for d, m in ((a, b), (b, a)) if 1 <= m <= 12 and 1 <= d <= 31)
    if not orders:
        return None
    return Quantity("date", (frozenset(orders), y))


__all__ = ["APOSTROPHES", "Quantity", "parse_written"]
