"""Multi-reference phrase-break evaluation (LMRE): annotations, similarity, reference tables,
an LLM table builder, and scoring (best-reference EM/F1 and the count-weighted consensus) with
acceptance and agreement statistics."""

from voxjudge.breaks.annotation import FORMATS, Annotation, format_as, parse, parse_inline
from voxjudge.breaks.builder import BuildConfig, BuildReport, build_references
from voxjudge.breaks.files import read_annotations, read_human_scores, read_plain_texts
from voxjudge.breaks.labels import DEFAULT_LABELS, LabelMap, LabelSet
from voxjudge.breaks.result import LmreResult
from voxjudge.breaks.run import build_estimate, build_table, score_breaks
from voxjudge.breaks.scorer import DEFAULT_THETA, Metric, MetricScore, ScoredHypothesis, score_hypotheses
from voxjudge.breaks.similarity import Similarity
from voxjudge.breaks.summary import summarize
from voxjudge.breaks.table import ReferenceTable, merge

__all__ = [
    "DEFAULT_LABELS",
    "DEFAULT_THETA",
    "FORMATS",
    "Annotation",
    "BuildConfig",
    "BuildReport",
    "LabelMap",
    "LabelSet",
    "LmreResult",
    "Metric",
    "MetricScore",
    "ReferenceTable",
    "ScoredHypothesis",
    "Similarity",
    "build_estimate",
    "build_references",
    "build_table",
    "format_as",
    "merge",
    "parse",
    "parse_inline",
    "read_annotations",
    "read_human_scores",
    "read_plain_texts",
    "score_breaks",
    "score_hypotheses",
    "summarize",
]
