"""ASR evaluation: alignment, classic error rates, normalization, comparison of two systems.

Names load on first use, so ``voxjudge.wer`` and ``compute_metrics`` never import the numpy
and scipy that only the comparison and its significance tests need (nor does building the CLI)."""

from voxjudge._lazy import lazy_exports

_EXPORTS = {
    "Alignment": "voxjudge.asr.alignment",
    "AlignmentChunk": "voxjudge.asr.alignment",
    "WordPair": "voxjudge.asr.alignment",
    "align": "voxjudge.asr.alignment",
    "align_tokens": "voxjudge.asr.alignment",
    "Comparison": "voxjudge.asr.compare",
    "compare_systems": "voxjudge.asr.compare",
    "Confusions": "voxjudge.asr.confusions",
    "confusion_pairs": "voxjudge.asr.confusions",
    "ErrorCounts": "voxjudge.asr.measures",
    "MetricsResult": "voxjudge.asr.measures",
    "cer": "voxjudge.asr.measures",
    "compute_metrics": "voxjudge.asr.measures",
    "count_errors": "voxjudge.asr.measures",
    "total": "voxjudge.asr.measures",
    "wer": "voxjudge.asr.measures",
    "PRESETS": "voxjudge.asr.normalize",
    "STEPS": "voxjudge.asr.normalize",
    "Normalizer": "voxjudge.asr.normalize",
    "get_normalizer": "voxjudge.asr.normalize",
    "MapssweResult": "voxjudge.asr.significance",
    "mapsswe": "voxjudge.asr.significance",
    "Tokenizer": "voxjudge.asr.tokenize",
    "graphemes": "voxjudge.asr.tokenize",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
