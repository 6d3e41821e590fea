"""LASER scoring as one call: ``run_laser(references, hypotheses, ids, judge=..., options=...)``.

The judge is a spec: an offline judge (``default``, ``rules``, ``model:PATH``) labels pairs in
this process; an LLM spec (``openai/<model>``, ``fake/<script>`` ...) is built here from
``options.llm`` (a ``JudgeOptions``: cache, limits, retries, engine) and closed when the run
ends, or the caller passes a ready ``Judge`` (and closes it). Everything a run needs is in
``LaserOptions``; the answer is a ``LaserResult`` -- for a dry run, one whose ``estimate`` says
what the run would send and cost (an LLM judge's requests, or an offline judge's embedder's, or
that an offline judge without one sends nothing), with nothing scored.
"""

from __future__ import annotations

import json
from collections import namedtuple
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voxjudge.asr.inputs import encodable, string_ids, unique_ids
from voxjudge.asr.inputs import paired as given_pairs
from voxjudge.asr.laser.record_json import run_fields
from voxjudge.asr.laser.result import LaserResult, laser_result
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.errors import InputError
from voxjudge.io.writers import RecordStream
from voxjudge.llm.options import JudgeOptions

if TYPE_CHECKING:
    from voxjudge.asr.laser.calibration_file import CalibrationFile

# progress("what is being done") -> a context yielding update(done, total) or None
Progress = Callable[[str], AbstractContextManager]


