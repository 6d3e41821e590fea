"""The ``rules`` judge: deterministic, offline, explainable word-pair classification.

Checks run in order; the first that applies decides, and every label carries its reason:

1. identical -> match;
2. equal after the spelling fold (nukta, chandrabindu/anusvara, nasal + virama, ZWJ/ZWNJ,
   Malayalam chillu, य-glide spellings, case, punctuation) -> no penalty, alternate spelling;
3. British/American spelling variants -> no penalty, alternate spelling;
4. a number in digits against the same number in words, or in another script's digits -> no
   penalty, numerical phrase;
5. a word and its abbreviation -> no penalty; a listed colloquial or contracted form -> no penalty;
6. the two sides joined are the same word (a compound split or joined) -> no penalty;
7. the language's annotator conventions (rubric data, ``conventions.py``): a listed synonym ->
   minor, synonym; the same verb with another register's ending (जाकर/जाके, समझिए/समझें), an
   informal spelling of a frequent word or an accepted spelling variant (Hindi: vowel length, a
   dropped nasal sign, ै/े ...) -> no penalty; a number slip on an auxiliary (है/हैं), alone or
   inside a phrase whose other words match, or auxiliaries changed over a phrase -> minor,
   grammar agreement;
8. a loan word in Latin script against its native-script spelling (same consonant skeleton after
   transliteration) -> no penalty, transliteration variant; a capitalised Latin name with the
   same skeleton -> no penalty, proper noun;
9. the same stem with a different gender/number/tense ending -> minor, grammar agreement;
10. a vowel-length slip (ि/ी, ु/ू ...) or, in English, a doubled/transposed letter -> minor, spelling;
11. a function word replaced -> major, wrong word;
12. omissions, additions and reorderings -> major; anything else -> major, wrong word (the rules
    cannot justify leniency).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from voxjudge.asr.laser.align import RubricPair
from voxjudge.asr.laser.conventions import Conventions, conventions_for
from voxjudge.asr.laser.lang import (
    ENDINGS,
    abbreviation_equal,
    as_number,
    colloquial_equal,
    fold,
    is_function_word,
    numbers_equal,
    script_of,
)


@dataclass(frozen=True)
class Label:
    label: str  # match | no_penalty | minor | major
    error_type: str | None
    reason: str
    disputed: bool = False  # a model's label that contradicts a confident rule


_UK_US = [
    (r"our$", "or"),
    (r"ise$", "ize"),
    (r"ised$", "ized"),
    (r"ising$", "izing"),
    (r"yse$", "yze"),
    (r"tre$", "ter"),
    (r"ogue$", "og"),
    (r"ence$", "ense"),
    (r"lled$", "led"),
    (r"lling$", "ling"),
]
_ITRANS_SCRIPTS = {"deva": "devanagari", "knda": "kannada", "mlym": "malayalam"}
_DIGRAPHS = [
    ("ph", "f"),
    ("th", "t"),
    ("kh", "k"),
    ("gh", "g"),
    ("chh", "c"),
    ("ch", "c"),
    ("jh", "j"),
    ("dh", "d"),
    ("bh", "b"),
    ("sh", "s"),
    ("ck", "k"),
    ("w", "v"),
    ("q", "k"),
    ("x", "ks"),
    ("z", "j"),
    ("c", "k"),
]
# vowel length: long -> short, at the same offsets in the Devanagari, Kannada and Malayalam blocks
_SHORTEN = {}
for _base in (0x0900, 0x0C80, 0x0D00):
    _SHORTEN.update(
        {
            _base + 0x40: chr(_base + 0x3F),
            _base + 0x42: chr(_base + 0x41),
            _base + 0x08: chr(_base + 0x07),
            _base + 0x0A: chr(_base + 0x09),
        }
    )


def _plain(word: str) -> str:
    return (
        unicodedata.normalize("NFC", word)
        .casefold()
        .strip("".join(ch for ch in word if unicodedata.category(ch)[0] == "P"))
    )


def _uk_us(a: str, b: str) -> bool:
    if (len(a) > 5 and a.replace("our", "or") == b) or (len(b) > 5 and b.replace("our", "or") == a):
        return True  # colour/color, favourite/favorite (not four/for: short words are left alone)
    for uk, us in _UK_US[1:]:
        if re.sub(uk, us, a) == b or re.sub(uk, us, b) == a:
            return True
    return False


@lru_cache(maxsize=100_000)
def skeleton(word: str) -> str:
    """Consonant skeleton of a word in Latin letters (Indic words transliterated first)."""
    script = script_of(word)
    if script in _ITRANS_SCRIPTS:
        from indic_transliteration import sanscript

        w = fold(word)
        if script == "mlym":
            w = w.replace("\u0d31\u0d4d\u0d31", "\u0d1f\u0d4d\u0d1f")  # റ്റ spells /tt/ in loan words
        text = sanscript.transliterate(w, _ITRANS_SCRIPTS[script], sanscript.ITRANS)
    else:
        text = word
    s = re.sub(r"[^a-z]", "", text.lower())
    for a, b in _DIGRAPHS:
        s = s.replace(a, b)
    if not s:
        return ""
    body = re.sub(r"[aeiouyh]", "", s[1:])
    s = re.sub(r"(.)\1+", r"\1", s[0] + body)
    return re.sub(r"m(?=[kgcjtd])", "n", s)  # a nasal takes the place of the next consonant (anusvara)


def _transliterated(a: str, b: str) -> bool:
    from rapidfuzz.fuzz import ratio

    ka, kb = skeleton(a), skeleton(b)
    return len(ka) >= 2 and len(kb) >= 2 and (ka == kb or ratio(ka, kb) >= 80)


IRREGULAR_EN = [
    {"be", "am", "is", "are", "was", "were", "been"},
    {"have", "has", "had"},
    {"do", "does", "did"},
    {"go", "goes", "went", "gone"},
    {"child", "children"},
    {"man", "men"},
    {"woman", "women"},
    {"person", "people"},
    {"foot", "feet"},
    {"tooth", "teeth"},
    {"mouse", "mice"},
    {"this", "these"},
    {"that", "those"},
    {"come", "came"},
    {"take", "took", "taken"},
    {"give", "gave", "given"},
    {"see", "saw", "seen"},
    {"say", "said"},
    {"make", "made"},
    {"get", "got"},
    {"know", "knew", "known"},
]


@lru_cache(maxsize=200_000)
def _stems(word: str, lang: str) -> frozenset[str]:
    """The word and what is left after removing one inflection ending (an ending may be empty)."""
    if lang == "en":  # close/closed/closes/closing, light/lights
        stem = re.sub(r"(ing|ed|es|s|d)$", "", word) if len(word) > 4 else word
        stems = {word, stem[:-1] if stem.endswith("e") and len(stem) > 3 else stem}
        stems |= {f"irregular:{k}" for k, forms in enumerate(IRREGULAR_EN) if word in forms}
        return frozenset(stems)
    # Indic stems can be a single consonant (गया/गई/गए, का/की/के)
    return frozenset(
        {word} | {word[: -len(e)] for e in ENDINGS.get(lang, []) if word.endswith(e) and len(word) > len(e)}
    )


def _stem(word: str, lang: str) -> str:
    """One representative stem (the shortest), for features."""
    return min(_stems(word, lang), key=len)


def _vowel_length_only(a: str, b: str) -> bool:
    return a != b and a.translate(_SHORTEN) == b.translate(_SHORTEN)


def _english_slip(a: str, b: str) -> bool:
    if not (a.isascii() and b.isascii()) or min(len(a), len(b)) < 4:
        return False
    if re.sub(r"(.)\1", r"\1", a) == re.sub(r"(.)\1", r"\1", b):
        return True  # a doubled letter: occured / occurred
    if len(a) == len(b):
        diff = [k for k in range(len(a)) if a[k] != b[k]]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    return False


def equivalent(lang: str):
    """What the aligner may merge: a split/joined compound, a number, a contraction."""

    def eq(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        return (
            "".join(fold(w) for w in a) == "".join(fold(w) for w in b)
            or numbers_equal(a, b, lang)
            or colloquial_equal(a, b, lang)
        )

    return eq


def by_convention(ref: tuple[str, ...], hyp: tuple[str, ...], lang: str, conv: Conventions) -> Label | None:
    """Step 7: what the language's annotator conventions say about a pair, or None."""
    if conv.are_synonyms(ref, hyp):
        return Label("minor", "synonym", "a synonym: same meaning, other wording")
    verb = conv.same_verb(ref, hyp)
    if verb is not None:
        return Label("no_penalty", "slang_colloquial", f"the same verb in another register ({verb})")
    if len(ref) == len(hyp) == 1:
        return _word_convention(ref[0], hyp[0], lang, conv)
    if len(ref) == len(hyp):
        found = [_phrase_word(a, b, lang, conv) if fold(a) != fold(b) else None for a, b in zip(ref, hyp)]
        differing = [lab for a, b, lab in zip(ref, hyp, found) if fold(a) != fold(b)]
        if differing and all(lab is not None and lab.label != "major" for lab in differing):
            if any(lab.label == "minor" for lab in differing):  # type: ignore[union-attr]
                return Label(
                    conv.phrase_agreement if conv.phrase_agreement in ("minor", "major") else "minor",
                    "grammar_agreement",
                    "agreement slip inside a phrase whose other words match",
                )
            return Label("no_penalty", "alternate_spelling", "every differing word is an accepted variant")
        return None
    joined_r, joined_h = conv.key("".join(ref)), conv.key("".join(hyp))
    if joined_r == joined_h and not conv.strict & set(conv.variants("".join(ref), "".join(hyp)) or ()):
        return Label("no_penalty", "compound_word", "same words joined or split, spelled as a variant")
    if _auxiliaries_only(ref, hyp, conv):
        return Label("minor", "grammar_agreement", "only auxiliaries differ, in number or gender")
    return None


