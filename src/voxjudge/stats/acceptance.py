"""Acceptance-rate tables: how often items were accepted, per group, with Wilson intervals."""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def _sort_key(label: Hashable) -> tuple:
    try:
        return (0, float(label), "")  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return (1, 0.0, str(label))


def acceptance_table(accepted: Sequence[bool], groups: Sequence[Hashable], *, confidence: float = 0.95) -> list[dict]:
    """One row per group (numeric labels in numeric order) and a final ``all`` row.

    Each row: ``group``, ``n``, ``accepted``, ``rate``, ``ci_low``, ``ci_high`` (Wilson score
    interval from scipy).
    """
    from scipy.stats import binomtest

    if len(accepted) != len(groups):
        raise ValueError(f"{len(accepted)} acceptance flags for {len(groups)} group labels")
    tally: dict[Hashable, list[int]] = {}
    for ok, g in zip(accepted, groups):
        cell = tally.setdefault(g, [0, 0])
        cell[0] += 1
        cell[1] += bool(ok)

    def row(label: Hashable, n: int, k: int) -> dict:
        ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson") if n else None
        return {
            "group": label,
            "n": n,
            "accepted": k,
            "rate": k / n if n else float("nan"),
            "ci_low": float(ci.low) if ci else float("nan"),
            "ci_high": float(ci.high) if ci else float("nan"),
        }

    rows = [row(g, n, k) for g, (n, k) in sorted(tally.items(), key=lambda kv: _sort_key(kv[0]))]
    rows.append(row("all", len(accepted), sum(bool(a) for a in accepted)))
    return rows