@dataclass(frozen=True)
class LaserOptions:
    """Everything a LASER run needs besides the texts and the judge (``run_laser``, ``score_files``).
    Frozen, and checked when built: a bad ``mode``, ``batch_size``, ``jobs``, ``n_resamples`` or
    ``confidence`` raises ``InputError``. The fields:

    Every judge:

    - ``lang``: the language of every text (``"hi"``, ``"en"`` ...; ``"en-US"``, ``"EN"`` and
      ``"en_US"`` are read as ``"en"``). None: decided once for the whole input from its first
      1000 utterances (``decide_language``), never per utterance, so a short line such as
      'Dr. Smith' is not scored in another language.
    - ``rubric``: the ``LaserRubric`` to score under; None: the shipped LASER rubric.
    - ``allow_rubric_mismatch``: use a learned model or a calibration trained under another rubric
      (False: refused with ``InputError``).
    - ``dry_run``: score nothing and send nothing; the result's ``estimate`` says what the run
      would send and cost (an LLM judge's requests, an offline judge's embedder's, or that an
      offline judge without an embedder sends nothing).

    LLM judges:

    - ``mode``: ``"pairs"`` (the aligned word pairs, sent in batches) or ``"sentence"`` (both
      sentences and their pairs, one request per utterance).
    - ``batch_size``: word pairs per request in pairs mode (default 32).
    - ``prefilter``: pairs the rules settle with certainty (identical, the same after the spelling
      fold, the same number) never reach the model (default True).
    - ``llm``: a ``voxjudge.llm.JudgeOptions`` for an LLM judge given as a spec (a ready ``Judge``
      brings its own), and for an offline judge's embedder: server, cache, rate and cost limits
      (``max_cost``), retries, engine (``"local"`` or ``"ray"``).

    Offline judges (``default``, ``rules``, ``model:PATH``) only:

    - ``jobs``: worker processes (None: one per core; the results are the same as with one). With
      ``llm.engine == "ray"`` leave it None: the chunks go to ``llm.ray_workers`` Ray actors.
    - ``embedder``: the embedder spec (``"default"``, ``"openai/<model>"``, ``"gemini/<model>"``,
      ``"fake/hash"`` ...) for SemDist per utterance and ``laser_calibrated`` with meaning. None
      (or ``"none"``): no SemDist, and ``laser_calibrated`` from the rubric score alone.
    - ``embedder_base_url``: the server the embedder calls, when it is not the spec's default.
    - ``calibration`` (the ``default`` and ``model:`` judges; the rules judge refuses one): a
      calibration file to use instead of the shipped one (per-language tiers, and a
      ``laser_calibrated`` model per embedder, as ``voxjudge asr train`` writes it) -- its path, or
      a ``CalibrationFile`` (``calibration_file.read_file``) read once for several runs.

    Agreement with human scores (``run_laser(..., human=...)``):

    - ``allow_partial``: False: every scored utterance needs a human score (else ``InputError``);
      True: the agreement is computed over the utterances that have one.
    - ``n_resamples``, ``confidence``, ``seed``: the bootstrap of the correlations' confidence
      intervals (default: 10,000 resamples, 95%, seed 0).
    """

    # None: decided once for the whole input, from its first SAMPLE utterances (``decide_language``);
    # never per utterance (a short line such as 'Dr. Smith' must not fall to another language)
    lang: str | None = None
    rubric: LaserRubric | None = None  # None: the shipped LASER rubric
    allow_rubric_mismatch: bool = False  # use a learned model trained under another rubric
    # LLM judges only
    mode: str = "pairs"  # pairs | sentence
    batch_size: int = 32  # pairs per request (pairs mode)
    prefilter: bool = True  # pairs the rules settle with certainty never reach the model
    dry_run: bool = False  # estimate the judge's or the embedder's requests, tokens and cost; send nothing
    llm: JudgeOptions = field(default_factory=JudgeOptions)
    # offline judges: worker processes (None: one per core; results identical to one process);
    # with ``llm.engine == "ray"`` the chunks go to ``llm.ray_workers`` Ray actors instead
    jobs: int | None = None
    # the agreement with human scores: every scored utterance needs one unless allow_partial
    allow_partial: bool = False
    n_resamples: int = 10_000
    confidence: float = 0.95
    seed: int = 0
    # meaning: SemDist per utterance, and laser_calibrated with meaning (None: neither)
    embedder: str | None = None  # default | openai/<model> | gemini/<model> | fake/hash ...
    embedder_base_url: str | None = None
    # the default and model: judges: a calibration file (``asr train --ratings/--preferences --out``:
    # tiers, and laser_calibrated per embedder) instead of the shipped one -- its path, or the
    # ``CalibrationFile`` a caller read once for several runs (asr judge-card: one per judge)
    calibration: str | Path | CalibrationFile | None = None

    def __post_init__(self) -> None:
        from voxjudge.llm.options import embedder_spec

        object.__setattr__(self, "embedder", embedder_spec(self.embedder))  # "none": no embedder
        if self.lang is not None:  # 'en-US', 'EN' and 'en_US' are English: its lists, not the generic ones
            from voxjudge.asr.laser.profiles import canonical

            object.__setattr__(self, "lang", canonical(self.lang) if self.lang else None)
        if self.mode not in ("pairs", "sentence"):
            raise InputError(f"mode is 'pairs' or 'sentence', not {self.mode!r}")
        for name, least in (("jobs", 1), ("batch_size", 1), ("n_resamples", 1)):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < least):
                raise InputError(
                    f"{{{name}}} must be a whole number of at least {least}, not {value!r}", options={name: name}
                )
        if not 0 < self.confidence < 1:
            raise InputError(
                f"{{confidence}} must be between 0 and 1 (e.g. 0.95), not {self.confidence!r}",
                options={"confidence": "confidence"},
            )


def _no_progress(_what: str) -> AbstractContextManager:
    return nullcontext(None)


def run_laser(
    references: Sequence[str] = (),
    hypotheses: Sequence[str] = (),
    ids: Sequence[str] | None = None,
    *,
    paired: Iterable[tuple[str, str, str]] | None = None,
    judge: Any = "default",
    options: LaserOptions | None = None,
    human: dict[str, float] | None = None,
    progress: Progress | None = None,
    out: str | Path | RecordStream | None = None,
    keep_utterances: bool = True,
    meaning_rows: Iterable[tuple[str, str, str]] | None = None,
) -> LaserResult:
    """LASER for a corpus: per-utterance scores, the summary, and the agreement with ``human``
    scores by id when given. ``judge``: a spec string or a ``voxjudge.llm.Judge``.

    ``paired``: the utterances as ``(id, reference, hypothesis)`` rows with a length instead of
    the three sequences -- e.g. ``io.streamed.PairedStream``, read from the files as offline
    judges score them (an LLM judge holds them all).

    ``out``: where the per-utterance records go as they are produced -- a path (written whole
    when the run ends) or a ``RecordStream`` the caller renames into place. Offline judges
    stream: with ``keep_utterances=False`` the result holds only the summary, and memory does not
    grow with the corpus.

    ``meaning_rows``: the rows SemDist embeds when they are not the scored ones -- the texts as
    given when ``paired`` is normalized, as ``asr metrics`` and ``asr compare`` embed them (same
    ids, same order); None: ``paired``."""
    from voxjudge.io.writers import RecordStream

    sink = RecordStream(out) if isinstance(out, (str, Path)) else out
    try:
        options = options or LaserOptions()
        result = _run(
            references, hypotheses, ids, paired, judge, options, human, progress, sink, keep_utterances, meaning_rows
        )
        if isinstance(out, (str, Path)):
            sink.commit()
    except BaseException:
        if isinstance(out, (str, Path)):
            sink.discard()
        raise
    return result