def _auxiliaries_only(ref: tuple[str, ...], hyp: tuple[str, ...], conv: Conventions) -> bool:
    """Phrases of different lengths whose differing words are all auxiliaries, changed on both
    sides (बोल रहे हैं / बोल रहें, रही है / रहे): an agreement slip spread over a phrase, minor."""
    from difflib import SequenceMatcher

    fr, fh = [fold(w) for w in ref], [fold(w) for w in hyp]
    ops = [op for op in SequenceMatcher(None, fr, fh, autojunk=False).get_opcodes() if op[0] != "equal"]
    gone = [w for _, i1, i2, _, _ in ops for w in ref[i1:i2]]
    new = [w for _, _, _, j1, j2 in ops for w in hyp[j1:j2]]
    # an auxiliary only added or only dropped (करते / करते हैं) is an omission or addition: major
    return bool(gone and new) and all(conv.is_agreement_word(w) for w in gone + new)


def _phrase_word(a: str, b: str, lang: str, conv: Conventions) -> Label | None:
    """One differing word inside a phrase: a convention, or an ending that carries agreement."""
    found = _word_convention(a, b, lang, conv)
    if found is None and _stems(fold(a), lang) & _stems(fold(b), lang):
        return Label("minor", "grammar_agreement", "same stem, different ending")
    return found


