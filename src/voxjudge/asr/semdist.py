"""SemDist: how far a hypothesis's meaning is from its reference's (Kim et al., "Semantic Distance:
A New Metric for ASR Performance Analysis Towards Spoken Language Understanding", Interspeech 2021).

    semdist = 1 - cos(embed(reference), embed(hypothesis))

with sentence embeddings from an embedder (``voxjudge.llm.open_embedder``; unit vectors, so the
cosine is their dot product). 0 is the same meaning; it grows as the meaning drifts (at most 2).
Before embedding, both sides are NFC with runs of white space as one space, Arabic tashkeel
and tatweel removed (they are optional in writing, and ASR output rarely has them; an encoder
would read a vowelled reference as another text), invisible characters removed (zero-width
space, ZWJ/ZWNJ, word joiner, BOM, soft hyphen, direction marks and isolates, variation
selectors) after Malayalam's old chillu spelling (consonant + virama + ZWJ) is written as the
atomic chillu letter (the same letter), and a text without a letter or digit in any script
(only punctuation or symbols) is empty, as LASER reads it (and the error rates with
``--normalize`` removing punctuation; a bare "." was closer in meaning to a sentence than wrong
words were). Then:

* two identical texts are 0 without asking the model, two empty ones too;
* one empty side and one not is 1 (the cosine of a sentence with nothing), without asking;
* a text the embedder could not embed leaves its utterance without a distance (``failed`` says
  why): unscored, never guessed.

The corpus figure is the mean over the utterances with a distance.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from voxjudge.asr.lang import indic
from voxjudge.llm.errors import LLMError


class EmbedderFailed(LLMError):
    """The embedder could not embed every text a figure needs (the run stops: no fallback)."""


# Arabic short vowels, tanwin, shadda, sukun, dagger alef, Quranic marks and tatweel
_TASHKEEL = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]")


# Malayalam's chillu letters as Unicode 5.0 wrote them (consonant + virama + ZWJ), the same
# letter as the atomic chillu of 5.1 (ൻ): one form for both (the spelling fold's table, inverted)
_CHILLU = {full[0]: atomic for atomic, full in indic.CHILLU.items()}
_OLD_CHILLU = re.compile(f"([{''.join(_CHILLU)}])\u0d4d\u200d")
# invisible: zero-width space, (non-)joiners, word joiner, byte-order mark, soft hyphen, the
# direction marks and embeddings/isolates, variation selectors
_INVISIBLE = dict.fromkeys(
    [
        *map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f\u061c"),
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    ]
    + [*range(0xFE00, 0xFE10)]
)


def semdist_text(text: str) -> str:
    """What is embedded for ``text`` (see the module docstring)."""
    text = _OLD_CHILLU.sub(lambda m: _CHILLU[m.group(1)], unicodedata.normalize("NFC", text)).translate(_INVISIBLE)
    out = _TASHKEEL.sub("", " ".join(text.split()))
    return out if any(c.isalnum() for c in out) else ""  # no word: empty, as LASER reads it


@dataclass
class SemDist:
    """Distances per utterance (NaN where ``failed`` has the reason) and the embedder's usage."""

    distances: np.ndarray
    failed: dict[int, str] = field(default_factory=dict)
    embedder: str = ""
    usage: dict = field(default_factory=dict)
    server: str | None = None  # where an HTTP embedder's vectors came from (None: in-process)

    def value(self, k: int) -> float | None:
        d = float(self.distances[k])
        return None if d != d else d

    def mean(self) -> float | None:
        ok = self.distances[~np.isnan(self.distances)]
        return float(ok.mean()) if len(ok) else None


