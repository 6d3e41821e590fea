"""Language knowledge for rubric rules: script detection, spelling folds, number words,
abbreviations, colloquial forms, function words and inflection endings.

Own lists for Hindi and Marathi (Devanagari), Malayalam, Kannada, English, French and Arabic;
any other language gets the generic profile (``profiles.py``): the same script-aware fold and
number/compound checks, no word lists of another language. Words are compared by their spelling
fold (``fold.py``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from voxjudge.asr.laser.fold import fold
from voxjudge.asr.laser.profiles import detect, word_script

LANGS = ("hi", "mr", "ml", "kn", "en", "fr", "ar")
_SCRIPT_OF_LANG = {"hi": "deva", "mr": "deva", "kn": "knda", "ml": "mlym", "en": "latn", "fr": "latn", "ar": "arab"}


# deva, knda, mlym, latn, arab, another script's lower-cased Unicode name, or other (cached per word)
script_of = word_script


def detect_language(text: str) -> str:
    """The language a text is in, from its script (Latin: function-word votes); ``und`` when
    nothing tells (see ``profiles.detect``)."""
    return detect(text)


# ---- numbers ------------------------------------------------------------------------------------

_DIGITS = {}
# Devanagari, Kannada, Malayalam, Arabic-Indic, Extended Arabic-Indic, Tamil, Telugu, Bengali, Gujarati, Gurmukhi
for _base in (0x0966, 0x0CE6, 0x0D66, 0x0660, 0x06F0, 0x0BE6, 0x0C66, 0x09E6, 0x0AE6, 0x0A66):
    for _d in range(10):
        _DIGITS[chr(_base + _d)] = str(_d)
_DIGIT_TABLE = str.maketrans(_DIGITS)
_NUMBER = re.compile(r"^\d[\d,]*(\.\d+)?$")


@lru_cache(maxsize=100_000)
def as_number(text: str) -> int | None:
    """An integer written in digits of any of the scripts (commas allowed), else None."""
    t = text.translate(_DIGIT_TABLE).strip(".")
    if not _NUMBER.match(t) or "." in t:
        return None
    return int(t.replace(",", ""))


def _said(n: int, lang: str, to: str = "cardinal") -> str | None:
    """``n`` in words: indic-numtowords for the languages it reads (cardinals), else num2words."""
    if to == "cardinal":
        try:
            from indic_numtowords import num2words as indic
        except ImportError:  # a core dependency; only a broken install lands here
            indic = None
        if indic is not None:
            try:
                return indic(n, lang=lang)
            except Exception:  # the package raises plain exceptions for languages and numbers it lacks
                pass
    try:
        from num2words import num2words
    except ImportError:  # a core dependency; only a broken install lands here
        return None
    try:
        return num2words(n, lang=_NUM2WORDS_CODE.get(lang, lang), to=to)
    except Exception:  # NotImplementedError for languages it lacks, and others for numbers it cannot say
        return None


# codes num2words knows under another name: Norwegian Bokmål is its 'no'
_NUM2WORDS_CODE = {"nb": "no"}


@lru_cache(maxsize=50_000)
def number_words(n: int, lang: str) -> frozenset[str]:
    """Folded, space-free spellings of ``n`` in words (with and without English 'and')."""
    if n > 10**9:
        return frozenset()
    words = _said(n, lang)
    if words is None:
        return frozenset()
    forms = {words, words.replace(" and ", " "), words.replace(" et ", " ")}
    one = _said(1, lang) or ""
    for f in list(forms):
        if one and f.startswith(one + " "):
            forms.add(f[len(one) + 1 :])  # सौ / hundred / ಸಾವಿರ for "one hundred", "one thousand"
    if lang == "en" and 1000 <= n < 10000 and n % 100:
        forms.add(f"{_said(n // 100, 'en')} {_said(n % 100, 'en')}")  # "nineteen ninety"
    if lang == "en" and 1000 <= n < 10000 and n % 100 and n % 100 < 10:
        forms.add(f"{_said(n // 100, 'en')} oh {_said(n % 100, 'en')}")  # "nineteen oh five"
    return frozenset("".join(fold(w) for w in f.replace("-", " ").split()) for f in forms)


# ordinals num2words does not have, or has in one form only (feminine, plural, oblique)
_ORDINALS = {
    "hi": {1: "पहला पहली पहले", 2: "दूसरा दूसरी दूसरे", 3: "तीसरा तीसरी तीसरे", 4: "चौथा चौथी चौथे", 6: "छठा छठी छठे"},
    "mr": {1: "पहिला पहिली पहिले", 2: "दुसरा दुसरी दुसरे", 3: "तिसरा तिसरी तिसरे", 4: "चौथा चौथी चौथे", 6: "सहावा सहावी सहावे"},
    "fr": {1: "premier première premiers premières", 2: "second seconde deuxième"},
    "en": {},
}
_ORDINAL_ENDINGS = {"hi": ("वाँ", "वीं", "वें", "वां"), "mr": ("वा", "वी", "वे")}


@lru_cache(maxsize=20_000)
def ordinal_words(n: int, lang: str) -> frozenset[str]:
    """``n`` as an ordinal in words (third, troisième, तीसरा/तीसरी ...), as written; none when
    the language has no reader for it."""
    if n <= 0 or n > 10**6:
        return frozenset()
    out = set(_ORDINALS.get(lang, {}).get(n, "").split())
    if lang in _ORDINAL_ENDINGS:
        if not out:
            base = _said(n, lang)
            if base:
                out |= {base + e for e in _ORDINAL_ENDINGS[lang]}
    else:
        said = _said(n, lang, "ordinal")
        if said:
            out.add(said)
    return frozenset(out)


def numbers_equal(a: tuple[str, ...], b: tuple[str, ...], lang: str) -> bool:
    for digits, words in ((a, b), (b, a)):
        if len(digits) == 1:
            n = as_number(digits[0])
            if n is not None:
                if "".join(map(fold, words)) in number_words(n, lang):
                    return True
                other = as_number(words[0]) if len(words) == 1 else None
                if other is not None and other == n:
                    return True
    return False


# ---- word lists ---------------------------------------------------------------------------------

ABBREVIATIONS = {
    "en": {
        "dr": "doctor",
        "mr": "mister",
        "mrs": "missus",
        "st": "street",
        "km": "kilometres",
        "kms": "kilometres",
        "kg": "kilograms",
        "min": "minutes",
        "hrs": "hours",
        "no": "number",
        "govt": "government",
        "dept": "department",
        "approx": "approximately",
        "etc": "etcetera",
        "vs": "versus",
        "ave": "avenue",
        "kilometers": "kilometres",
    },
    "hi": {"डॉ": "डॉक्टर", "डा": "डॉक्टर", "कि.मी": "किलोमीटर", "किमी": "किलोमीटर", "श्री": "श्रीमान", "सं": "संख्या"},
    "mr": {"डॉ": "डॉक्टर", "किमी": "किलोमीटर", "श्री": "श्रीमान"},
    "ml": {"ഡോ": "ഡോക്ടർ", "കി.മീ": "കിലോമീറ്റർ"},
    "kn": {"ಡಾ": "ಡಾಕ್ಟರ್", "ಕಿ.ಮೀ": "ಕಿಲೋಮೀಟರ್"},
}
COLLOQUIAL = {
    "en": [
        ("gonna", "going to"),
        ("wanna", "want to"),
        ("gotta", "got to"),
        ("gimme", "give me"),
        ("lemme", "let me"),
        ("kinda", "kind of"),
        ("cause", "because"),
        ("ya", "you"),
        ("yeah", "yes"),
        ("ok", "okay"),
        ("til", "until"),
        ("lets", "let us"),
    ],
    "hi": [
        ("नईं", "नहीं"),
        ("नै", "नहीं"),
        ("हां", "हाँ"),
        ("अच्छा", "अछा"),
        ("क्यूं", "क्यों"),
        ("कोई नी", "कोई नहीं"),
        # spoken pronoun forms: मेरे को for मुझे, अपन for हम, वो ही for वही
        ("मेरे को", "मुझे"),
        ("तेरे को", "तुझे"),
        ("हमारे को", "हमें"),
        ("अपन", "हम"),
        ("अपन ने", "हमने"),
        ("अपन को", "हमें"),
        ("वो ही", "वही"),
        ("वह ही", "वही"),
        ("ये ही", "यही"),
        ("यह ही", "यही"),
    ],
    "mr": [("नाय", "नाही"), ("काय", "कय")],
    "ml": [],
    "kn": [],
}
FUNCTION_WORDS = {
    "en": set(
        "a an the of in on at to for from by with and or but is are was were be been am do does did not no "
        "this that these those it its he she they we you i my your his her their our as if so than "
        "then there here".split()
    ),
    "hi": set("मैं हम तुम आप में से को का की के ने है हैं था थी थे और पर भी ही तो न ना नहीं कि जो यह वह ये वे इस उस एक या".split()),
    "mr": set("आणि ला ने चा ची चे च आहे आहेत होता होती होते व तो ती ते हे ही नाही की या मध्ये वर".split()),
    "ml": set("ഒരു ആണ് ഇല്ല എന്ന് ഉം ഈ ആ അത് ഇത്".split()),
    "kn": set("ಒಂದು ಇದೆ ಇಲ್ಲ ಮತ್ತು ಈ ಆ ಅದು ಇದು ಎಂದು".split()),
    "fr": set(
        "le la les l un une des du de d au aux et ou mais donc car ni que qu qui quoi dont où à a en dans par "
        "pour sur sous avec sans ce cet cette ces c ça se s sa son ses leur leurs mon ma mes ton ta tes notre "
        "nos votre vos je j tu il elle on nous vous ils elles me m te t lui y ne n pas plus est sont été être "
        "ai as avons avez ont si très".split()
    ),
    "ar": set(
        "و في من على إلى الى عن أن ان إن لا ما لم لن هذا هذه ذلك تلك هو هي هم أو او ثم قد كان التي الذي مع".split()
    ),
}
# Endings that carry gender, number or tense: a shared stem with different endings is agreement.
ENDINGS = {
    "hi": [
        "ाओं",
        "ियों",
        "ियां",
        "ियाँ",
        "्स",  # the English plural on a loan word: कपल/कपल्स
        "ां",
        "ों",
        "ें",
        "ीं",
        "ा",
        "ी",
        "े",
        "ए",
        "ई",
        "ओ",
        "ता",
        "ती",
        "ते",
        "ना",
        "नी",
        "ने",
        "गा",
        "गी",
        "गे",
        "या",
        "िया",
        "यी",
        "ये",
        "ूंगा",
        "ूंगी",
        "ेंगे",
        "ेगा",
        "ेगी",
        "ं",
    ],
    "mr": [
        "ा",
        "ी",
        "े",
        "ो",
        "ला",
        "ली",
        "ले",
        "तो",
        "ती",
        "ते",
        "णार",
        "त",
        "ेत",
        "ं",
        "ांना",
        "ांनी",
        "ाने",
        "ांचा",
        "ची",
        "चा",
        "चे",
    ],
    "en": ["s", "es", "ed", "d", "ing", "'s", "er", "est"],
    # French number and gender endings, and verb endings that are often silent (parle/parlent, mangé/manger)
    "fr": ["s", "x", "e", "es", "ent", "é", "ée", "és", "ées", "er", "ez", "ai", "ais", "ait", "aient", "ons"],
    "ml": ["ം", "ു", "ി", "്", "ന്", "ള്", "ന്നു", "ും", "ില്", "ിന്റെ", "ുകള്", "കള്", "ങ്ങള്"],
    "kn": ["ು", "ಿ", "ನು", "ಳು", "ರು", "ದು", "ಗಳು", "ದ", "ನ", "ಳ", "ರ", "ಿದ", "ುತ್ತಾನೆ", "ುತ್ತಾಳೆ"],
}


@lru_cache(maxsize=16)
def _abbreviations(lang: str) -> dict[str, str]:
    return {fold(k): fold(v) for k, v in ABBREVIATIONS.get(lang, {}).items()}


def fold_phrase(text: str) -> str:
    """The spelling fold of every word of a phrase."""
    return " ".join(fold(w) for w in text.split())


@lru_cache(maxsize=16)
def _colloquial(lang: str) -> frozenset[frozenset[str]]:
    return frozenset(frozenset((fold_phrase(x), fold_phrase(y))) for x, y in COLLOQUIAL.get(lang, []))


def dotted_initialism(folded: str) -> bool:
    """``p.m.``, ``u.s.``, ``ph.d.``, ``पी.एम.``: groups of one to three letters (with their vowel
    signs) between dots, what may stand for the same letters without them."""
    groups = folded.removesuffix(".").split(".")
    return len(groups) > 1 and all(0 < _letters(g) <= 3 for g in groups)


def _letters(group: str) -> int:
    """How many letters ``group`` holds (a vowel sign or other mark goes with its letter); 0 when
    it holds anything else."""
    if not all(ch.isalpha() or unicodedata.category(ch)[0] == "M" for ch in group):
        return 0
    return sum(ch.isalpha() for ch in group)


def _edge_free(word: str) -> str:
    """``word`` without the punctuation at its ends (inner dots kept)."""
    return re.sub(r"^[^\w.]+|[^\w.]+$", "", word).strip(".")


def abbreviation_equal(a: str, b: str, lang: str) -> bool:
    """A word and its abbreviation (the language's list), or an initialism with and without its
    dots (``p.m.``/``pm``), in any language."""
    fa, fb = fold(a).rstrip("."), fold(b).rstrip(".")
    for dotted, plain, dotted_raw, plain_raw in ((fa, fb, a, b), (fb, fa, b, a)):
        if "." not in plain and dotted_initialism(dotted) and dotted.replace(".", "") == plain:
            # the letters as written: the same case, or the plain side in capitals (PM, p.m.); not
            # a word that happens to spell an initialism's letters (us, U.S.; it, I.T.)
            bare = _edge_free(dotted_raw).replace(".", "")
            return bare == _edge_free(plain_raw) or _edge_free(plain_raw).isupper()
    table = _abbreviations(lang)
    return bool(table) and (table.get(fa) == fb or table.get(fb) == fa)


@lru_cache(maxsize=16)
def _colloquial_phrases(lang: str) -> frozenset[str]:
    return frozenset(phrase for pair in _colloquial(lang) for phrase in pair)


def colloquial_equal(a: tuple[str, ...], b: tuple[str, ...], lang: str) -> bool:
    phrases = _colloquial_phrases(lang)
    fa = fold_words(a)
    if fa not in phrases:  # most pairs: no listed form on one side, so no listed pair
        return False
    fb = fold_words(b)
    return fa != fb and frozenset((fa, fb)) in _colloquial(lang)


# ---- contractions and elisions -----------------------------------------------------------------

# English: whole words, then endings; 's only after words where it is "is"/"has" (John's is a possessive)
_EN_WHOLE = {
    "won't": ("will not",),
    "can't": ("can not", "cannot"),
    "shan't": ("shall not",),
    "ain't": ("am not", "is not", "are not", "has not", "have not"),
    "let's": ("let us",),
    "y'all": ("you all",),
}
_EN_ENDINGS = (
    ("n't", ("not",)),
    ("'re", ("are",)),
    ("'m", ("am",)),
    ("'ve", ("have",)),
    ("'ll", ("will", "shall")),
    ("'d", ("would", "had", "did")),
    ("'s", ("is", "has", "does")),
)
_EN_S_HOSTS = frozenset(
    "it he she that there here what who where when how why this everyone everybody nobody someone somebody".split()
)
# French elisions: the elided article or pronoun and its full forms (j'ai / je ai, l'homme / le homme)
_FR_ELIDED = {
    "l": ("le", "la"),
    "j": ("je",),
    "c": ("ce",),
    "ç": ("ça",),
    "qu": ("que",),
    "n": ("ne",),
    "d": ("de",),
    "s": ("se", "si"),
    "m": ("me",),
    "t": ("te",),
    "jusqu": ("jusque",),
    "lorsqu": ("lorsque",),
    "puisqu": ("puisque",),
    "quoiqu": ("quoique",),
}
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "`": "'"})


@lru_cache(maxsize=20_000)
def expansions(word: str, lang: str) -> frozenset[str]:
    """The folded expansions of a contracted word (don't -> do not; j'ai -> je ai), or none."""
    w = fold(word).translate(_APOSTROPHES)
    if "'" not in w:
        return frozenset()
    if lang == "en":
        if w in _EN_WHOLE:
            return frozenset(_EN_WHOLE[w])
        for end, full in _EN_ENDINGS:
            host = w[: -len(end)]
            if w.endswith(end) and host.isalpha() and (end != "'s" or host in _EN_S_HOSTS):
                return frozenset(f"{host} {f}" for f in full)
        return frozenset()
    if lang == "fr":
        head, _, rest = w.partition("'")
        if head in _FR_ELIDED and rest and "'" not in rest:
            return frozenset(f"{full} {rest}" for full in _FR_ELIDED[head])
    return frozenset()


def contraction_equal(a: tuple[str, ...], b: tuple[str, ...], lang: str) -> bool:
    """A contraction against its expansion: don't / do not, can't / cannot, j'ai / je ai."""
    if lang not in ("en", "fr"):
        return False
    for short, full in ((a, b), (b, a)):
        if len(short) == 1 and 1 <= len(full) <= 2 and "'" in short[0].translate(_APOSTROPHES):
            if fold_words(full).translate(_APOSTROPHES) in expansions(short[0], lang):
                return True
    return False


def fold_words(words: tuple[str, ...]) -> str:
    """The spelling fold of each word, joined by spaces."""
    return fold(words[0]) if len(words) == 1 else " ".join(map(fold, words))


def is_function_word(word: str, lang: str) -> bool:
    return fold(word) in FUNCTION_WORDS.get(lang, ())


_NONE: frozenset[str] = frozenset()


def has_function_word(words: tuple[str, ...], lang: str) -> bool:
    """Is any of the words a function word (one list lookup for all)?"""
    return not FUNCTION_WORDS.get(lang, _NONE).isdisjoint(map(fold, words))


def script_for(lang: str) -> str | None:
    """The script of a language with its own lists (None for the generic profile)."""
    return _SCRIPT_OF_LANG.get(lang)
