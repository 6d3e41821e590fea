"""Pairwise inputs: clip pairs with optional human labels, and candidate sets for best-of-N.

Pairs (JSONL): ``pair_id``, ``text``, ``audio_a``, ``audio_b``; ``text_a`` / ``text_b`` may stand
for ``text`` but must then be the same text (a prosody pair is two renditions of one text, and
differing texts are an error); optionally ``human`` (labels "A",
"B" or "tie", in any case, under ``overall`` and per dimension id), ``human_confident`` (the dimensions whose
human label is confident), ``system_a`` / ``system_b`` (which system made each clip; "human"
for a recording, used for curriculum tags). Candidate sets (JSONL): ``set_id``, ``text``,
``candidates`` (audio paths) and optionally ``human_topk`` (paths or 0-based indices, best first).
Relative audio paths are taken from the JSONL file's folder.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError
from voxjudge.io.readers import jsonl_objects

LABELS = ("A", "B", "tie")
_LABEL = {label.lower(): label for label in LABELS}  # "a", "b", "TIE" are the same labels


@dataclass(frozen=True)
class Pair:
    pair_id: str
    text: str
    audio_a: Path
    audio_b: Path
    human: dict[str, str] = field(default_factory=dict)
    human_confident: tuple[str, ...] = ()
    system_a: str | None = None
    system_b: str | None = None


@dataclass(frozen=True)
class CandidateSet:
    set_id: str
    text: str
    candidates: tuple[Path, ...]
    human_topk: tuple[int, ...] = ()


def _path(base: Path, value: Any, where: str, check: bool) -> Path:
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: audio paths must be non-empty strings")
    p = Path(value)
    p = p if p.is_absolute() else base / p
    if check and not p.is_file():
        raise InputError(f"{where}: audio file {p} not found")
    return p


def _pair_text(obj: dict[str, Any], where: str) -> str:
    """The pair's one text; ``text_a`` / ``text_b`` / ``text`` that differ are an error."""
    given = {k: str(obj[k]) for k in ("text", "text_a", "text_b") if obj.get(k) is not None}
    if not given:
        raise InputError(f"{where}: missing field 'text' (a pair needs pair_id, text, audio_a, audio_b)")
    distinct = {" ".join(t.split()) for t in given.values()}
    if len(distinct) > 1:
        shown = "; ".join(f"{k}={v!r}" for k, v in given.items())
        raise InputError(
            f"{where}: the clips have different texts ({shown}); a pair compares two renditions of one text"
        )
    return next(iter(given.values()))


def _label_key(key: Any, known: dict[str, str], where: str, field: str) -> str:
    """A human label's key as the rubric writes it (any case); an unknown one is an error, not a
    label silently never compared."""
    if not isinstance(key, str) or key.lower() not in known:
        names = ", ".join(k for k in known.values() if k != "overall")
        raise InputError(f"{where}: {field} {key!r} is {'neither overall nor ' if 'overall' in known else 'not '}"
                         f"a dimension of the rubric ({names})")  # fmt: skip
    return known[key.lower()]


def read_pairs(
    path: str | Path, *, check_audio: bool = True, dimensions: Sequence[str] | None = None, labels: bool = True
) -> list[Pair]:
    """``dimensions``: the ids human labels may name besides ``overall`` (any case; default: the
    shipped rubric's). ``labels=False``: human labels are left out unread (a reader that discards
    them, such as the studio, takes a file labelled under any rubric)."""
    if dimensions is None:
        from voxjudge.pairwise.rubric import Rubric

        dimensions = Rubric.default().ids
    known = {d.lower(): d for d in dimensions}
    base = Path(path).parent
    pairs, seen = [], {}
    for n, obj in jsonl_objects(path):
        where = f"{path}:{n}"
        for key in ("pair_id", "audio_a", "audio_b"):
            if key not in obj:
                raise InputError(f"{where}: missing field {key!r} (a pair needs pair_id, text, audio_a, audio_b)")
        pid = str(obj["pair_id"])
        text = _pair_text(obj, f"{where}: pair {pid!r}")
        if pid in seen:
            raise InputError(f"{where}: duplicate pair_id {pid!r} (first on line {seen[pid]})")
        seen[pid] = n
        human = (obj.get("human") or {}) if labels else {}
        if not isinstance(human, dict) or any(str(v).lower() not in _LABEL for v in human.values()):
            raise InputError(f'{where}: human labels must be an object of "A", "B" or "tie" (any case)')
        keys = {**known, "overall": "overall"}
        pair_at = f"{where}: pair {pid!r}"
        human = {_label_key(k, keys, pair_at, "human label"): _LABEL[str(v).lower()] for k, v in human.items()}
        confident = (obj.get("human_confident") or []) if labels else []
        if not isinstance(confident, list):
            raise InputError(f"{pair_at}: human_confident must be a list of dimension ids")
        # the studio's exports list "overall" too when every annotator chose the same side
        confident = [_label_key(k, keys, pair_at, "human_confident entry") for k in confident]
        pairs.append(
            Pair(
                pid,
                text,
                _path(base, obj["audio_a"], where, check_audio),
                _path(base, obj["audio_b"], where, check_audio),
                {str(k): v for k, v in human.items()},
                tuple(confident),
                obj.get("system_a"),
                obj.get("system_b"),
            )
        )
    if not pairs:
        raise InputError(f"{path}: no pairs found")
    return pairs


def read_candidate_sets(path: str | Path, *, check_audio: bool = True) -> list[CandidateSet]:
    base = Path(path).parent
    sets = []
    for n, obj in jsonl_objects(path):
        where = f"{path}:{n}"
        cands = obj.get("candidates")
        if "set_id" not in obj or not isinstance(cands, list) or len(cands) < 2:
            raise InputError(f"{where}: a candidate set needs set_id and a list of at least two candidates")
        paths = tuple(_path(base, c, where, check_audio) for c in cands)
        first_at: dict[str, int] = {}
        for k, p in enumerate(paths):  # a clip against itself is no comparison, and wins twice
            j = first_at.setdefault(os.path.realpath(p), k)
            if j != k:
                raise InputError(
                    f"{where}: set {str(obj['set_id'])!r} lists candidate {cands[k]!r} twice (candidates {j} and "
                    f"{k}); give each candidate once"
                )
        topk = []
        for t in obj.get("human_topk") or []:
            if isinstance(t, int) and 0 <= t < len(paths):
                topk.append(t)
            elif isinstance(t, str) and t in cands:
                topk.append(cands.index(t))
            else:
                raise InputError(f"{where}: human_topk entry {t!r} is neither a candidate nor its index")
        sets.append(CandidateSet(str(obj["set_id"]), str(obj.get("text", "")), paths, tuple(topk)))
    if not sets:
        raise InputError(f"{path}: no candidate sets found")
    return sets
