"""Statistics: correlations with bootstrap CIs, paired bootstrap, acceptance tables."""

from voxjudge.stats.acceptance import acceptance_table
from voxjudge.stats.bootstrap import (
    BootstrapDifference,
    paired_bootstrap,
    resample_chunks,
)
from voxjudge.stats.correlation import METHODS, Correlation, correlate

__all__ = [
    "METHODS",
    "BootstrapDifference",
    "Correlation",
    "acceptance_table",
    "correlate",
    "paired_bootstrap",
    "resample_chunks",
]
