"""Mean opinion scores (ITU-T P.800 ACR, 1-5) per clip and per system, with 95% confidence
intervals, from the ratings of the raters screening kept. Gold and training clips are left out.

The interval is Student's t over the ratings (mean ± t(0.975, n-1) · s / √n), as P.800 results
are usually reported; a clip with one rating has no interval.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any


def mean_ci(xs: list[float], confidence: float = 0.95) -> dict[str, Any]:
    from scipy import stats

    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return {"mos": mean, "ci_low": None, "ci_high": None, "sd": None, "n": n}
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return {"mos": mean, "ci_low": mean - half, "ci_high": mean + half, "sd": sd, "n": n}


def mos_table(answers: list[dict[str, Any]], systems: dict[str, str], drop: set[str]) -> dict[str, Any]:
    """Per clip and per system MOS. ``systems``: item id -> system name ('' when the items file has none)."""
    clips: dict[str, list[int]] = defaultdict(list)
    for a in answers:
        if a["status"] != "answered" or a["repeat"] or a.get("role") != "item" or a["annotator"] in drop:
            continue
        clips[a["item_id"]].append(int(a["answer"]["score"]))
    per_clip = {uid: {**mean_ci(xs), "system": systems.get(uid, "")} for uid, xs in clips.items()}
    pooled: dict[str, list[int]] = defaultdict(list)
    n_clips: dict[str, int] = defaultdict(int)
    for uid, xs in clips.items():
        pooled[systems.get(uid, "")].extend(xs)
        n_clips[systems.get(uid, "")] += 1
    per_system = {s: {**mean_ci(xs), "clips": n_clips[s]} for s, xs in sorted(pooled.items())}
    return {"clips": per_clip, "systems": per_system}
