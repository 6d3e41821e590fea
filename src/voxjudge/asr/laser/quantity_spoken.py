"""The spoken forms of a written value: every way of saying it in words (``fifteen percent``,
``five dollars``, ``half past three``, ``the twelfth of May twenty twenty four``), each folded and
joined without spaces, as ``lang.number_words`` does for plain numbers.

Number words come from ``lang.number_words`` (indic-numtowords for the Indian languages and
English, num2words for the others it covers); the words around them from ``quantity_words``.
"""

from __future__ import annotations

from functools import lru_cache

from voxjudge.asr.laser.fold import fold
from voxjudge.asr.laser.lang import number_words, ordinal_words
from voxjudge.asr.laser.quantity_words import (
    ARTICLES,
    CURRENCY,
    DECIMAL_POINT,
    INDIC_CLOCK,
    MERIDIEM_WORDS,
    MONTHS,
    PERCENT,
    SUBUNIT_AND,
    SUBUNITS,
    UNITS,
)
from voxjudge.asr.laser.quantity_written import APOSTROPHES, Quantity


def joined(text: str) -> str:
    """A phrase as spoken forms are compared: each word folded, joined without spaces (so
    ``per cent`` and ``percent`` are one form)."""
    return "".join(fold(w) for w in text.replace("-", " ").split()).translate(APOSTROPHES)


@lru_cache(maxsize=4096)
def cardinals(n: int, lang: str) -> frozenset[str]:
    """Number words of ``n`` (joined, folded) and its digits."""
    return number_words(n, lang) | {str(n)}


def _decimal_forms(text: str, lang: str) -> set[str]:
    whole, _, frac = text.partition(".")
    if not frac:
        return set(cardinals(int(whole), lang))
    out = {text.replace(".", ""), text.replace(".", ",")}
    point = DECIMAL_POINT.get(lang, ())
    if len(frac) <= 3:
        digit_words = [min(cardinals(int(d), lang), key=len) for d in frac]  # 'three point one five'
        tail = {"".join(digit_words)}
        if not frac.startswith("0"):
            tail |= set(cardinals(int(frac), lang))  # 'trois virgule quinze'
        out |= {w + p + t for w in cardinals(int(whole), lang) for p in point for t in tail}
        if frac == "5" and lang == "en":
            out |= {w + "andahalf" for w in cardinals(int(whole), lang)}
    return out


def _with(numbers, words) -> frozenset[str]:
    names = [joined(w) for w in words]
    return frozenset(n + w for n in numbers for w in names)


@lru_cache(maxsize=8192)
def spoken_forms(q: Quantity, lang: str) -> frozenset[str]:
    """Every accepted spoken form of a written value, folded and joined without spaces."""
    kind, v = q.kind, q.value
    if kind == "number":
        return cardinals(v[0], lang) | ordinals(v[0], lang, article=False)  # May 3 / May third
    if kind == "decimal":
        return frozenset(_decimal_forms(v[0], lang))
    if kind == "percent":
        return _with(_decimal_forms(v[0], lang), PERCENT.get(lang, ()))
    if kind == "unit":
        return _with(_decimal_forms(v[1], lang), UNITS.get(v[0], {}).get(lang, ()))
    if kind == "currency":
        return _money_forms(v, lang)
    if kind == "ordinal":
        return ordinals(v[0], lang, article=True)
    if kind == "time":
        return _time_forms(*v, lang)
    if kind == "date":
        return _date_forms(v, lang)
    return frozenset()


def ordinals(n: int, lang: str, *, article: bool) -> frozenset[str]:
    words = {joined(w) for w in ordinal_words(n, lang)}
    if article:
        words |= {joined(a) + w for a in ARTICLES.get(lang, ()) for w in words}
    return frozenset(words)


def _money_forms(v: tuple, lang: str) -> frozenset[str]:
    symbol, whole, cents = v
    names = CURRENCY.get(symbol, {}).get(lang, ())
    if not names:
        return frozenset()
    base = _with(cardinals(whole, lang), names)
    if not cents:
        return base
    and_ = SUBUNIT_AND.get(lang, ("",))
    out = set(_with(_decimal_forms(f"{whole}.{cents:02d}".rstrip("0").rstrip("."), lang), names))
    for b in base:
        for c in cardinals(cents, lang):
            out.add(b + c)  # 'five dollars fifty'
            out |= {b + joined(a) + c + joined(s) for a in and_ for s in SUBUNITS.get(lang, ())}
    return frozenset(out)


