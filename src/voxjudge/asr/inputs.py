"""Texts and ids as the Python API's entry points take them, checked at the door: a list (or any
iterable: a generator is read once) of strings, references and hypotheses of one length.

A plain string where a list belongs would otherwise be read character by character, one
"utterance" each, and lists of different lengths would be cut to the shortest by ``zip``: both
are refused here, in the library's own words, before any work. A value that is not a string is
named when the work trips on it (``misfits_named``): scanning every text first cost 1-2% of
``asr metrics``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager

from voxjudge.errors import InputError, shown_value


def texts(values: Iterable[str], name: str) -> Sequence[str]:
    """``values`` as a list or tuple (a list if it was another iterable); ``name`` is how a message
    calls them ("references")."""
    if isinstance(values, str):
        raise InputError(f"{name} is one string: give a list of texts, one per utterance (e.g. [{values[:30]!r}])")
    if values is None:
        raise InputError(f"{name} is None: give a list of texts, one per utterance")
    if isinstance(values, (Mapping, AbstractSet)) or getattr(values, "ndim", 1) != 1:
        # a dict or a table would be read as its keys or column names, a set in no order
        raise InputError(f"{name} is a {type(values).__name__}: give a list of texts, one per utterance")
    if not isinstance(values, (list, tuple)):
        try:
            values = list(values)
        except TypeError:
            raise InputError(f"{name} is a {type(values).__name__}: give a list of texts") from None
    return values


def paired(references, hypotheses, ids=None) -> tuple[Sequence[str], Sequence[str], list | None]:
    """References and hypotheses (``texts``) of one length, and the ids as a list of one length
    with them (None stays None)."""
    references, hypotheses = texts(references, "references"), texts(hypotheses, "hypotheses")
    if len(references) != len(hypotheses):
        raise InputError(f"{len(references)} references but {len(hypotheses)} hypotheses: they must pair up")
    return references, hypotheses, id_list(ids, len(references))


def id_list(ids, n: int) -> list | None:
    """``ids`` as a list of ``n`` (None stays None)."""
    if ids is None:
        return None
    if isinstance(ids, str):
        raise InputError("ids is one string: give a list of ids, one per utterance")
    ids = list(ids)
    if len(ids) != n:
        raise InputError(f"{len(ids)} ids for {n} utterances: give one id per utterance")
    return ids


def string_ids(ids: list) -> list[str]:
    """Ids as strings, as a file's are read: ints (numpy's too) become their decimal strings;
    anything else that is not a string is refused."""
    if not set(map(type, ids)) - {str}:
        return ids
    out = []
    for k, value in enumerate(ids):
        if not isinstance(value, str):
            if isinstance(value, bool) or not hasattr(value, "__index__"):
                raise InputError(f"ids[{k}] is {_shown(value)}: an id is a str (or an int)")
            value = str(value.__index__())
        out.append(value)
    return out


@contextmanager
def misfits_named(**lists: Sequence) -> Iterator[None]:
    """Run the work; where it raises ``TypeError``, the first value of ``lists`` (name=values)
    that is not a string is named instead (``InputError``). Nothing is scanned otherwise."""
    try:
        yield
    except TypeError:
        for name, values in lists.items():
            for k, value in enumerate(values):
                if not isinstance(value, str):
                    raise InputError(f"{name}[{k}] is {_shown(value)}, not a text (str)") from None
        raise


def encodable(values: Sequence[str], name: str) -> None:
    """Refuse a text with a lone surrogate (``"\\\\ud800"``): no UTF-8 record can hold it. One
    encode of the joined texts; the loop runs only when it fails."""
    with misfits_named(**{name: values}):
        joined = "".join(values)
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        for k, value in enumerate(values):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as e:
                raise InputError(
                    f"{name}[{k}] has a lone surrogate ({value[e.start]!r} at character {e.start + 1}): "
                    "not valid Unicode text"
                ) from None


def _shown(value: object) -> str:
    """``None``, or the value's type and its repr cut short: ``float nan``."""
    return "None" if value is None else f"{type(value).__name__} {shown_value(value)}"


def unique_ids(ids: list[str]) -> list[str]:
    """``ids`` if no id repeats (records, human scores and semantic distances are found by id, as
    a file's ids are refused when repeated); else an ``InputError`` naming the first repeat."""
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        for k, uid in enumerate(ids):
            if uid in seen:
                raise InputError(f"ids[{k}] repeats the id {uid!r}: every utterance needs its own id")
            seen.add(uid)
    return ids
