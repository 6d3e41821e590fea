"""The command line's names for the library's settings: a library message that names a setting
(``InputError(..., options=...)``) is worded with the flag here before it is printed."""

from __future__ import annotations

from typing import Protocol

# setting (as the library names it in a message) -> how the command line spells it
FLAGS = {
    "allow_partial": "--allow-partial",
    "allow_rubric_mismatch": "--allow-rubric-mismatch",
    "base_url": "--base-url",
    "calibration": "--calibration",
    "group_column": "--group-col",
    "batch_size": "--batch-size",
    "confidence": "--confidence",
    "n_resamples": "--resamples",
    "ids": "--ids",
    "jobs": "--jobs",
    "judge": "--judge",
    "lang": "--lang",
    "label_map": "--label-map FILE",
    "max_align_minutes": "--max-align-minutes",
    "max_cost": "--max-cost",
    "engine_ray": "--engine ray",
    "human_col": "--human-col",
    "hyp": "--hyp",
    "metric": "--metric",
    "metric_col": "--metric-col",
    "methods": "--methods",
    "min_count": "--min-count",
    "n_fs": "--n-fs",
    "n_iter": "--n-iter",
    "no_cache": "--no-cache",
    "per_item": "--per-item",
    "timeout": "--timeout",
    "ratings_col": "--ratings-col",
    "rating_scale": "--rating-scale",
    "ratings_group_col": "--ratings-group-col",
    "ray_address": "--ray-address",
    "ray_workers": "--ray-workers ",
    "repeats": "--repeats",
    "requests_per_minute": "--rpm",
    "tokens_per_minute": "--tpm",
    "samples": "--samples ",
    "sampling_seed": "--sampling-seed",
    "draw_seed": "--draw-seed",
    "embedder": "--embedder",
    "embedder_base_url": "--embedder-base-url",
    "temperature": "--temperature",
    "text_field": "--text-col",
    "theta": "--theta",
}


class Worded(Protocol):
    def worded(self, names: dict[str, str]) -> str: ...


def worded(message: Worded) -> str:
    """A library message (an ``InputError``, an ``Advice``) as the command line says it."""
    return message.worded(FLAGS)
