"""LASER over two transcript files, as ``voxjudge asr score`` asks for it: one call.

``score_files(LaserFiles(ref, hyp, ...), judge, options)`` reads both files as they are used
(``io.streamed``: memory does not grow with the corpus), applies the normalizer to both sides,
scores with ``run_laser``, agrees with the human scores of a file when one is named, and writes
the per-utterance records, the HTML report and its figures together, whole or not at all. Every
output path, the normalizer and the human scores are checked before any work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from voxjudge.asr.laser.result import LaserResult
from voxjudge.asr.laser.run import LaserOptions, Progress, run_laser


@dataclass(frozen=True)
class LaserFiles:
    """What to read and where to write: the files of one ``score_files`` call."""

    ref: str
    hyp: str
    # how both files are read (``io.readers.scan_texts``): fmt "auto" goes by suffix (.tsv .csv
    # .jsonl), else line-aligned text, or Kaldi "id text" when ids is true; None (not said) reads
    # as False, and ``on_read`` may then warn that every line starts with an id
    fmt: str = "auto"
    ids: bool | None = None
    text_field: str = "text"
    id_field: str = "id"
    speaker_field: str | None = "speaker"
    normalize: str = "none"  # ``asr.normalize.get_normalizer`` spec, applied to both sides before alignment
    human: str | None = None  # human scores by id, agreed with (``io.scores.read_scores``)
    human_col: str = "score"
    out: str | None = None  # per-utterance records (.jsonl or .json)
    report: str | None = None  # self-contained HTML report
    figures: str | None = None  # directory for every chart of the report, as PDF and PNG

    @property
    def wants_report(self) -> bool:
        return bool(self.report or self.figures)


@dataclass(frozen=True)
class ScoredFiles:
    """What ``score_files`` gives back.

    - ``result``: the run's ``LaserResult``. With an offline judge its ``utterances`` (and so
      ``records``) are kept only when a report is asked for (``LaserFiles.report`` or
      ``LaserFiles.figures`` set); otherwise they are empty and the per-utterance records are in
      ``LaserFiles.out``, when named. An LLM judge's result keeps them always.
    - ``report``: the ``report.document.Report`` when a report or figures were asked for (None
      otherwise, and for a dry run).
    - ``texts``: each utterance's (reference, hypothesis) as read from the files (before the
      normalizer), read again from the files on every pass.
    """

    result: LaserResult
    report: Any  # ``report.document.Report`` when a report or figures were asked for, else None
    texts: Iterable[tuple[str, str]]  # (reference, hypothesis) as read, read again on every pass


def score_files(
    files: LaserFiles,
    judge: Any = "default",
    options: LaserOptions | None = None,
    *,
    progress: Progress | None = None,
    on_read: Callable[[Any], None] | None = None,
) -> ScoredFiles:
    """Score ``files.hyp`` against ``files.ref`` with ``judge`` (as ``run_laser`` takes it) and
    write what ``files`` names. A dry run (``options.dry_run``) writes nothing: its result holds
    the ``estimate``. ``on_read(paired)``: called once the files are paired, before any scoring
    (the CLI warns there about ids read as words).

    ``result.utterances`` and ``result.records`` are kept only when a report is asked for, i.e.
    when ``files.report`` or ``files.figures`` is set (``files.wants_report``); otherwise they are
    empty (the summary is all the result holds, and memory does not grow with the corpus) and the
    per-utterance records are written to ``files.out`` when it is set. An LLM judge holds every
    utterance anyway, and keeps them in the result whatever ``files`` asks for."""
    from voxjudge.asr.normalize import get_normalizer
    from voxjudge.io.writers import RecordStream, check_outputs, write_outputs

    given = options.calibration if options else None
    if hasattr(given, "sha256"):  # a CalibrationFile the caller read: the path it was read from
        given = None if given.source == "shipped" else given.source
    check_outputs(records=[files.out], files=[files.report], inputs=[files.ref, files.hyp, files.human, given])
    if files.wants_report:  # the charts need matplotlib: missing, it fails before any work
        from voxjudge.report.charts import require_matplotlib

        require_matplotlib()
    norm = get_normalizer(files.normalize)  # an unknown step fails before any work
    paired = _read(files)
    if on_read is not None:
        on_read(paired)
    human = None
    if files.human:  # read before the work: a bad file fails fast
        from voxjudge.io.scores import read_scores

        human = read_scores(files.human, files.human_col, column_setting="human_col")
    options = options or LaserOptions()
    records = RecordStream(files.out) if files.out and not options.dry_run else None
    report = None
    try:
        result = run_laser(
            paired=paired if norm is None else _Normalized(paired, norm),
            judge=judge,
            options=options,
            human=human,
            progress=progress,
            out=records,
            keep_utterances=files.wants_report,  # the report shows every pair; nothing else needs them
            meaning_rows=None if norm is None else paired,  # SemDist of the texts as given, in every command
        )
        if result.estimate is None:
            for named in (result.settings, result.summary):  # what the texts were scored after
                named["normalize"] = files.normalize
            if files.wants_report:
                from voxjudge.asr.laser.report import laser_report

                report = laser_report(result, {"ref": files.ref, "hyp": files.hyp, "human": files.human})
            write_outputs({files.out: records, **(report.outputs(files.report, files.figures) if report else {})})
    finally:
        if records is not None:
            records.discard()  # after write_outputs renamed it, there is nothing left to remove
    return ScoredFiles(result, report, _Texts(paired))


def _read(files: LaserFiles):
    """Both files paired, streamed when they are in the same order (``io.streamed.pair_files``)."""
    from voxjudge.io.readers import scan_texts
    from voxjudge.io.streamed import pair_files

    settings = {
        "fmt": files.fmt,
        "ids": files.ids,
        "text_field": files.text_field,
        "id_field": files.id_field,
        "speaker_field": files.speaker_field,
    }
    return pair_files(scan_texts(files.ref, **settings), scan_texts(files.hyp, **settings))


class _Normalized:
    """The utterances with the normalizer applied to both sides, as they are read (same length)."""

    def __init__(self, paired, norm):
        self.paired, self.norm = paired, norm

    def __len__(self) -> int:
        return len(self.paired)

    def __iter__(self):
        norm = self.norm
        return ((uid, norm(ref), norm(hyp)) for uid, ref, hyp in self.paired)


class _Texts:
    """(reference, hypothesis) of each utterance, read again on every pass."""

    def __init__(self, paired):
        self.paired = paired

    def __iter__(self):
        return ((ref, hyp) for _, ref, hyp in self.paired)
