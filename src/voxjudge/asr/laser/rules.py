"""The ``rules`` judge: deterministic, offline, explainable word-pair classification.

Checks run in order; the first that applies decides, and every label carries its reason:

1. identical -> match;
2. equal after the spelling fold (nukta, chandrabindu/anusvara, nasal + virama, ZWJ/ZWNJ,
   Malayalam chillu, य-glide spellings, case, punctuation) -> no penalty, alternate spelling;
3. British/American spelling variants -> no penalty, alternate spelling;
4. a number in digits against the same number in words, or in another script's digits, and a
   percentage, amount of money, measure, time of day, ordinal or date written with digits against
   the same value said in words (``quantities.py``) -> no penalty, numerical phrase; the same kind
   of value with another number (``15%`` / ``sixteen percent``) -> major, wrong word;
5. a word and its abbreviation -> no penalty; a contraction and its expansion (don't / do not,
   j'ai / je ai) -> no penalty, contraction; a listed colloquial form -> no penalty;
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

A one-word pair that no step before the evidence can apply to (proved by facts cached per word,
``_no_rule_applies``) goes straight to ``by_evidence``; ``rule_chain`` runs every step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache

from voxjudge.asr.laser.align import RubricPair
from voxjudge.asr.laser.conventions import conventions_for
from voxjudge.asr.laser.lang import (
    FUNCTION_WORDS,
    _abbreviations,
    _colloquial_phrases,
    abbreviation_equal,
    as_number,
    colloquial_equal,
    contraction_equal,
    dotted_initialism,
    fold,
    fold_words,
    has_function_word,
    is_function_word,
    numbers_equal,
    script_of,
)
from voxjudge.asr.laser.lang_conventions import Conventions
from voxjudge.asr.laser.lexicon import is_known
from voxjudge.asr.laser.phonetics import Evidence, evidence, word_evidence
from voxjudge.asr.laser.quantities import different_value, quantities_equal
from voxjudge.asr.laser.speech import fillers
from voxjudge.asr.laser.spelling import (
    _accent_slip,
    _english_slip,
    _name_like,
    _plain,
    _stems,
    _transliterated,
    _uk_us,
    _undoubled,
    _vowel_length_only,
    joined,
    joined_word,
    same_stem,
    skeleton,
)


@dataclass(frozen=True, init=False)
class Label:
    label: str  # match | no_penalty | minor | major
    error_type: str | None
    reason: str
    disputed: bool = False  # a model's label that contradicts a confident rule
    # what by_evidence decided from: (sound similarity or -1, look similarity, function word, shortest
    # side in characters, both sides known words); lets calibration re-tier a pair without
    # classifying it again
    evidence: tuple | None = field(default=None, compare=False)

    def __init__(
        self, label: str, error_type: str | None, reason: str, disputed: bool = False, evidence: tuple | None = None
    ):
        # straight into the instance's dict, as RubricPair does: every unique pair makes one
        d = self.__dict__
        d["label"], d["error_type"], d["reason"], d["disputed"], d["evidence"] = (
            label, error_type, reason, disputed, evidence
        )  # fmt: skip


def equivalent(lang: str):
    """What the aligner may merge: a split/joined compound, a number or another value written
    with digits (``15%`` / ``fifteen percent``; also ``16%`` / ``fifteen percent``, one wrong value
    rather than a wrong word and an omission), a contraction or colloquial form."""

    def eq(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        if joined(a) == joined(b) or colloquial_equal(a, b, lang):
            return True
        # a number needs a side that is one word with a digit (``as_number``): most pairs have none
        marks = _single_marks(a, b)
        if marks & DIGIT and (
            numbers_equal(a, b, lang)
            or quantities_equal(a, b, lang) is not None
            or different_value(a, b, lang) is not None
        ):
            return True
        return bool(marks & APOSTROPHE) and contraction_equal(a, b, lang)

    return eq


DIGIT, APOSTROPHE = 1, 2


@lru_cache(maxsize=100_000)
def _marks(word: str) -> int:
    """What a word may be, cheaply: written with digits (a value), with an apostrophe (a contraction)."""
    out = DIGIT if any(ch.isdigit() for ch in word) else 0
    return out | APOSTROPHE if ("'" in word or "\u2019" in word or "\u02bc" in word) else out


def _single_marks(ref: tuple[str, ...], hyp: tuple[str, ...]) -> int:
    """The marks of the sides that are one word: values and contractions are one written word
    against one or several (most pairs have neither mark, and skip those checks)."""
    return (_marks(ref[0]) if len(ref) == 1 else 0) | (_marks(hyp[0]) if len(hyp) == 1 else 0)


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
    fr, fh = [fold(w) for w in ref], [fold(w) for w in hyp]
    ops = [op for op in SequenceMatcher(None, fr, fh, autojunk=False).get_opcodes() if op[0] != "equal"]
    gone = [w for _, i1, i2, _, _ in ops for w in ref[i1:i2]]
    new = [w for _, _, _, j1, j2 in ops for w in hyp[j1:j2]]
    # an auxiliary only added or only dropped (करते / करते हैं) is an omission or addition: major
    return bool(gone and new) and all(conv.is_agreement_word(w) for w in gone + new)


def _phrase_word(a: str, b: str, lang: str, conv: Conventions) -> Label | None:
    """One differing word inside a phrase: a convention, or an ending that carries agreement."""
    found = _word_convention(a, b, lang, conv)
    if found is None and same_stem(fold(a), fold(b), lang):
        return Label("minor", "grammar_agreement", "same stem, different ending")
    return found


# जाएगी/जाएंगी, खरीदी/खरीदीं: there the nasal marks number on a verb
_FUTURE = ("गा", "गी", "गे", "ीं")


def _word_convention(a: str, b: str, lang: str, conv: Conventions) -> Label | None:
    if conv.is_informal(a, b):
        return Label("no_penalty", "slang_colloquial", "informal spelling of a frequent word")
    if conv.same_auxiliary(a, b) or (
        conv.is_agreement_word(a) and conv.is_agreement_word(b) and same_stem(fold(a), fold(b), lang)
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
    """The rules judge's ``Label`` for the reference words ``ref`` against the hypothesis words
    ``hyp`` (tuples of words; an empty side is an omission or an addition) in language ``lang``:
    ``label`` (match, no_penalty, minor or major), ``error_type`` and ``reason``. E.g.
    ``classify_words(("colour",), ("color",), "en")`` is no_penalty, alternate_spelling.
    ``conventions``: the annotator conventions to judge by (a rubric's ``conventions(lang)``);
    None: the shipped rubric's for ``lang``. Unlike ``classify`` it knows nothing of the pair's
    context (a swap, a filler, a repetition)."""
    return _classify_words(ref, hyp, lang, conventions if conventions is not None else conventions_for(lang))


# repeats (identical words in the plain path) hit; the streamed path caches its own labels, and each
# entry holds a Label (~1 KB with its key): 65,536 of them keep a worker's memory in bounds
@lru_cache(maxsize=65_536)
def _classify_words(ref: tuple[str, ...], hyp: tuple[str, ...], lang: str, conv: Conventions) -> Label:
    # most pairs are one word for another that no rule recognises: a few cached facts per word
    # prove it, and the evidence decides without the rule chain running (same label either way)
    if len(ref) == 1 == len(hyp) and _no_rule_applies(ref[0], hyp[0], lang, conv):
        return by_evidence(ref, hyp, lang, conv)
    return rule_chain(ref, hyp, lang, conv)


def rule_chain(ref: tuple[str, ...], hyp: tuple[str, ...], lang: str, conv: Conventions) -> Label:
    """Every step in order, the first that applies deciding (the reference for the fast path)."""
    if not hyp:
        return Label("major", "omission", "reference word missing from the transcript")
    if not ref:
        return Label("major", "addition", "word added that the reference does not have")
    if ref == hyp:
        return Label("match", None, "identical")
    if _same_plain(ref, hyp):
        return Label("match", None, "identical apart from case or punctuation")
    fr, fh = fold_words(ref), fold_words(hyp)
    if fr == fh:
        return Label("no_penalty", "alternate_spelling", "same word after the spelling fold (nukta, nasal, case...)")
    if lang == "en" and len(ref) == len(hyp) == 1 and _uk_us(fr, fh):
        return Label("no_penalty", "alternate_spelling", "British/American spelling")
    if numbers_equal(ref, hyp, lang):
        return Label("no_penalty", "numerical_phrase", "same number in digits and words")
    marks = _single_marks(ref, hyp)
    if marks & DIGIT:
        value = quantities_equal(ref, hyp, lang)
        if value is not None:
            return Label("no_penalty", "numerical_phrase", f"the same value ({value.describe()}), written another way")
        other = different_value(ref, hyp, lang)
        if other is not None:
            return Label("major", "wrong_word", f"a different value: {other[0]} against {other[1]}")
    if len(ref) == len(hyp) == 1 and abbreviation_equal(ref[0], hyp[0], lang):
        return Label("no_penalty", "abbreviation", "a word and its abbreviation")
    if marks & APOSTROPHE and contraction_equal(ref, hyp, lang):
        return Label("no_penalty", "contraction", "a contraction and its expansion")
    if colloquial_equal(ref, hyp, lang):
        return Label("no_penalty", "slang_colloquial", "colloquial or contracted form")
    if joined(ref) == joined(hyp):
        return Label("no_penalty", "compound_word", "compound written joined on one side, split on the other")
    by_conv = by_convention(ref, hyp, lang, conv)
    if by_conv is not None:
        return by_conv
    if len(ref) == len(hyp) == 1:
        r, h = fr, fh  # one word a side: its fold
        sr, sh = script_of(ref[0]), script_of(hyp[0])
        if sr != sh and "latn" in (sr, sh) and _transliterated(r, h):
            return Label("no_penalty", "transliteration_variant", "same word in Latin and native script")
        if sr == sh == "latn" and _name_like(ref[0], lang) and skeleton(r) == skeleton(h) and len(skeleton(r)) >= 2:
            return Label("no_penalty", "proper_noun", "another rendering of the same name")
        if as_number(r) is None and as_number(h) is None:
            if same_stem(r, h, lang):
                return Label(
                    "minor",
                    "grammar_agreement",
                    "same stem, different gender/number/tense ending" + _heard(ref, hyp, lang),
                )
            if _vowel_length_only(r, h):
                return Label("minor", "spelling_minor", "vowel length slip; the word stays recognisable")
            if _english_slip(r, h):
                return Label("minor", "spelling_minor", "doubled or transposed letter")
            if _accent_slip(r, h, lang):
                return Label("minor", "spelling_minor", "an accent slip; the word stays recognisable")
        if _partial(r, h, lang):
            return Label(
                conv.calibration.partial,
                "partial_word",
                f"a partial word: '{h}' is how '{r}' starts{_heard(ref, hyp, lang)}",
            )
    if len(ref) > 1 and len(hyp) > 1 and sorted(ref) == sorted(hyp):
        return Label("major", "reordering", "the same words in another order")
    return by_evidence(ref, hyp, lang, conv)


@lru_cache(maxsize=100_000)  # as the per-word caches it reads from: a tuple of their values a word
def _word_facts(word: str, lang: str) -> tuple:
    """What the rule gates ask of one word, once per word: (fold, case-and-punctuation-free form,
    marks, script, joined form, stems of the fold, fold with doubled letters single, listed as an
    abbreviation or colloquial form or a dotted initialism, fold is ASCII)."""
    f = fold(word)
    listed = f.rstrip(".") in _abbreviations(lang) or f in _colloquial_phrases(lang) or dotted_initialism(f)
    return (
        f,
        _plain(word),
        _marks(word),
        script_of(word),
        joined_word(word),
        _stems(f, lang),
        _undoubled(f),
        listed,
        f.isascii(),
    )


def _no_rule_applies(r: str, h: str, lang: str, conv: Conventions) -> bool:
    """True only when no step before the evidence can apply to the one-word pair r/h: each test
    below is a necessary condition of a step (False sends the pair through the whole chain)."""
    if r == h:
        return False
    fr, pr, mr, sr, jr, str_, ur, lr, ar = _word_facts(r, lang)
    fh, ph, mh, sh, jh, sth, uh, lh, ah = _word_facts(h, lang)
    # case/punctuation, the fold, a compound; digits (numbers, quantities), an apostrophe
    # (contractions), a listed abbreviation or colloquial form on a side
    if pr == ph or fr == fh or jr == jh or mr or mh or lr or lh:
        return False
    if lang == "en" and _uk_us(fr, fh):
        return False
    if not _conventions_silent(r, h, conv):
        return False
    if sr != sh and "latn" in (sr, sh):
        return False  # may be a transliteration
    if sr == sh == "latn" and r[:1].isupper() and skeleton(fr) == skeleton(fh):
        return False  # may be a name (_name_like needs a capital)
    if not str_.isdisjoint(sth):
        return False  # may share a stem (same_stem needs a common one)
    if (len(fr) == len(fh) or ur == uh) and _english_slip(fr, fh):
        return False  # a transposed letter needs equal lengths, a doubled one equal undoubled forms
    if not (ar and ah) and (_vowel_length_only(fr, fh) or _accent_slip(fr, fh, lang)):
        return False  # both need a non-ASCII side
    return not fr.startswith(fh.rstrip("-"))  # a partial word is how the reference starts


def _conventions_silent(r: str, h: str, conv: Conventions) -> bool:
    """by_convention says nothing about a one-word pair: the conventions have no word lists
    (synonyms, verb endings, informal forms, auxiliaries), and the variant classes do not make the
    two words equal (``Conventions.variants`` needs equal keys)."""
    return not conv.has_word_lists and conv.key(r) != conv.key(h)


def _same_plain(ref: tuple[str, ...], hyp: tuple[str, ...]) -> bool:
    """Equal word by word apart from case and edge punctuation (one word a side, the common pair:
    no lists built)."""
    if len(ref) == len(hyp) == 1:
        return _plain(ref[0]) == _plain(hyp[0])
    return list(map(_plain, ref)) == list(map(_plain, hyp))


def _heard(ref: tuple[str, ...], hyp: tuple[str, ...], lang: str) -> str:
    """The phonemes of both sides for a reason (a silent ending says so), or nothing without a voice."""
    ev = evidence(ref, hyp, lang)
    if ev.ipa_ref is None:
        return ""
    return f" (pronounced alike, the ending is silent: {ev.sounds()})" if ev.alike else f" ({ev.sounds()})"


def _partial(r: str, h: str, lang: str) -> bool:
    """A word cut off (``nuclé`` for ``nucléaires``): the start of the reference word, not itself a
    word of the language (``care`` for ``careful`` is another word)."""
    cut = h.rstrip("-")
    return 3 <= len(cut) < len(r) and r.startswith(cut) and (h.endswith("-") or not is_known(cut, lang))


def by_evidence(ref: tuple[str, ...], hyp: tuple[str, ...], lang: str, conv: Conventions) -> Label:
    """The last step, for pairs no rule recognises: how alike the two sides sound (espeak-ng
    phonemes) and look (character similarity). Alike in sound -> a homophone or spelling variant
    (the rubric's homophone tier; a function word for another that sounds the same stays major);
    nearly alike -> at most minor; neither -> major. The thresholds are the conventions'
    calibration."""
    if len(ref) == 1 == len(hyp):
        ev, function, shortest = _word_evidence(ref[0], hyp[0], lang)
    else:
        ev = evidence(ref, hyp, lang)
        function = has_function_word(ref, lang) or has_function_word(hyp, lang)
        shortest = min(len(joined(ref)), len(joined(hyp)))
    words = ev.alike and all(is_known(w, lang) for w in ref + hyp)  # sea/see: two words, not two spellings
    facts = (-1.0 if ev.sound is None else ev.sound, ev.look, function, shortest, words)
    tier, kind = evidence_tier(facts, conv.calibration)
    reason = _EVIDENCE_REASONS[kind](ev)  # only the one needed: describe() formats three numbers
    # a calibration may keep any kind major: then it is a different word
    etype = "wrong_word" if tier == "major" else _EVIDENCE_TYPES.get(kind, "wrong_word")
    return Label(tier, etype, reason, evidence=facts)


def _word_evidence(r: str, h: str, lang: str) -> tuple[Evidence, bool, int]:
    """(evidence, a function word on a side, shortest side joined) of a one-word pair, from each
    word's cached facts."""
    a, b = _word_facts(r, lang), _word_facts(h, lang)
    fr, fh, jr, jh = a[0], b[0], a[4], b[4]  # the folds, the joined forms
    function = not FUNCTION_WORDS.get(lang, _NO_WORDS).isdisjoint((fr, fh))
    return word_evidence(r, h, fr, fh, lang), function, min(len(jr), len(jh))


_NO_WORDS: frozenset[str] = frozenset()
_EVIDENCE_TYPES = {
    "alike_function": "wrong_word",
    "alike": "homophone",
    "alike_words": "homophone",
    "near_sound": "spelling_minor",
    "near_look": "spelling_minor",
}
_EVIDENCE_REASONS = {
    "alike_function": lambda ev: f"a function word replaced by another pronounced alike: {ev.sounds()}",
    "alike": lambda ev: f"pronounced alike: {ev.sounds()}",
    "alike_words": lambda ev: f"another word pronounced alike (a homophone): {ev.sounds()}",
    "near_sound": lambda ev: f"pronounced nearly alike ({ev.describe()})",
    "near_look": lambda ev: f"spelled nearly alike ({ev.describe()})",
    "function": lambda ev: f"a function word was replaced: neither sounds nor looks alike ({ev.describe()})",
    "different": lambda ev: f"different word: neither sounds nor looks alike ({ev.describe()})",
    # however alike they sound: 'tre'/'3' in a language without number words, 'to'/'two'
    "short_function": lambda ev: (
        f"a function word was replaced; too short for sound or spelling to excuse it ({ev.describe()})"
    ),
    "short": lambda ev: f"different word, too short for sound or spelling to excuse it ({ev.describe()})",
}


def evidence_tier(facts: tuple, cal) -> tuple[str, str]:
    """(tier, kind) for a pair's evidence (sound, look, function word, shortest side, both sides
    words of the language) under a calibration (see ``by_evidence``)."""
    sound, look, function, shortest, words = facts
    if shortest < cal.min_chars:
        return "major", "short_function" if function else "short"
    if sound >= 1.0:
        if function:
            return "major", "alike_function"
        return (cal.homophone_word, "alike_words") if words else (cal.homophone, "alike")
    if not function:
        if sound >= cal.near_sound:
            return cal.near, "near_sound"
        if look >= cal.near_look:
            return cal.near, "near_look"
    return "major", "function" if function else "different"


_NOTES = {
    "filler": ("filler", "filler", "a filler or hesitation ({w}), not a word of the message"),
    "repetition": ("repetition", "repetition", "an immediate repetition ({w}) of the word beside it"),
    "false_start": ("partial", "partial_word", "a false start ({w}): the beginning of the next word"),
}


def classify(pair: RubricPair, lang: str, conventions: Conventions | None = None) -> Label:
    """The rules judge's ``Label`` for one aligned word pair (a ``RubricPair``, as
    ``align_utterance`` gives them) in language ``lang``: ``label`` (match, no_penalty, minor or
    major), ``error_type`` and ``reason``. Adjacent words swapped are a major reordering; a pair
    flagged as a filler, a repetition or a false start gets the tier the conventions give it; any
    other pair is judged by its words (``classify_words``). ``conventions``: the annotator
    conventions to judge by (a rubric's ``conventions(lang)``); None: the shipped rubric's for
    ``lang``. This is the ``rules`` judge: the ``default`` judge adds what was learned from
    people."""
    return _classify(pair, lang, conventions if conventions is not None else conventions_for(lang))


PENALISED = ("minor", "major")


def _classify(pair: RubricPair, lang: str, conv: Conventions) -> Label:
    if pair.op == "swap":
        return Label("major", "reordering", "adjacent words swapped; order can change the meaning")
    note = pair.note
    if not note and pair.op in ("insert", "delete") and len(pair.ref + pair.hyp) == 1:
        note = "filler" if fold((pair.ref + pair.hyp)[0]) in fillers(lang) else ""
    if note in _NOTES:
        tier_of, etype, reason = _NOTES[note]
        side = "added" if pair.op == "insert" else "dropped"
        return Label(
            getattr(conv.calibration, tier_of), etype, reason.format(w=" ".join(pair.ref + pair.hyp)) + f", {side}"
        )
    # an "equal" pair is identical, or so apart from case and punctuation
    return _classify_words(pair.ref, pair.hyp, lang, conv)