def _time_forms(h: int, m: int, meridiem: str, lang: str) -> frozenset[str]:
    hours = {h} | ({h % 12 or 12} if h != 12 or meridiem else set())
    out: set[str] = set()
    for hh in hours:
        nxt = hh % 12 + 1 if lang in ("en", "hi", "mr") else (hh + 1) % 24
        H, N = cardinals(hh, lang), cardinals(nxt, lang)
        if lang == "en":
            if m == 0:
                out |= set(H) | {x + "o'clock" for x in H} | {x + "oclock" for x in H} | {x + "hundred" for x in H}
            else:
                out |= {
                    x + y
                    for x in H
                    for y in (cardinals(m, lang) if m >= 10 else {"oh" + z for z in cardinals(m, lang)})
                }
                if m == 30:
                    out |= {"halfpast" + x for x in H}
                if m == 15:
                    out |= {"quarterpast" + x for x in H} | {"aquarterpast" + x for x in H}
                if m == 45:
                    out |= {"quarterto" + x for x in N} | {"aquarterto" + x for x in N}
                if m not in (15, 30, 45):
                    if m < 30:
                        out |= {y + mm + "past" + x for x in H for y in cardinals(m, lang) for mm in ("", "minutes")}
                    else:
                        out |= {y + mm + "to" + x for x in N for y in cardinals(60 - m, lang) for mm in ("", "minutes")}
        elif lang == "fr":
            heures = ("heure", "heures", "h")
            if m == 0:
                out |= {x + hr for x in H for hr in heures}
                if hh == 12:
                    out.add("midi")
                if hh in (0, 24):
                    out.add("minuit")
            else:
                out |= {x + hr + y for x in H for hr in heures for y in cardinals(m, lang)}
                out |= {x + hr + y + "minutes" for x in H for hr in heures for y in cardinals(m, lang)}
                if m == 30:
                    out |= {x + hr + "etdemie" for x in H for hr in heures}
                if m == 15:
                    out |= {x + hr + "etquart" for x in H for hr in heures}
                if m == 45:
                    out |= {x + hr + "moinslequart" for x in N for hr in heures}
        elif lang in ("hi", "mr"):
            out |= _indic_time(hh, m, lang, H, N)
    if lang == "en" and m == 0 and h in (0, 24, 12):
        noon = h == 12 and meridiem != "am" or h in (0, 24) and meridiem == "pm"
        out |= {"noon", "midday", "twelvenoon"} if noon else {"midnight", "twelvemidnight"}
    if lang == "en" and out:
        plain = set(out)
        wanted = (meridiem,) if meridiem else ("am", "pm")
        out |= {x + joined(w) for x in plain for mer in wanted for w in MERIDIEM_WORDS[mer]}
    return frozenset(out)


def _indic_time(h: int, m: int, lang: str, H, N) -> set[str]:
    w = {k: [joined(x) for x in v] for k, v in INDIC_CLOCK[lang].items()}
    core: set[str] = set()
    if m == 0:
        core |= set(H)
    elif m == 30 and h == 1:
        core |= set(w["1:30"])
    elif m == 30 and h == 2:
        core |= set(w["2:30"])
    elif m == 30:
        core |= {a + x for a in w["half"] for x in H}
    elif m == 15:
        core |= {a + x for a in w["quarter"] for x in H}
    elif m == 45:
        core |= {a + x for a in w["to"] for x in N}
    out = core | {c + o for c in core for o in w["o'clock"]}
    if m:
        out |= {x + a + y + mm for x in H for a in w["and"] for y in cardinals(m, lang) for mm in ["", *w["minutes"]]}
    return out


def _date_forms(v: tuple, lang: str) -> frozenset[str]:
    orders, year = v
    months = MONTHS.get(lang, "").split()
    if not months:
        return frozenset()
    years = set(cardinals(year, lang)) | (set(cardinals(2000 + year, lang)) if year < 100 else set())
    out: set[str] = set()
    for d, m in orders:
        month = joined(months[m - 1])
        days_o = ordinals(d, lang, article=False)
        days = set(cardinals(d, lang)) | days_o
        for y in years:
            for day in days:
                out |= {day + month + y, month + day + y}
                if lang == "en":
                    out |= {"the" + day + "of" + month + y, day + "of" + month + y, month + "the" + day + y}
                if lang == "fr":
                    out |= {"le" + day + month + y}
    return frozenset(out)


__all__ = ["cardinals", "joined", "ordinals", "spoken_forms"]
