"""ASR evaluation: alignment, classic error rates, normalization, comparison of two systems."""

from voxjudge.asr.align import Alignment, AlignmentChunk, WordPair, align, align_tokens
from voxjudge.asr.compare import Comparison, compare_systems
from voxjudge.asr.confusions import Confusions, confusion_pairs
from voxjudge.asr.measures import (
    ErrorCounts,
    MetricsResult,
    cer,
    compute_metrics,
    count_errors,
    total,
    wer,
)
from voxjudge.asr.normalize import PRESETS, STEPS, Normalizer, get_normalizer
from voxjudge.asr.significance import MapssweResult, mapsswe
from voxjudge.asr.tokenize import Tokenizer, graphemes

__all__ = [
    "PRESETS",
    "STEPS",
    "Alignment",
    "AlignmentChunk",
    "Comparison",
    "Confusions",
    "ErrorCounts",
    "MapssweResult",
    "MetricsResult",
    "Normalizer",
    "Tokenizer",
    "WordPair",
    "align",
    "align_tokens",
    "cer",
    "compare_systems",
    "compute_metrics",
    "confusion_pairs",
    "count_errors",
    "get_normalizer",
    "graphemes",
    "mapsswe",
    "total",
    "wer",
]
