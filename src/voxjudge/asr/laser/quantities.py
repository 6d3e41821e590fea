"""Numbers with what they count: percentages, currencies, units, times of day, ordinals and dates,
written with digits on one side (``15%``, ``$5``, ``5km``, ``3:30``, ``3rd``, ``12/05/2024``) and
spoken in words on the other (``fifteen percent``, ``five dollars``, ``five kilometres``, ``half
past three``, ``the third``, ``the twelfth of May twenty twenty four``).

The written side is parsed into a value (``Quantity``); the spoken forms of that value are
generated, folded and joined without spaces, as ``lang.number_words`` does for plain numbers, so
``per cent`` and ``percent`` are one form. Same value -> no penalty; a spoken side that reads as
another value of the same kind (``sixteen percent`` for ``15%``, ``$6`` for ``$5``) -> major.

Number words come from ``lang.number_words`` (indic-numtowords for the Indian languages and
English, num2words for the others it covers); the words for percent, currencies, units, months
and clock times are listed here per language (en, fr, hi, mr, and the percent/currency/unit
words of ml, kn, ar, de, es). A language without lists still gets digits against digits, and
ordinals and numbers in words where num2words has it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from voxjudge.asr.laser.lang import _DIGIT_TABLE, fold, number_words, ordinal_words

_APOS = str.maketrans({"\u2019": "'", "\u02bc": "'"})

PERCENT = {
    "en": ("percent", "per cent", "pc"),
    "fr": ("pour cent", "pourcent", "pour cents"),
    "hi": ("प्रतिशत", "फ़ीसदी", "फीसदी", "फ़ीसद", "परसेंट", "पर्सेंट", "प्रतिशत"),
    "mr": ("टक्के", "टक्का", "प्रतिशत", "परसेंट"),
    "ml": ("ശതമാനം",),
    "kn": ("ಶೇಕಡಾ", "ಪ್ರತಿಶತ", "ಶೇಕಡ"),
    "ar": ("بالمئة", "بالمائة", "في المئة", "في المائة", "بالمية"),
    "de": ("prozent",),
    "es": ("por ciento",),
    "it": ("per cento", "percento"),
    "pt": ("por cento",),
}
# symbol or code -> names per language (singular and plural, both accepted)
CURRENCY = {
    "$": {
        "en": ("dollar", "dollars", "bucks", "buck"),
        "fr": ("dollar", "dollars"),
        "hi": ("डॉलर", "डालर"),
        "mr": ("डॉलर",),
        "ml": ("ഡോളർ",),
        "kn": ("ಡಾಲರ್",),
        "ar": ("دولار", "دولارات", "دولارا"),
        "de": ("dollar",),
        "es": ("dólar", "dólares"),
    },
    "€": {
        "en": ("euro", "euros"),
        "fr": ("euro", "euros"),
        "hi": ("यूरो",),
        "mr": ("युरो",),
        "ar": ("يورو",),
        "de": ("euro",),
        "es": ("euro", "euros"),
        "it": ("euro",),
    },
    "£": {
        "en": ("pound", "pounds", "quid"),
        "fr": ("livre", "livres", "livre sterling", "livres sterling"),
        "hi": ("पाउंड", "पौंड"),
    },
    "₹": {
        "en": ("rupee", "rupees"),
        "fr": ("roupie", "roupies"),
        "hi": ("रुपये", "रुपए", "रुपया", "रूपये", "रूपए", "रुपय"),
        "mr": ("रुपये", "रुपया", "रुपयांचा"),
        "ml": ("രൂപ",),
        "kn": ("ರೂಪಾಯಿ", "ರೂ"),
    },
    "¥": {"en": ("yen",), "fr": ("yen", "yens"), "hi": ("येन",)},
}
_CURRENCY_CODES = {"rs": "₹", "rs.": "₹", "inr": "₹", "usd": "$", "eur": "€", "gbp": "£", "us$": "$", "jpy": "¥"}
UNITS = {
    "km": {
        "en": ("kilometre", "kilometres", "kilometer", "kilometers", "k"),
        "fr": ("kilomètre", "kilomètres", "kilo"),
        "hi": ("किलोमीटर", "किमी"),
        "mr": ("किलोमीटर",),
        "ml": ("കിലോമീറ്റർ",),
        "kn": ("ಕಿಲೋಮೀಟರ್",),
        "de": ("kilometer",),
        "es": ("kilómetro", "kilómetros"),
    },
    "m": {"en": ("metre", "metres", "meter", "meters"), "fr": ("mètre", "mètres"), "hi": ("मीटर",), "mr": ("मीटर",)},
    "cm": {
        "en": ("centimetre", "centimetres", "centimeter", "centimeters"),
        "fr": ("centimètre", "centimètres"),
        "hi": ("सेंटीमीटर",),
    },
    "mm": {"en": ("millimetre", "millimetres", "millimeter", "millimeters"), "fr": ("millimètre", "millimètres")},
    "kg": {
        "en": ("kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos"),
        "fr": ("kilogramme", "kilogrammes", "kilo", "kilos"),
        "hi": ("किलोग्राम", "किलो"),
        "mr": ("किलो", "किलोग्राम"),
        "de": ("kilogramm", "kilo"),
    },
    "g": {"en": ("gram", "grams", "gramme", "grammes"), "fr": ("gramme", "grammes"), "hi": ("ग्राम",)},
    "l": {"en": ("litre", "litres", "liter", "liters"), "fr": ("litre", "litres"), "hi": ("लीटर",)},
    "ml": {"en": ("millilitre", "millilitres", "milliliter", "milliliters"), "fr": ("millilitre", "millilitres")},
    "h": {"en": ("hour", "hours"), "fr": ("heure", "heures"), "hi": ("घंटे", "घंटा")},
    "hr": {"en": ("hour", "hours")},
    "hrs": {"en": ("hours",)},
    "min": {"en": ("minute", "minutes"), "fr": ("minute", "minutes"), "hi": ("मिनट",)},
    "s": {"en": ("second", "seconds"), "fr": ("seconde", "secondes")},
    "mph": {"en": ("miles per hour", "mile per hour")},
    "km/h": {
        "en": ("kilometres per hour", "kilometers per hour", "kilometres an hour", "kilometers an hour"),
        "fr": ("kilomètres heure", "kilomètres par heure", "kilomètre heure"),
    },
    "°c": {
        "en": ("degrees celsius", "degree celsius", "degrees centigrade", "degrees"),
        "fr": ("degrés celsius", "degrés"),
        "hi": ("डिग्री सेल्सियस", "डिग्री"),
    },
    "°f": {"en": ("degrees fahrenheit", "degree fahrenheit", "degrees")},
    "°": {"en": ("degrees", "degree"), "fr": ("degrés", "degré"), "hi": ("डिग्री",)},
}
UNITS["kmph"] = UNITS["km/h"]
MONTHS = {
    "en": "january february march april may june july august september october november december",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "hi": "जनवरी फ़रवरी मार्च अप्रैल मई जून जुलाई अगस्त सितंबर अक्टूबर नवंबर दिसंबर",
    "mr": "जानेवारी फेब्रुवारी मार्च एप्रिल मे जून जुलै ऑगस्ट सप्टेंबर ऑक्टोबर नोव्हेंबर डिसेंबर",
}
ARTICLES = {"en": ("the",), "fr": ("le", "la")}  # 'the third' / '3rd', 'le troisième' / '3e'
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
    t = unicodedata.normalize("NFKC", token).casefold().translate(_DIGIT_TABLE).translate(_APOS)
    start, end = 0, len(t)
    while start < end and unicodedata.category(t[start])[0] in "PZ" and t[start] not in _KEEP:
        start += 1
    while end > start and unicodedata.category(t[end - 1])[0] in "PZ" and t[end - 1] not in _KEEP:
        end -= 1
    return t[start:end]


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


# ---- spoken forms ---------------------------------------------------------------------------------


def _join(text: str) -> str:
    return "".join(fold(w) for w in text.replace("-", " ").split()).translate(_APOS)


@lru_cache(maxsize=4096)
def cardinals(n: int, lang: str) -> frozenset[str]:
    """Number words of ``n`` (joined, folded) and its digits."""
    return number_words(n, lang) | {str(n)}


def _decimal_forms(text: str, lang: str) -> set[str]:
    whole, _, frac = text.partition(".")
    if not frac:
        return set(cardinals(int(whole), lang))
    out = {text.replace(".", ""), text.replace(".", ",")}
    point = {"en": ("point",), "fr": ("virgule",), "hi": ("दशमलव", "पॉइंट", "प्वाइंट"), "mr": ("दशांश", "पॉइंट")}.get(
        lang, ()
    )
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
    names = [_join(w) for w in words]
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
    words = {_join(w) for w in ordinal_words(n, lang)}
    if article:
        words |= {_join(a) + w for a in ARTICLES.get(lang, ()) for w in words}
    return frozenset(words)


def _money_forms(v: tuple, lang: str) -> frozenset[str]:
    symbol, whole, cents = v
    names = CURRENCY.get(symbol, {}).get(lang, ())
    if not names:
        return frozenset()
    base = _with(cardinals(whole, lang), names)
    if not cents:
        return base
    sub = {"en": ("cents", "cent", "pence", "paise"), "fr": ("centimes", "cents", "centime"), "hi": ("पैसे",)}
    and_ = {"en": ("", "and"), "fr": ("", "et"), "hi": ("", "और")}.get(lang, ("",))
    out = set(_with(_decimal_forms(f"{whole}.{cents:02d}".rstrip("0").rstrip("."), lang), names))
    for b in base:
        for c in cardinals(cents, lang):
            out.add(b + c)  # 'five dollars fifty'
            out |= {b + _join(a) + c + _join(s) for a in and_ for s in sub.get(lang, ())}
    return frozenset(out)


_MERIDIEM_WORDS = {
    "am": ("am", "a m", "a.m.", "in the morning"),
    "pm": ("pm", "p m", "p.m.", "in the afternoon", "in the evening"),
}


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
        out |= {x + _join(w) for x in plain for mer in wanted for w in _MERIDIEM_WORDS[mer]}
    return frozenset(out)


# Hindi/Marathi clock words: सवा (quarter past), साढ़े (half past), पौने (quarter to), डेढ़ (1:30), ढाई (2:30)
_INDIC_CLOCK = {
    "hi": {
        "o'clock": ("बजे", "बज"),
        "quarter": ("सवा",),
        "half": ("साढ़े", "साढे"),
        "to": ("पौने",),
        "1:30": ("डेढ़", "डेढ"),
        "2:30": ("ढाई",),
        "and": ("बजकर",),
        "minutes": ("मिनट",),
    },
    "mr": {
        "o'clock": ("वाजता", "वाजले", "वाजून"),
        "quarter": ("सव्वा",),
        "half": ("साडे",),
        "to": ("पावणे",),
        "1:30": ("दीड",),
        "2:30": ("अडीच",),
        "and": ("वाजून",),
        "minutes": ("मिनिटे", "मिनिटांनी"),
    },
}


def _indic_time(h: int, m: int, lang: str, H, N) -> set[str]:
    w = {k: [_join(x) for x in v] for k, v in _INDIC_CLOCK[lang].items()}
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
        month = _join(months[m - 1])
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


# ---- comparing ------------------------------------------------------------------------------------


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
            said = _join(" ".join(other))
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
    out = {"percent": tuple(_join(w) for w in PERCENT.get(lang, ()))}
    for s, names in cur.items():
        out["currency:" + s] = tuple(_join(w) for w in names)
    for u, names in UNITS.items():
        out["unit:" + u] = tuple(_join(w) for w in names.get(lang, ()))
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
    if q.kind in ("number", "ordinal"):
        return float(v[0])
    if q.kind in ("percent", "decimal"):
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
    joined = _join(" ".join(words))
    if q.kind in ("number", "percent", "currency", "unit"):
        marker = {"percent": "percent", "currency": f"currency:{q.value[0]}", "unit": f"unit:{q.value[0]}"}.get(q.kind)
        rest = joined
        if marker is not None:
            ends = _markers(lang).get(marker, ())
            end = next((e for e in ends if joined.endswith(e) and len(joined) > len(e)), None)
            if end is None:
                return None
            rest = joined[: -len(end)]
        n = _spoken_numbers(lang).get(rest)
        if n is None and rest.isdigit():
            n = int(rest)
        return None if n is None or n == _amount(q) else f"{' '.join(words)} ({q.kind} {n})"
    if q.kind == "ordinal":
        for n in range(1, 101):
            if n != q.value[0] and joined in ordinals(n, lang, article=True):
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


__all__ = ["Quantity", "different_value", "parse_written", "quantities_equal", "spoken_forms", "spoken_value"]
