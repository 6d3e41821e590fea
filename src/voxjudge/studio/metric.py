"""A voxjudge results file against the humans collected so far (for the admin page).

Scores (``asr score --out``: ``laser``; ``breaks score --out``: ``score``, the first metric's; any id/score file)
are correlated with the humans' mean per item (Pearson, Spearman, Kendall, bootstrap CIs) and
plotted. Pairwise judgments (``pairwise judge --out``) are aggregated by the protocol and their
verdicts compared with the humans' plurality per dimension.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from voxjudge.errors import InputError

DEFAULT_COLUMN = {"asr-sentence": "laser", "breaks": "score"}
HUMAN_DIM = {"asr-sentence": "laser", "breaks": "score"}


def read_metric(task: str, path: str | Path, column: str | None = None) -> dict[str, Any]:
    """Metric values by item id (numbers, or per-dimension verdicts for pairwise)."""
    from voxjudge.io.readers import jsonl_objects

    if task == "pairwise":
        from voxjudge.pairwise.protocol import aggregate
        from voxjudge.pairwise.rubric import Rubric

        records = [obj for _, obj in jsonl_objects(path)]
        if not records or "pair_id" not in records[0] or "scores" not in records[0]:
            raise InputError(f"{path}: expected the records 'voxjudge pairwise judge' writes (pair_id, scores)")
        results = aggregate(records, Rubric.default())
        return {pid: {**r.verdicts, "overall": r.overall} for pid, r in results.items()}
    if task not in HUMAN_DIM:
        raise InputError(f"metric agreement is not available for the {task} task")
    column = column or DEFAULT_COLUMN[task]
    if Path(path).suffix.lower() in (".jsonl", ".ndjson"):
        rows = [(n, obj) for n, obj in jsonl_objects(path)]
    else:
        from voxjudge.io.scores import read_score_file

        ts = read_score_file(path, column=column, column_setting="metric_col")
        rows = [(r.line, {"id": r.id, column: r.text}) for r in ts.records]
    out = {}
    for n, obj in rows:
        value = obj.get(column)
        if value is None or value == "":
            continue  # unscored items have no value
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise InputError(f"{path}:{n}: {column} {value!r} is not a number") from None
        if math.isfinite(number):
            out[str(obj.get("id"))] = number
    if not out:
        raise InputError(
            f"{path}: no values in field {column!r} (choose it with {{metric_col}})", options={"metric_col": "column="}
        )
    return out


def compare(task: str, metric: dict[str, Any], consensus: dict[str, dict], *, n_resamples: int = 1000) -> dict:
    """Agreement of the metric with the human consensus so far, with an SVG plot."""
    from voxjudge.report.svg import grouped_bars, scatter

    if task == "pairwise":
        dims = ["C1", "C2", "C3", "C4", "overall"]
        acc: dict[str, Any] = {}
        for dim in dims:
            pairs = [(metric[i].get(dim), h[dim]) for i, h in consensus.items() if i in metric and h.get(dim)]
            pairs = [(m, h) for m, h in pairs if m not in (None, "abstain")]  # None: a dimension never measured
            acc[dim] = {"n": len(pairs), "accuracy": (sum(m == h for m, h in pairs) / len(pairs)) if pairs else None}
        svg = grouped_bars(
            dims,
            {"accuracy": [acc[d]["accuracy"] for d in dims]},
            title="Judge vs humans",
            x_label="dimension",
            y_label="accuracy",
        )
        return {"kind": "accuracy", "by_dimension": acc, "svg": svg}
    from voxjudge.stats import correlate

    dim = HUMAN_DIM[task]
    ids = [i for i, h in consensus.items() if i in metric and h.get(dim) is not None]
    if len(ids) < 3:
        return {"kind": "correlation", "n": len(ids), "correlations": [], "svg": None}
    xs = [consensus[i][dim] for i in ids]
    ys = [metric[i] for i in ids]
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return {"kind": "correlation", "n": len(ids), "correlations": [], "svg": None}
    corr = [c.as_dict() for c in correlate(ys, xs, n_resamples=n_resamples)]
    svg = scatter(
        xs,
        ys,
        title=f"Metric vs humans ({len(ids)} items)",
        x_label="human (mean)",
        y_label="metric",
        jitter=0.08 if task == "breaks" else 0.0,
    )
    return {"kind": "correlation", "n": len(ids), "correlations": corr, "svg": svg}