def semantic_distances(
    embedder,
    references: Sequence[str],
    hypotheses: Sequence[str],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> SemDist:
    """SemDist of every (reference, hypothesis) pair with ``embedder`` (an ``llm.Embedder``):
    only the texts of pairs that differ are embedded, each distinct text once."""
    return semantic_distances_many(embedder, references, [hypotheses], progress=progress)[0]


def semantic_distances_many(
    embedder,
    references: Sequence[str],
    systems: Sequence[Sequence[str]],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> list[SemDist]:
    """SemDist of several systems' hypotheses against the same references, with one embedding
    call for every distinct text of them all (a reference shared by systems is embedded once)."""
    refs, hyp_lists, outs, asked_lists, texts = _asked(references, systems)
    usage: dict = {}
    vectors, why = None, {}
    if texts:
        result = embedder.embed(texts, progress=progress)
        vectors, usage = result.vectors, dict(result.usage)
        why = {texts[i]: reason for i, reason in result.failed.items()}
    row = {t: i for i, t in enumerate(texts)}
    endpoint = getattr(embedder, "endpoint", None)  # (a bare backend in tests has none)
    server = endpoint() if endpoint is not None else None
    found = []
    for out, hyps, asked in zip(outs, hyp_lists, asked_lists):
        failed: dict[int, str] = {}
        if asked:
            a = np.array([row[refs[k]] for k in asked])
            b = np.array([row[hyps[k]] for k in asked])
            cos = np.einsum("ij,ij->i", vectors[a], vectors[b]).astype(float)  # type: ignore[index]
            out[asked] = np.clip(1.0 - cos, 0.0, 2.0)
            for k in asked:
                reason = why.get(refs[k]) or why.get(hyps[k])
                if reason:
                    out[k] = np.nan
                    failed[k] = reason
        found.append(SemDist(out, failed, embedder.spec, usage, server))
    return found


def _asked(references: Sequence[str], systems: Sequence[Sequence[str]]):
    """What SemDist must ask the embedder: the texts as embedded (``semdist_text``), each
    system's distances settled without a vector (0 for identical texts, 1 for one empty side;
    NaN for the others), the utterances that need one, and the distinct texts to embed."""
    refs = [semdist_text(t) for t in references]
    hyp_lists = [[semdist_text(t) for t in hyps] for hyps in systems]
    outs, asked_lists = [], []
    for hyps in hyp_lists:
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses for {len(refs)} references")
        out = np.full(len(refs), np.nan)
        asked: list[int] = []
        for k, (r, h) in enumerate(zip(refs, hyps)):
            if r == h:
                out[k] = 0.0
            elif not r or not h:
                out[k] = 1.0
            else:
                asked.append(k)
        outs.append(out)
        asked_lists.append(asked)
    texts = list(
        dict.fromkeys(t for hyps, asked in zip(hyp_lists, asked_lists) for k in asked for t in (refs[k], hyps[k]))
    )
    return refs, hyp_lists, outs, asked_lists, texts


def semdist_embedder(spec: str | None, base_url: str | None = None) -> str | None:
    """The embedder a SemDist entry takes (``compute_metrics``, ``compare_systems``): None for none
    (``llm.options.embedder_spec``), else the spec, checked with its server before any work
    (``parse_embedder_spec``: a spec or URL no request can go to), as ``run_laser`` opens its
    embedder before it scores."""
    from voxjudge.llm.options import embedder_spec

    spec = embedder_spec(spec)
    if spec:
        from voxjudge.llm.embed_registry import parse_embedder_spec

        parse_embedder_spec(spec, base_url)
    return spec


def estimate_semdist(
    spec: str,
    references: Sequence[str],
    systems: Sequence[Sequence[str]],
    *,
    base_url: str | None = None,
    options=None,
    before: Callable[[Any], object] | None = None,
) -> dict:
    """A dry run of ``compute_semdist``: what the embedder ``spec`` would be sent and cost
    (``Embedder.estimate``: distinct texts after the same dedup -- identical pairs and empty
    sides are never sent --, cached ones, requests, estimated tokens and cost), sending nothing
    and needing no key. ``before`` as ``compute_semdist`` takes it (a check that would refuse the
    run refuses its dry run too)."""
    from voxjudge.llm.options import open_embedder

    texts = _asked(references, systems)[-1]
    embedder = open_embedder(spec, base_url=base_url, options=options, dry_run=True)
    try:
        if before is not None:
            before(embedder)
        return embedder.estimate(texts)
    finally:
        embedder.close()


def compute_semdist(
    spec: str,
    references: Sequence[str],
    systems: Sequence[Sequence[str]],
    ids: Sequence[str],
    *,
    base_url: str | None = None,
    options=None,
    progress=None,
    before: Callable[[Any], object] | None = None,
) -> list[SemDist]:
    """Open the embedder ``spec`` (``llm.open_embedder``), take every system's SemDist and close
    it; a text it could not embed stops here (``EmbedderFailed`` names the utterance): a corpus
    figure over the others would be a figure of another corpus. ``progress`` as ``run_laser`` takes it.
    ``before(embedder)``: called once the embedder is open, before any text is sent (a check
    that raises stops the run before it pays for a call)."""
    from contextlib import nullcontext

    from voxjudge.asr.inputs import id_list, misfits_named, paired, texts
    from voxjudge.errors import InputError
    from voxjudge.llm.options import open_embedder

    if not isinstance(spec, str):
        raise InputError(f"the embedder is a spec such as 'default' or 'openai/<model>', not {spec!r}")
    systems = [] if isinstance(systems, str) else list(systems)
    if not systems or isinstance(systems[0], str):
        raise InputError("systems is a list of hypothesis lists, one per system: [hypotheses] for one system")
    references = texts(references, "references")
    systems = [paired(references, texts(h, f"systems[{k}]"))[1] for k, h in enumerate(systems)]
    ids = id_list(ids, len(references)) or [str(k + 1) for k in range(len(references))]
    embedder = open_embedder(spec, base_url=base_url, options=options)
    try:
        if before is not None:
            before(embedder)
        with (progress or (lambda _what: nullcontext(None)))(f"embedding sentences ({embedder.spec})") as update:
            named = {f"systems[{k}]": h for k, h in enumerate(systems)}
            with misfits_named(references=references, **named):  # a text that is not a str, named
                found = semantic_distances_many(embedder, references, systems, progress=update)
    finally:
        embedder.close()
    failing = [(k, sd) for k, sd in enumerate(found) if sd.failed]
    if failing:  # every system's count, and which system, where there are several (compare)
        k, sd = failing[0]
        where = f" of system {k + 1} of {len(found)}" if len(found) > 1 else ""
        others = sum(len(s.failed) for _, s in failing[1:])
        more = f" (and {others} of the other system{'s' if len(found) > 2 else ''})" if others else ""
        _stop_on_failed(sd, embedder.spec, ids, f"nothing was scored{more}", where)
    return found


def _stop_on_failed(sd: SemDist, spec: str, ids: Sequence[str], outcome: str, where: str = "") -> None:
    """``EmbedderFailed`` naming the first utterance the embedder could not embed, if any."""
    if sd.failed:
        k, reason = next(iter(sd.failed.items()))
        raise EmbedderFailed(
            f"the embedder {spec} could not embed {len(sd.failed)} utterance(s){where}, first {ids[k]}: {reason}; "
            f"{outcome}"
        )


def distances_for(embedder) -> Callable[..., np.ndarray]:
    """(references, hypotheses[, names]) -> distances, for fitting ``laser_calibrated`` (``asr
    train``). A text the embedder could not embed stops the fit (``EmbedderFailed``, naming the
    row by ``names``, else by its texts): a model fitted without it would be fitted on other data
    than the files say."""

    def distances(refs: Sequence[str], hyps: Sequence[str], names: Sequence[str] | None = None) -> np.ndarray:
        sd = semantic_distances(embedder, refs, hyps)
        if sd.failed:
            named = names if names is not None else [f"{r!r} / {h!r}" for r, h in zip(refs, hyps)]
            _stop_on_failed(sd, embedder.spec, named, "nothing was fitted")
        return sd.distances

    distances.takes_names = True  # type: ignore[attr-defined]
    return distances
