"""Renderers shared by the commands and ``voxjudge demo``: summaries in, text out.

Each command renders its result with one of these, and the demo calls the same library
functions and the same renderers, so the demo shows exactly what the commands print (a test
holds them to it). Nothing here reads files or computes numbers.

One module per evaluator (``asr``, ``laser``, ``judge_card``, ``breaks``, ``pairwise``, ``stats``,
``studio``) and ``shared`` for what several use. Names load on first use, so a command imports
only its own renderers: ``from voxjudge.cli.views import render_laser``.
"""

from voxjudge._lazy import lazy_exports

_EXPORTS = {
    "render_metrics": "voxjudge.cli.views.asr",
    "render_compare": "voxjudge.cli.views.asr",
    "render_laser": "voxjudge.cli.views.laser",
    "render_agreement": "voxjudge.cli.views.laser",
    "render_calibration": "voxjudge.cli.views.laser",
    "render_judge_card": "voxjudge.cli.views.judge_card",
    "fmt_cover": "voxjudge.cli.views.judge_card",
    "render_breaks_summary": "voxjudge.cli.views.breaks",
    "render_pairwise_analysis": "voxjudge.cli.views.pairwise",
    "render_comparison": "voxjudge.cli.views.pairwise",
    "render_selection": "voxjudge.cli.views.pairwise",
    "render_winner": "voxjudge.cli.views.pairwise",
    "render_hit_rates": "voxjudge.cli.views.pairwise",
    "render_stats_agree": "voxjudge.cli.views.stats",
    "render_studio_export": "voxjudge.cli.views.studio",
    "render_join_coverage": "voxjudge.cli.views.shared",
    "render_written": "voxjudge.cli.views.shared",
    "render_case_punct_note": "voxjudge.cli.views.shared",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
