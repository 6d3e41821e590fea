"""Language profiles: any BCP-47/ISO code, the script when no code is given, and what the judge
knows about each language.

``--lang`` takes any code (``fr``, ``fr-CA``, ``ar``, ``zh-Hans``, ``ta``...); it is reduced to
its primary subtag. A language with entries of its own in ``lang.py`` / the rubric's
conventions (``OWN``) uses them; every other language gets the *generic profile*: the script-aware
spelling fold (Unicode compatibility forms, case, punctuation, Arabic tashkeel and tatweel, the
Indic folds), numbers in digits, compounds joined or split, fillers when the rubric lists them,
and phonetic evidence through espeak-ng when it has a voice for the language. Never another
language's word lists: French is not scored with English conventions.

Without a code the script decides (Malayalam -> ml, Kannada -> kn ...). Latin script is shared
by many languages, so a few hundred function words vote (en, fr, de, es, it, pt, nl); text with no
vote gets ``und`` (the generic profile with no phonetic voice). Devanagari and Arabic script are
written by languages with lists of their own and by others, so function words vote there too
(Devanagari: hi, mr, ne; Arabic: ar, fa, ur); with no vote, hi and ar.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from voxjudge.errors import InputError

UNDETERMINED = "und"
# languages with their own lists (numbers, abbreviations, colloquial forms, function words, endings)
OWN = ("hi", "mr", "ml", "kn", "en", "fr", "ar")
_CODE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
# Unicode script (first word of a letter's name) -> the language its text is most likely in
SCRIPT_LANG = {
    "DEVANAGARI": "hi",
    "KANNADA": "kn",
    "MALAYALAM": "ml",
    "TAMIL": "ta",
    "TELUGU": "te",
    "BENGALI": "bn",
    "GUJARATI": "gu",
    "GURMUKHI": "pa",
    "ORIYA": "or",
    "SINHALA": "si",
    "ARABIC": "ar",
    "HEBREW": "he",
    "CYRILLIC": "ru",
    "GREEK": "el",
    "CJK": "zh",
    "HIRAGANA": "ja",
    "KATAKANA": "ja",
    "HANGUL": "ko",
    "THAI": "th",
    "LAO": "lo",
    "KHMER": "km",
    "MYANMAR": "my",
    "GEORGIAN": "ka",
    "ARMENIAN": "hy",
    "ETHIOPIC": "am",
}
_SHORT_SCRIPT = {"DEVANAGARI": "deva", "KANNADA": "knda", "MALAYALAM": "mlym", "LATIN": "latn", "ARABIC": "arab"}
# Function words that vote for a Latin-script language (frequent, and rare in the others).
_LATIN_VOTES = {
    "en": "the and of to is that it was for with you this are have not be on at but they what which would "
    "there their been has were from will she he we his her my an or if can do does did",
    "fr": "le la les des est et une un du dans que qui pas pour sur ce au avec il elle ils nous vous je "
    "mais ou sont été aux ces cette leur c' j' l' d' qu' n' s' euh être fait très",
    "de": "der die das und ist nicht ein eine zu den von mit sich des auf für im dem auch es sie wir ich "
    "war wird sind noch nach",
    "es": "el los las del que es en y una por con para se lo su al como más pero sus le ya está muy hay fue",
    "it": "il di che è e la per una sono del della con non si le dei nel alla gli anche come questo più "
    "dell' all' nell' dall' sull' un' quest' dov' com' l' c' d' s' n'",
    "pt": "o os que não da do em uma para com se na no por mais as dos como mas foi ao ele das à seu",
    "nl": "de het een van en is dat niet op te zijn met voor er maar ook als bij nog wordt",
}
_VOTES = {lang: frozenset(words.split()) for lang, words in _LATIN_VOTES.items()}
# Scripts that several languages write, with their own lists among them (Devanagari: hi, mr;
# Arabic: ar): function words vote, and text with no vote gets the script's usual language.
# Words that two of the languages write alike (की, होता; من, هم, به) are left out.
_SHARED_SCRIPT_VOTES = {
    "DEVANAGARI": {
        "hi": "है हैं और के में को से नहीं यह वह भी था थे थी कि लिए",
        "mr": "आहे आहेत आणि नाही आम्ही तुम्ही आपण झाले त्याचा त्याची त्यांच्या",
        "ne": "छन् पनि भएको गरेको थियो हुन्छ गर्न",
    },
    "ARABIC": {
        "ar": "في على إلى الى أن التي الذي هذا هذه كان لا هو هي عن مع ثم",
        "fa": "در از که این را است برای شد بود یک می",
        "ur": "کے ہے ہیں میں اور سے کو نے یہ کہ تھا بھی کا",
    },
}
# Another language than the script's usual one needs this many votes, and more than it: one
# ordinary word of the usual language that another also writes is no evidence.
_OTHER_VOTES = 2
# punctuation around a word: Latin, the Arabic comma and question mark, the Urdu full stop, the
# danda (and the bar written for it)
_SENTENCE_MARKS = '.,;:!?"()\u060c\u061f\u06d4\u0964\u0965|'
_SCRIPT_VOTES = {
    script: {lang: frozenset(words.split()) for lang, words in langs.items()}
    for script, langs in _SHARED_SCRIPT_VOTES.items()
}
# codes taken without looking them up in the registry (``canonical``)
_KNOWN = frozenset(
    {*OWN, *SCRIPT_LANG.values(), *_LATIN_VOTES, *(lang for langs in _SHARED_SCRIPT_VOTES.values() for lang in langs)}
    | {UNDETERMINED}
)


def canonical(code: str) -> str:
    """The primary subtag of a BCP-47/ISO 639 code, lower case (``fr-CA`` -> ``fr``); bad input
    raises ``InputError``."""
    c = str(code).strip()
    primary = c.replace("_", "-").split("-")[0].lower()
    if not _CODE.match(c) or (primary not in _KNOWN and not _registered(c.replace("_", "-"))):
        raise InputError(f"language {code!r} is not a BCP-47/ISO 639 code (examples: en, fr, ar, hi, zh-Hans)")
    return primary


def _registered(tag: str) -> bool:
    """A tag of the IANA registry (langcodes, wordfreq's own dependency): ``xx`` is refused, ``sw``,
    ``und`` and ``qaa`` pass. Loaded only for codes past the ones the detector knows (~90 ms)."""
    import langcodes

    return langcodes.tag_is_valid(tag)


def script_name(ch: str) -> str | None:
    """The Unicode script of a letter, as the first word of its name (LATIN, ARABIC, CJK...)."""
    if not ch.isalpha() and unicodedata.category(ch) not in ("Mn", "Mc", "Lo"):
        return None
    try:
        return unicodedata.name(ch).split()[0]
    except ValueError:
        return None


@lru_cache(maxsize=200_000)
def word_script(word: str) -> str:
    """Short script tag of a word's first letter: deva, knda, mlym, latn, arab, or the lower-cased
    Unicode script name (cyrillic, cjk...); ``other`` when it has no letter."""
    for ch in word:
        name = script_name(ch)
        if name:
            return _SHORT_SCRIPT.get(name, name.lower())
    return "other"


def detect(text: str) -> str:
    """The language of a text from its script; Latin-script text by function-word votes."""
    return explain(text)[0]


def explain(text: str) -> tuple[str, str]:
    """(language, why): ``detect``'s answer and what decided it (the script, the votes)."""
    counts: dict[str, int] = {}
    by_script: dict[str, list[str]] = {}
    for word in text.split():
        for ch in word:
            name = script_name(ch)
            if name:
                counts[name] = counts.get(name, 0) + 1
                by_script.setdefault(name, []).append(word)
                break
    if not counts:
        return UNDETERMINED, "no letters"
    script = max(counts, key=lambda s: (counts[s], s))
    share = f"{script.title()} script ({counts[script]} of {sum(counts.values())} words, both sides)"
    if script in _SCRIPT_VOTES:
        return _by_votes(by_script[script], _SCRIPT_VOTES[script], SCRIPT_LANG[script], share)
    if script != "LATIN":
        lang = SCRIPT_LANG.get(script, UNDETERMINED)
        return lang, share if lang != UNDETERMINED else f"{share}: no language known for it"
    latin_words = by_script[script]
    votes = dict.fromkeys(_VOTES, 0)
    for w in latin_words:
        w = w.casefold().strip('.,;:!?"()').replace("\u2019", "'")
        elided = w[: w.find("'") + 1] if "'" in w[:-1] else ""  # l'heure, c'è, dell'anno: l', c', dell'
        for lang, words in _VOTES.items():
            if w in words or elided in words:
                votes[lang] += 1
    ranked_votes = sorted(((v, k) for k, v in votes.items() if v), reverse=True)
    best = max(votes, key=lambda lang: (votes[lang], lang == "en"))
    ranked = ", ".join(f"{k} {v}" for v, k in ranked_votes[:3])
    if votes[best] == 0:
        return _by_lexicon(latin_words, f"{share}, no function word")
    # A few of another language's function words in a text of yet another (Norwegian 'den' and
    # 'er', Indonesian 'di') decide nothing alone: too few, too small a share of the words (real
    # text runs from a sixth to well over a third on these lists), or level with another list's
    runner_up = ranked_votes[1][0] if len(ranked_votes) > 1 else 0
    if votes[best] < _FEWEST_VOTES or votes[best] * _SMALLEST_SHARE < len(latin_words) or runner_up == votes[best]:
        return _by_lexicon(latin_words, f"{share}, function words {ranked}: too few to decide alone", 0.7)
    return best, f"{share}, function words {ranked}"


def _by_votes(words: list[str], lists: dict[str, frozenset], usual: str, share: str) -> tuple[str, str]:
    """A script several languages write: the language with most function words, else ``usual``."""
    votes = dict.fromkeys(lists, 0)
    for w in words:
        w = w.strip(_SENTENCE_MARKS)
        for lang, found in lists.items():
            votes[lang] += w in found
    best = max(votes, key=lambda lang: (votes[lang], lang == usual))
    ranked = ", ".join(f"{k} {v}" for v, k in sorted((v, k) for k, v in votes.items() if v)[::-1])
    if not ranked:
        return usual, f"{share}, no function word of {', '.join(lists)}: {usual}, the language most written in it"
    if best != usual and (votes[best] < _OTHER_VOTES or votes[best] <= votes[usual]):
        return usual, f"{share}, function words {ranked}: too few to outweigh {usual}, the language most written in it"
    return best, f"{share}, function words {ranked}"


LEXICON_WORDS = 200  # words a text without function words is looked up by


_FEWEST_VOTES = 3  # function-word votes (both sides count) a Latin-script language needs alone
_SMALLEST_SHARE = 8  # ... and at least one word in this many (else the word lists decide)


def _by_lexicon(words: list[str], share: str, known: float = 1 / 2) -> tuple[str, str]:
    """Latin text with too few function words (``Dr. Smith``): the language whose word list
    knows most of its words as common ones (Zipf >= 3, wordfreq; the sum of frequencies breaks
    ties), when it knows more than ``known`` of them; else ``und``. ``share``: what was found so
    far. Where another language's function words were found, its list must know seven in ten
    (loans, names and digits let a neighbour's list know half of a Norwegian sentence)."""
    from voxjudge.asr.laser.lexicon import zipf

    # an elided article or pronoun (l'heure, all'università) is looked up by the word it is on:
    # the word lists hold the two apart
    folded = (w.casefold().strip('.,;:!?"()').replace("\u2019", "'") for w in words[:LEXICON_WORDS])
    keys = [k for k in (w.rpartition("'")[2] if "'" in w[:-1] else w for w in folded) if k]
    scores = {}
    for lang in _VOTES:
        found = [zipf(w, lang) for w in keys]
        scores[lang] = (sum(f >= 3 for f in found), round(sum(found), 1))
    best = max(scores, key=lambda lang: (scores[lang], lang == "en"))
    if scores[best][0] <= known * len(keys):
        return UNDETERMINED, f"{share}, and no language's word list knows most of its words"
    ranked = sorted(((v, k) for k, v in scores.items() if v[0]), reverse=True)[:3]
    return best, f"{share}; common words known: " + ", ".join(f"{k} {n} of {len(keys)}" for (n, _), k in ranked)


def has_own(lang: str) -> bool:
    return lang in OWN


def describe(lang: str) -> str:
    """One line for records and help: which profile a code gets."""
    if has_own(lang):
        return f"{lang} (its own conventions)"
    return f"{lang} (generic profile: script-aware fold, numbers, compounds, fillers, phonetic evidence)"


__all__ = ["OWN", "SCRIPT_LANG", "UNDETERMINED", "canonical", "describe", "detect", "explain", "has_own", "word_script"]
