"""Texts and ids as the Python API's entry points take them, checked once at the door: a list (or
any iterable: a generator is read once) of strings, references and hypotheses of one length.

A plain string where a list belongs would otherwise be read character by character, one
"utterance" each, and lists of different lengths would be cut to the shortest by ``zip``: both
are refused here, in the library's own words, before any work."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from voxjudge.errors import InputError


def texts(values: Iterable[str], name: str) -> Sequence[str]:
    """``values`` as a list or tuple of strings (a list if it was another iterable); ``name`` is how
    a message calls them ("references")."""
    if isinstance(values, str):
        raise InputError(f"{name} is one string: give a list of texts, one per utterance (e.g. [{values[:30]!r}])")
    if values is None:
        raise InputError(f"{name} is None: give a list of texts, one per utterance")
    if not isinstance(values, (list, tuple)):
        try:
            values = list(values)
        except TypeError:
            raise InputError(f"{name} is a {type(values).__name__}: give a list of texts") from None
    if set(map(type, values)) - {str}:  # (one pass in C; the loop below runs only on a misfit)
        for k, value in enumerate(values):
            if not isinstance(value, str):
                raise InputError(f"{name}[{k}] is {_shown(value)}, not a text (str)")
    return values


def paired(references, hypotheses, ids=None) -> tuple[Sequence[str], Sequence[str], list[str] | None]:
    """References and hypotheses (``texts``) of one length, and the ids (None stays None; int ids
    become their decimal strings, as a file's ids are read)."""
    references, hypotheses = texts(references, "references"), texts(hypotheses, "hypotheses")
    if len(references) != len(hypotheses):
        raise InputError(f"{len(references)} references but {len(hypotheses)} hypotheses: they must pair up")
    if ids is None:
        return references, hypotheses, None
    if isinstance(ids, str):
        raise InputError("ids is one string: give a list of ids, one per utterance")
    ids = list(ids)
    if len(ids) != len(references):
        raise InputError(f"{len(ids)} ids for {len(references)} utterances: give one id per utterance")
    if set(map(type, ids)) - {str}:
        ids = [str(i) if type(i) is int else i for i in ids]
        for k, value in enumerate(ids):
            if not isinstance(value, str):
                raise InputError(f"ids[{k}] is {_shown(value)}: an id is a str (or an int)")
    return references, hypotheses, ids


def _shown(value: object) -> str:
    """``None``, or the value's type and its repr cut short: ``float nan``."""
    if value is None:
        return "None"
    text = repr(value)
    return f"{type(value).__name__} " + (text if len(text) <= 40 else text[:40] + "...")


def encodable(values: Sequence[str], name: str) -> None:
    """Refuse a text with a lone surrogate (``"\\ud800"``): no UTF-8 record can hold it. One
    encode of the joined texts; the loop runs only when it fails."""
    try:
        "".join(values).encode("utf-8")
    except UnicodeEncodeError:
        for k, value in enumerate(values):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as e:
                raise InputError(
                    f"{name}[{k}] has a lone surrogate ({value[e.start]!r} at character {e.start + 1}): "
                    "not valid Unicode text"
                ) from None
