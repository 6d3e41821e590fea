"""``stats agree`` as one library call: read a metric file and a human file, join them by id
(``voxjudge.io.join``), and compute the agreement with bootstrap CIs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError
from voxjudge.stats.bootstrap import DEFAULT_RESAMPLES
from voxjudge.stats.correlation import METHODS, Correlation


@dataclass
class FileAgreement:
    """Correlations over the matched items, and how the two files matched."""

    n: int
    correlations: list[Correlation]
    coverage: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)

    def view(self) -> dict[str, Any]:
        """What ``--json`` prints: coverage first (it says what the numbers cover)."""
        return {
            "coverage": self.coverage,
            "n": self.n,
            "correlations": [c.as_dict() for c in self.correlations],
            "settings": self.settings,
        }


def agree_files(
    metric_path: str | Path,
    human_path: str | Path,
    *,
    methods: Sequence[str] = METHODS,
    metric_col: str = "score",
    human_col: str = "score",
    id_col: str = "id",
    allow_partial: bool = False,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> FileAgreement:
    """Agreement of the scores in ``metric_path`` with those in ``human_path``. Files with ids are
    joined by id (``allow_partial``: the ids both have); line-aligned files by line, and then
    they must have the same number of lines."""
    from voxjudge.io.join import Joined, JoinSide, join_by_id
    from voxjudge.io.scores import paired_scores, read_score_file, to_float
    from voxjudge.stats.agreement import agreement

    methods = list(dict.fromkeys(m.strip().lower() for m in methods if m.strip()))  # each once, in order
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise InputError(
            f"{{methods}}: unknown {', '.join(unknown) or '(none given)'}; choose from {', '.join(METHODS)}",
            options={"methods": "methods"},
        )
    metric = read_score_file(metric_path, column=metric_col, id_field=id_col, column_setting="metric_col")
    human = read_score_file(human_path, column=human_col, id_field=id_col, column_setting="human_col")
    if metric.has_ids and human.has_ids:
        joined = join_by_id(
            ((r.id, r.text) for r in metric.records),
            ((r.id, r.text) for r in human.records),
            left_name=str(metric_path),
            right_name=str(human_path),
            allow_partial=allow_partial,
        )
        ids = joined.ids
        xs = [to_float(metric, i, t) for i, t in zip(ids, joined.left)]
        ys = [to_float(human, i, t) for i, t in zip(ids, joined.right)]
        coverage = joined.coverage()
    else:  # line-aligned: a line number is no id, so there is no partial join to make
        if metric.has_ids != human.has_ids:  # (the text readers' advice is about transcripts, not scores)
            with_ids, without = (metric_path, human_path) if metric.has_ids else (human_path, metric_path)
            raise InputError(
                f"{with_ids} has ids but {without} does not: give both score files ids ('id score' per line, "
                "or an id column) or neither (one number per line, matched by line)"
            )
        ids, xs, ys = paired_scores(metric, human)
        n = len(ids)
        sides = JoinSide(str(metric_path), n, n), JoinSide(str(human_path), n, n)
        coverage = Joined(ids, xs, ys, *sides, allow_partial=allow_partial).coverage()
    correlations = agreement(
        xs,
        ys,
        methods,
        metric_name=str(metric_path),
        human_name=str(human_path),
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )
    settings = {
        "metric": str(metric_path),
        "human": str(human_path),
        "metric_col": metric_col,
        "human_col": human_col,
        "id_col": id_col,
        "methods": list(methods),
        "allow_partial": allow_partial,
        "bootstrap": {"resamples": n_resamples, "confidence": confidence, "seed": seed},
    }
    return FileAgreement(len(ids), correlations, coverage, settings)


__all__ = ["FileAgreement", "agree_files"]