def _run(
    references, hypotheses, ids, paired, judge, options: LaserOptions, human, progress, sink, keep: bool, meaning_rows
):
    from dataclasses import replace

    from voxjudge.asr.laser.judges import check_embedder, is_offline, offline_labeler, people_model

    if not isinstance(options, LaserOptions):
        raise InputError(f"options is a LaserOptions(...), not a {type(options).__name__}")
    if not isinstance(judge, str) and not hasattr(judge, "spec"):
        raise InputError(f"judge is a spec such as 'default' or 'openai/<model>', or a Judge; not {judge!r}")
    if paired is None:
        references, hypotheses, ids = given_pairs(references, hypotheses, ids)
        encodable(references, "references")
        encodable(hypotheses, "hypotheses")
        ids = unique_ids(string_ids(ids)) if ids is not None else None
    elif len(references) or len(hypotheses) or ids is not None:
        raise InputError("give the utterances once: references, hypotheses and ids, or paired rows")
    elif isinstance(paired, (list, tuple)):  # rows given in memory (a file's reader refuses repeats itself)
        unique_ids(string_ids([row[0] for row in paired]))
    if human is not None:
        human = human_scores(human)
    if isinstance(judge, str) and is_offline(judge):  # before any input is read
        options.llm.unused_server(f"the offline judge {judge!r} calls none", embedder=bool(options.embedder))
    progress = progress or _no_progress
    rubric = options.rubric or LaserRubric.load()
    boot = _boot(options)
    spec = judge if isinstance(judge, str) else judge.spec.full_name
    if paired is not None and not options.lang:  # the sample read once, kept for the run (a stream may be one-shot)
        from itertools import chain, islice

        rows = iter(paired)
        sample = list(islice(rows, SAMPLE))
        paired = _Rows(chain(sample, rows), len(paired))
        lang, decided = decide_language(None, sample)
    else:
        lang, decided = decide_language(options.lang, zip(references, hypotheses))
    options = replace(options, lang=lang)
    engine = options.llm.engine if isinstance(judge, str) else ("ray" if judge.engine is not None else "local")
    settings: dict[str, Any] = {
        "judge": spec, "mode": "pairs", "lang": lang, "lang_decided": decided, "engine": engine, "embedder": "none"
    }  # fmt: skip
    if isinstance(judge, str) and is_offline(judge):
        if engine == "ray" and options.jobs is not None:
            raise InputError("jobs counts local worker processes; on Ray give llm=JudgeOptions(ray_workers=N)")
        calibration = _calibration_file(judge, options, settings)
        offline_labeler(  # fails fast
            judge, rubric, allow_rubric_mismatch=options.allow_rubric_mismatch, calibration=calibration
        )
        if paired is None:
            ids = list(ids) if ids is not None else [str(k + 1) for k in range(len(references))]
            paired = _Rows(list(zip(ids, references, hypotheses)), len(ids))
        if options.dry_run:
            return LaserResult(
                settings, [], {}, estimate=_offline_estimate(judge, paired, meaning_rows, options, calibration)
            )
        semdist = None
        if options.embedder:  # SemDist reads every row before scoring does: the rows are kept
            paired = _Rows(list(paired), len(paired))
            meaning = paired if meaning_rows is None else meaning_rows
            check = lambda embedder: check_embedder(judge, embedder, calibration)  # noqa: E731 -- before any paid call
            semdist, found = _semdist(meaning, options, progress, check)
            settings["embedder"] = found.embedder
            if found.server is not None:
                settings["embedder_server"] = found.server
            settings["embedder_usage"] = found.usage
        people = people_model(judge, settings["embedder"] if options.embedder else None, calibration)
        if people is not None:  # (the rules judge has none: no key, as no calibration)
            settings["laser_calibrated_model"] = people.describe()
        return _streamed(
            paired, judge, rubric, options, settings, human, progress, sink, keep, people, semdist, calibration
        )
    for name, judges, what in (
        ("embedder", "default, rules, model:PATH", "an LLM judge reads the meaning itself"),
        ("calibration", "default, model:PATH", "an LLM judge has none"),
    ):
        if getattr(options, name):
            raise InputError(
                f"{{{name}}} goes with the offline judges ({judges}); {what}",
                options={name: f"{name}="},
            )
    if paired is not None:
        ids, references, hypotheses = (list(c) for c in zip(*paired)) if len(paired) else ([], [], [])
    ids = list(ids) if ids is not None else [str(k + 1) for k in range(len(references))]
    owned = isinstance(judge, str)
    llm = options.llm.judge(judge, dry_run=options.dry_run) if owned else judge
    # the model-judged run, its dry run and its recorded settings use the same options
    llm_options = {"mode": options.mode, "batch_size": options.batch_size, "prefilter": options.prefilter}
    try:
        if options.dry_run:
            from voxjudge.asr.laser.llm_judges import planned_laser_requests

            requests = planned_laser_requests(references, hypotheses, ids, rubric, lang=options.lang, **llm_options)
            return LaserResult(settings, [], {}, estimate=llm.estimate(requests))
        from voxjudge.asr.laser.llm_judges import score_with_llm

        settings.update(judge=llm.spec.full_name, **llm_options)
        with progress(f"asking {llm.spec.name}") as update:
            utterances, extra = llm.run(
                score_with_llm(
                    llm, references, hypotheses, ids, rubric, lang=options.lang, progress=update, **llm_options
                )
            )
        extra["usage"] = llm.meter.as_dict()
    finally:
        if owned:
            llm.close()
    if sink is not None:
        run = run_fields(settings)
        sink.write_lines([json.dumps(u.as_dict(run), ensure_ascii=False) + "\n" for u in utterances])
    return laser_result(utterances, rubric, settings, extra, human=human, **boot)