# जाएगी/जाएंगी, खरीदी/खरीदीं: there the nasal marks number on a verb
_FUTURE = ("गा", "गी", "गे", "ीं")


def _word_convention(a: str, b: str, lang: str, conv: Conventions) -> Label | None:
    if conv.is_informal(a, b):
        return Label("no_penalty", "slang_colloquial", "informal spelling of a frequent word")
    if conv.same_auxiliary(a, b) or (
        conv.is_agreement_word(a) and conv.is_agreement_word(b) and _stems(fold(a), lang) & _stems(fold(b), lang)
    ):
        return Label("minor", "grammar_agreement", "auxiliary with another number or gender")
    found = conv.variants(a, b)
    if not found:
        return None
    short = min(len(fold(a)), len(fold(b))) < 4
    if conv.strict & set(found) and (short or len(conv.strict & set(found)) > 1):
        return None  # थ/त, श/स ... are accepted in longer words, where no other word is that close
    if is_function_word(a, lang) and is_function_word(b, lang) and set(found) - {"vowel length", "nukta", "markup"}:
        return None  # मैं/में: two different function words, not one word spelled two ways
    if "nasal sign" in found and any(conv.is_agreement_word(w) or fold(w).endswith(_FUTURE) for w in (a, b)):
        return Label("minor", "grammar_agreement", "a nasal sign that marks number on an auxiliary")
    return Label("no_penalty", "alternate_spelling", f"accepted spelling variant ({', '.join(found)})")


