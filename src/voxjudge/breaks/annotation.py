"""Phrase-break annotations: words plus one boundary label per juncture, and their text formats.

Canonical inline format: a tag follows the word it comes after, an untagged juncture is NB::

    their poor parents <IP> were just starving <AP> as usual <SB>

Readers for other conventions map their labels to the canonical set (see ``labels``):

* ``tobi`` / ``k-tobi``: ``word|index`` tokens, e.g. ``their|1 poor|1 parents|4``;
* ``mandarin``: character-based prosody marks, e.g. ``风筝#1要线#3`` (a run of Latin letters or
  digits is one token);
* ``pause``: pause buckets glued between words, e.g. ``their<0>poor<3>parents``;
* ``sequence``: words and labels side by side, ``their poor parents<TAB>NB NB SB``.

Matching against a reference table uses a recorded normalization: words are case-folded and
stripped of leading/trailing punctuation; tokens that are only punctuation are dropped and a tag
they carried moves to the previous word (the stronger tag wins).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property

from voxjudge.breaks.labels import DEFAULT_MAPS, LabelMap, LabelSet
from voxjudge.errors import InputError

FORMATS = ("inline", "tobi", "k-tobi", "mandarin", "pause", "sequence")
TEXT_NORMALIZATION = "casefold+strip-punct"
_TAG = re.compile(r"<([^<>\s]+)>")
_GLUED = re.compile(r"\S<[^<>\s]+>|<[^<>\s]+>\S")
_CJK_TOKEN = re.compile(r"[A-Za-z0-9]+|#\d|\S")


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def normalize_word(word: str) -> str:
    if word.isalnum():  # the common case, decided in C
        return word.casefold()
    start, end = 0, len(word)
    while start < end and _is_punct(word[start]):
        start += 1
    while end > start and _is_punct(word[end - 1]):
        end -= 1
    return word[start:end].casefold()


@dataclass(frozen=True)
class Annotation:
    words: tuple[str, ...]
    labels: tuple[str, ...]  # the boundary after each word; the last one ends the utterance

    def __post_init__(self) -> None:
        if len(self.words) != len(self.labels):
            raise InputError(f"{len(self.words)} words but {len(self.labels)} labels")
        if not self.words:
            raise InputError("an annotation needs at least one word")

    @cached_property
    def key_words(self) -> tuple[str, ...]:
        return tuple(self.text_key.split(" "))

    @cached_property
    def text_key(self) -> str:
        """The normalized text that identifies the sentence in a reference table."""
        if all(w.isalnum() for w in self.words):
            return " ".join(self.words).casefold()  # casefolding the joined text is the same, and faster
        return " ".join(normalize_word(w) for w in self.words)

    def inline(self, labelset: LabelSet | None = None) -> str:
        none = (labelset or LabelSet()).none
        out = []
        for w, lab in zip(self.words, self.labels):
            out.append(w if lab == none else f"{w} <{lab}>")
        return " ".join(out)

    def levels(self, labelset: LabelSet) -> tuple[int, ...]:
        lookup = labelset.levels_by_label
        try:
            return tuple(lookup[lab] for lab in self.labels)
        except KeyError:
            labelset.check(self.labels)
            raise


def cleaned(words: list[str], labels: list[str], labelset: LabelSet) -> Annotation:
    """Drop punctuation-only tokens, moving their tag to the previous word (stronger wins)."""
    if all(w.isalnum() for w in words):
        return Annotation(tuple(words), tuple(labels))
    kept_w: list[str] = []
    kept_l: list[str] = []
    for w, lab in zip(words, labels):
        if normalize_word(w) == "":
            if kept_l and labelset.level(lab) > labelset.level(kept_l[-1]):
                kept_l[-1] = lab
            continue
        kept_w.append(w)
        kept_l.append(lab)
    return Annotation(tuple(kept_w), tuple(kept_l))


def _broken_tag(tokens: list[str], k: int, known) -> bool:
    """A tag gone wrong rather than a word: ``<>``, a label with one bracket (``<AP``, ``AP>``), or
    a label spaced inside its brackets (``< AP >``). Words such as ``x < y``, ``a -> b`` or ``<3``
    stay words."""
    token = tokens[k]
    if token == "<>" or token.lstrip("<").rstrip(">") in known and token not in known:
        return True
    if token == "<" and k + 2 < len(tokens):
        return tokens[k + 1] in known and tokens[k + 2] == ">"
    return False


def parse_inline(text: str, labelset: LabelSet | None = None) -> Annotation:
    labelset = labelset or LabelSet()
    words: list[str] = []
    labels: list[str] = []
    tagged: list[bool] = []
    known = labelset.levels_by_label
    if _GLUED.search(text):  # tags glued to words: "parents<IP>"
        text = _TAG.sub(r" <\1> ", text)
    tokens = text.split()
    for k, token in enumerate(tokens):
        if not (token[0] == "<" and token[-1] == ">" and len(token) > 2):
            if _broken_tag(tokens, k, known):
                raise InputError(f"malformed tag {token!r} in {text!r}; write tags as <LABEL>, no spaces inside")
            words.append(token)
            labels.append(labelset.none)
            tagged.append(False)
            continue
        label = token[1:-1]
        if label not in known:
            labelset.level(label)  # unknown labels are an error
        if not words:
            raise InputError(f"tag <{label}> comes before any word in {text!r}")
        if tagged[-1]:
            raise InputError(f"two tags after {words[-1]!r} in {text!r}")
        labels[-1] = label
        tagged[-1] = True
    if not words:
        raise InputError(f"no words in annotation {text!r}")
    return cleaned(words, labels, labelset)


def _final_end(labels: list[str], labelset: LabelSet) -> list[str]:
    if labels:
        labels[-1] = labelset.end
    return labels


def parse_tobi(text: str, label_map: LabelMap, labelset: LabelSet) -> Annotation:
    words, labels = [], []
    for token in text.split():
        word, sep, index = token.rpartition("|")
        if not sep or not word:
            raise InputError(f"ToBI token {token!r} is not word|index")
        words.append(word)
        labels.append(label_map(index))
    return cleaned(words, _final_end(labels, labelset), labelset)


def parse_mandarin(text: str, label_map: LabelMap, labelset: LabelSet) -> Annotation:
    words, labels = [], []
    for token in _CJK_TOKEN.findall(text):
        if re.fullmatch(r"#\d", token):
            if not words:
                raise InputError(f"prosody mark {token} comes before any character in {text!r}")
            labels[-1] = label_map(token)
        else:
            words.append(token)
            labels.append(labelset.none)
    return cleaned(words, _final_end(labels, labelset), labelset)


def parse_pause(text: str, label_map: LabelMap, labelset: LabelSet) -> Annotation:
    parts = re.split(r"<(\d+)>", text.strip())
    words, labels = [], []
    for k in range(0, len(parts), 2):
        chunk = parts[k].split()
        if not chunk:
            if k == 0:
                what = f"pause bucket <{parts[1]}> without a word before it"
            elif k == len(parts) - 1:
                what = f"pause bucket <{parts[k - 1]}> without a word after it"
            else:
                what = f"pause buckets <{parts[k - 1]}> and <{parts[k + 1]}> without a word between them"
            raise InputError(f"{what} in {text!r}")
        words += chunk
        labels += [labelset.none] * len(chunk)
        if k + 1 < len(parts):
            labels[-1] = label_map(parts[k + 1])
    return cleaned(words, _final_end(labels, labelset), labelset)


def parse_sequence(text: str, labelset: LabelSet) -> Annotation:
    if "\t" not in text:
        raise InputError(f"sequence annotation needs words, a tab, then labels: {text!r}")
    words_part, labels_part = text.split("\t", 1)
    words, labels = words_part.split(), labels_part.split()
    if len(words) != len(labels):
        raise InputError(f"{len(words)} words but {len(labels)} labels in {text!r}")
    for lab in labels:
        labelset.level(lab)
    return cleaned(words, labels, labelset)


def parse(
    text: str, fmt: str = "inline", *, labelset: LabelSet | None = None, label_map: LabelMap | None = None
) -> Annotation:
    """Parse one annotation written in ``fmt`` into canonical labels."""
    labelset = labelset or LabelSet()
    if fmt == "inline":
        return parse_inline(text, labelset)
    if fmt == "sequence":
        return parse_sequence(text, labelset)
    if fmt not in DEFAULT_MAPS:
        raise InputError(f"unknown annotation format {fmt!r}; choose one of {', '.join(FORMATS)}")
    mapping = label_map or DEFAULT_MAPS[fmt]
    if fmt in ("tobi", "k-tobi"):
        return parse_tobi(text, mapping, labelset)
    if fmt == "mandarin":
        return parse_mandarin(text, mapping, labelset)
    return parse_pause(text, mapping, labelset)


def format_as(annotation: Annotation, fmt: str, labelset: LabelSet | None = None) -> str:
    """Write canonical labels back out: ``inline`` or ``sequence`` (other conventions are read-only,
    since the canonical set cannot be mapped back to break indices without loss)."""
    if fmt == "inline":
        return annotation.inline(labelset)
    if fmt == "sequence":
        return " ".join(annotation.words) + "\t" + " ".join(annotation.labels)
    raise InputError(f"cannot write format {fmt!r}; write inline or sequence")