def human_scores(human) -> dict[str, float]:
    """``human`` (scores by id) checked: a mapping of real numbers."""
    from collections.abc import Mapping
    from numbers import Real

    if not isinstance(human, Mapping):
        raise InputError(f"human is a dict of scores by id ({{'u1': 4.5, ...}}), not a {type(human).__name__}")
    for key, value in human.items():
        if not isinstance(value, Real) or isinstance(value, bool):
            raise InputError(f"human[{key!r}] is {value!r}: a human score is a number")
    return {str(k): v for k, v in human.items()}


SAMPLE = 1000  # utterances the input's language is detected from (both sides)


def decide_language(lang: str | None, rows: Iterable) -> tuple[str, str]:
    """(language, how it was decided) for a whole input: ``lang`` when given, else detected once
    from the first ``SAMPLE`` rows (``(id, ref, hyp)`` or ``(ref, hyp)``), script first, then
    function-word votes in Latin script. Every utterance is then scored in that language."""
    if lang:
        return lang, "given"
    from itertools import islice

    from voxjudge.asr.laser.profiles import explain

    texts, n = [], 0
    for row in islice(iter(rows), SAMPLE):
        texts += row[-2:]
        n += 1
    found, why = explain(" ".join(texts))
    first = f"the first {n} utterances" if n == SAMPLE else f"all {n} utterances" if n != 1 else "its one utterance"
    return found, f"detected from the file ({first}): {why}"


class _Rows:
    """Rows with a length (what ``_streamed`` reads)."""

    def __init__(self, rows: Iterable[tuple[str, str, str]], n: int):
        self.rows, self.n = rows, n

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        return iter(self.rows)


def _calibration_file(judge: str, options: LaserOptions, settings: dict):
    """The calibration file given (read once here; None: the judge's own), named in the summary."""
    from voxjudge.asr.laser.calibration_file import CalibrationFile, read_file

    given = options.calibration
    if given is not None and not isinstance(given, CalibrationFile):
        given = read_file(given)
    if judge != "rules":
        settings["calibration"] = given.describe() if given else "shipped (models/evidence.json)"
        if given:
            settings["calibration_sha256"] = given.sha256
    return given