def classify_words(
    ref: tuple[str, ...], hyp: tuple[str, ...], lang: str, conventions: Conventions | None = None
) -> Label:
    return _classify_words(ref, hyp, lang, conventions if conventions is not None else conventions_for(lang))


@lru_cache(maxsize=200_000)
def _classify_words(ref: tuple[str, ...], hyp: tuple[str, ...], lang: str, conv: Conventions) -> Label:
    if not hyp:
        return Label("major", "omission", "reference word missing from the transcript")
    if not ref:
        return Label("major", "addition", "word added that the reference does not have")
    if ref == hyp:
        return Label("match", None, "identical")
    if [_plain(w) for w in ref] == [_plain(w) for w in hyp]:
        return Label("match", None, "identical apart from case or punctuation")
    fr, fh = " ".join(fold(w) for w in ref), " ".join(fold(w) for w in hyp)
    if fr == fh:
        return Label("no_penalty", "alternate_spelling", "same word after the spelling fold (nukta, nasal, case...)")
    if lang == "en" and len(ref) == len(hyp) == 1 and _uk_us(fr, fh):
        return Label("no_penalty", "alternate_spelling", "British/American spelling")
    if numbers_equal(ref, hyp, lang):
        return Label("no_penalty", "numerical_phrase", "same number in digits and words")
    if len(ref) == len(hyp) == 1 and abbreviation_equal(ref[0], hyp[0], lang):
        return Label("no_penalty", "abbreviation", "a word and its abbreviation")
    if colloquial_equal(ref, hyp, lang):
        return Label("no_penalty", "slang_colloquial", "colloquial or contracted form")
    if fr.replace(" ", "") == fh.replace(" ", "").replace("-", "") or fr.replace(" ", "").replace(
        "-", ""
    ) == fh.replace(" ", ""):
        return Label("no_penalty", "compound_word", "compound written joined on one side, split on the other")
    by_conv = by_convention(ref, hyp, lang, conv)
    if by_conv is not None:
        return by_conv
    if len(ref) == len(hyp) == 1:
        r, h = fold(ref[0]), fold(hyp[0])
        sr, sh = script_of(ref[0]), script_of(hyp[0])
        if sr != sh and "latn" in (sr, sh) and _transliterated(r, h):
            return Label("no_penalty", "transliteration_variant", "same word in Latin and native script")
        if sr == sh == "latn" and ref[0][:1].isupper() and skeleton(r) == skeleton(h) and len(skeleton(r)) >= 2:
            return Label("no_penalty", "proper_noun", "another rendering of the same name")
        if as_number(r) is None and as_number(h) is None:
            if _stems(r, lang) & _stems(h, lang):
                return Label("minor", "grammar_agreement", "same stem, different gender/number/tense ending")
            if _vowel_length_only(r, h):
                return Label("minor", "spelling_minor", "vowel length slip; the word stays recognisable")
            if _english_slip(r, h):
                return Label("minor", "spelling_minor", "doubled or transposed letter")
        if is_function_word(r, lang) or is_function_word(h, lang):
            return Label("major", "wrong_word", "a function word was replaced")
    if len(ref) > 1 and len(hyp) > 1 and sorted(ref) == sorted(hyp):
        return Label("major", "reordering", "the same words in another order")
    return Label("major", "wrong_word", "different word (no rule shows it is an accepted variant)")


def classify(pair: RubricPair, lang: str, conventions: Conventions | None = None) -> Label:
    if pair.op == "swap":
        return Label("major", "reordering", "adjacent words swapped; order can change the meaning")
    # an "equal" pair is identical, or so apart from case and punctuation
    return classify_words(pair.ref, pair.hyp, lang, conventions)
