"""ASR evaluation: alignment, classic error rates, normalization, comparison of two systems.

Names load on first use, so ``voxjudge.wer`` and ``compute_metrics`` never import the numpy
and scipy that only the comparison and its significance tests need.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Alignment": "voxjudge.asr.align",
    "AlignmentChunk": "voxjudge.asr.align",
    "WordPair": "voxjudge.asr.align",
    "align": "voxjudge.asr.align",
    "align_tokens": "voxjudge.asr.align",
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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'voxjudge.asr' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