def _offline_estimate(judge: str, paired, meaning_rows, options: LaserOptions, calibration) -> dict[str, Any]:
    """A dry run with an offline judge: the judge sends nothing; the embedder, when there is one,
    is estimated as SemDist would ask it (``asr.semdist.estimate_semdist``), after the check that
    would refuse the real run before its first call."""
    from voxjudge.asr.laser.judges import check_embedder

    estimate: dict[str, Any] = {"judge": judge, "requests": 0}
    if not options.embedder:
        estimate["note"] = (
            f"nothing to send: the {judge} judge runs on this machine and no embedder is given; nothing was scored"
        )
        return estimate
    from voxjudge.asr.semdist import estimate_semdist

    refs, hyps = [], []
    for _, ref, hyp in paired if meaning_rows is None else meaning_rows:
        refs.append(ref)
        hyps.append(hyp)
    estimate["embedder"] = estimate_semdist(
        options.embedder,
        refs,
        [hyps],
        base_url=options.embedder_base_url,
        options=options.llm,
        before=lambda embedder: check_embedder(judge, embedder, calibration),
    )
    return estimate


def _semdist(paired, options: LaserOptions, progress, before):
    """SemDist by id for every row (read once more), and the ``SemDist`` (spec, server, usage); an embedder
    that cannot embed a text stops the run before anything is scored (no figure without it)."""
    from voxjudge.asr.semdist import compute_semdist

    ids, refs, hyps = [], [], []
    for uid, ref, hyp in paired:
        ids.append(uid)
        refs.append(ref)
        hyps.append(hyp)
    (found,) = compute_semdist(
        options.embedder,
        refs,
        [hyps],
        ids,
        base_url=options.embedder_base_url,
        options=options.llm,
        progress=progress,
        before=before,
    )
    unique_ids(ids)  # (whatever gave the rows: the distances are found by id)
    return {uid: found.value(k) for k, uid in enumerate(ids)}, found


def _streamed(
    paired, judge, rubric, options, settings, human, progress, sink, keep, people=None, semdist=None, calibration=None
):
    """An offline judge over chunks (``stream.py``, ``parallel.py``): records to ``sink`` as they come, the
    summary tallied, per-utterance figures kept only for the agreement with ``human``."""
    from voxjudge.asr.laser.stream import StreamSettings
    from voxjudge.asr.laser.tally import LaserTally

    stream = StreamSettings(
        judge,
        rubric,
        options.lang,
        options.allow_rubric_mismatch,
        records=sink is not None,
        scores=human is not None,
        keep=keep,
        people=people,
        semdist=semdist,
        calibration=calibration,
        embedder=settings["embedder"],
    )
    tally, figures, utterances, done = LaserTally(), [], [], 0
    on = " on Ray" if settings["engine"] == "ray" else ""
    with progress(f"labelling word pairs ({judge}{on})") as update:
        total = len(paired)
        for chunk in _chunk_results(paired, stream, options, total):
            if sink is not None:
                chunk.write_records(sink)
            tally.add_part(chunk.tally)
            figures += map(_Figures._make, chunk.scores)
            utterances += chunk.utterances
            done += chunk.tally.utterances
            if update is not None:
                update(done, total)
    boot = _boot(options)
    summary = tally.summary(rubric)
    return laser_result(utterances, rubric, settings, {}, human=human, summary=summary, figures=figures, **boot)


def _chunk_results(paired, stream, options: LaserOptions, total: int):
    """Scored chunks in input order: from local worker processes, or from Ray actors when
    ``options.llm.engine == "ray"``."""
    llm = options.llm
    if llm.engine == "ray":
        from voxjudge.asr.laser.ray_chunks import score_chunks_on_ray

        return score_chunks_on_ray(paired, stream, workers=llm.ray_workers, address=llm.ray_address, total=total)
    from voxjudge.asr.laser.parallel import default_jobs, score_chunks

    jobs = options.jobs if options.jobs is not None else default_jobs()
    return score_chunks(paired, stream, jobs=jobs, total=total)


# what the agreement with human scores needs
_Figures = namedtuple("_Figures", "id laser wer laser_calibrated semdist")


def _boot(options: LaserOptions) -> dict[str, Any]:
    return {
        "n_resamples": options.n_resamples,
        "confidence": options.confidence,
        "seed": options.seed,
        "allow_partial": options.allow_partial,
    }
