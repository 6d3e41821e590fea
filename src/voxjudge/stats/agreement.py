"""Agreement of a metric with human scores: the one place that decides when it can be measured.

LASER (``asr score --human``), phrase breaks (``breaks score --human``) and ``stats agree`` all
call ``agreement``, so fewer than three items or a side whose scores are all equal get the same
answer everywhere: ``AgreementUndefined`` with one message, never NaN, a silent gap or a scipy
warning.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from voxjudge.errors import InputError
from voxjudge.plural import counted
from voxjudge.stats.bootstrap import DEFAULT_RESAMPLES
from voxjudge.stats.correlation import METHODS, Correlation, correlate

MIN_ITEMS = 3


class AgreementUndefined(InputError):
    """No correlation exists: too few items, a constant side, or a score that is not a number."""


def agreement(
    metric: Sequence[float],
    human: Sequence[float],
    methods: Sequence[str] = METHODS,
    *,
    metric_name: str = "metric",
    human_name: str = "human",
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[Correlation]:
    """Correlations of ``metric`` with ``human`` (paired by position), with bootstrap CIs.

    Raises ``AgreementUndefined`` when it cannot be measured; ``metric_name`` and ``human_name``
    name the two sides in that message (e.g. "LASER", or the file the scores came from).
    """
    if len(metric) != len(human):
        raise ValueError(f"{len(metric)} {metric_name} scores for {len(human)} human scores")
    check_agreement(metric, human, metric_name=metric_name, human_name=human_name)
    return correlate(metric, human, methods, n_resamples=n_resamples, confidence=confidence, seed=seed)


def check_agreement(
    metric: Sequence[float], human: Sequence[float], *, metric_name: str = "metric", human_name: str = "human"
) -> None:
    """Raise ``AgreementUndefined`` unless ``agreement`` can be computed for these scores."""
    reason = None
    if len(metric) < MIN_ITEMS:
        reason = f"only {counted(len(metric), 'scored item')}"
    else:
        for name, values in ((metric_name, metric), (human_name, human)):
            if not all(math.isfinite(v) for v in values):
                reason = f"a {name} score is not a finite number"
            elif len(set(values)) < 2:
                reason = f"the {name} scores are all equal ({counted(len(values), 'item')})"
            if reason:
                break
    if reason:
        raise AgreementUndefined(
            f"no agreement with human scores: {reason}; it needs at least {MIN_ITEMS} items "
            "whose metric and human scores both vary"
        )
