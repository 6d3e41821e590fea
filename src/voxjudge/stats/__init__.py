"""Statistics: correlations with bootstrap CIs, agreement with human scores, paired bootstrap, acceptance tables."""

from voxjudge.stats.acceptance import acceptance_table
from voxjudge.stats.agreement import AgreementUndefined, agreement, check_agreement
from voxjudge.stats.bootstrap import (
    BootstrapDifference,
    paired_bootstrap,
    resample_chunks,
)
from voxjudge.stats.correlation import METHODS, Correlation, correlate

__all__ = [
    "METHODS",
    "AgreementUndefined",
    "BootstrapDifference",
    "Correlation",
    "acceptance_table",
    "agreement",
    "check_agreement",
    "correlate",
    "paired_bootstrap",
    "resample_chunks",
]
