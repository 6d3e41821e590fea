"""A rubric's conventions for one language, looked up by language (and rubric file) and cached:
what the rules use when their caller passes none.

The conventions themselves (variant classes, verb endings, the calibration) are defined in
``lang_conventions.py``, below the rubric that carries them; this lookup stands above both, so
neither imports the other in a loop.
"""

from __future__ import annotations

from functools import lru_cache

from voxjudge.asr.laser.lang_conventions import Conventions
from voxjudge.asr.laser.rubric import LaserRubric

__all__ = ["conventions_for"]


@lru_cache(maxsize=64)
def conventions_for(lang: str, rubric_path: str | None = None) -> Conventions:
    return LaserRubric.load(rubric_path).conventions(lang)
