"""voxjudge: evaluate speech systems the way careful human raters would.

The public API is imported lazily so that ``import voxjudge`` stays fast and pulls in
no numerical or optional packages until a name is used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    # errors
    "VoxjudgeError": "voxjudge.errors",
    "InputError": "voxjudge.errors",
    # classic ASR metrics
    "ErrorCounts": "voxjudge.asr.measures",
    "MetricsResult": "voxjudge.asr.measures",
    "compute_metrics": "voxjudge.asr.measures",
    "wer": "voxjudge.asr.measures",
    "cer": "voxjudge.asr.measures",
    "align": "voxjudge.asr.alignment",
    "Tokenizer": "voxjudge.asr.tokenize",
    "Normalizer": "voxjudge.asr.normalize",
    "get_normalizer": "voxjudge.asr.normalize",
    "compare_systems": "voxjudge.asr.compare",
    # statistics
    "correlate": "voxjudge.stats.correlation",
    "agreement": "voxjudge.stats.agreement",
    "paired_bootstrap": "voxjudge.stats.bootstrap",
    "acceptance_table": "voxjudge.stats.acceptance",
    # I/O
    "read_texts": "voxjudge.io.readers",
    "pair_texts": "voxjudge.io.matching",
    "join_by_id": "voxjudge.io.join",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'voxjudge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
