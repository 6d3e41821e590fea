"""Checks of the clips before anything is judged, for every judge: each clip decodes as audio
(else an ``InputError`` naming it), and what looks wrong is returned as warnings naming the pair:
a clip without speech, a speaking rate implausible for the text, two clips too different in
length to be renditions of one text."""

from __future__ import annotations

from collections.abc import Sequence

from voxjudge.pairwise.acoustic import AcousticJudge, clip_warning, pair_warning
from voxjudge.pairwise.data import CandidateSet, Pair


def check_pairs(pairs: Sequence[Pair], acoustic: AcousticJudge | None = None) -> list[str]:
    """Warnings about the pairs' clips (see the module docstring); reads every clip once. Pass the
    acoustic judge that will judge them to share its measurements; otherwise only levels are
    measured (no F0), which is quick."""
    acoustic = acoustic or AcousticJudge(pitch=False)
    warnings: list[str] = []
    for pair in pairs:
        fa, fb = acoustic.features(pair.audio_a), acoustic.features(pair.audio_b)
        for slot, path, f in (("A", pair.audio_a, fa), ("B", pair.audio_b, fb)):
            problem = f.no_speech or clip_warning(f, pair.text)
            if problem:
                warnings.append(f"pair {pair.pair_id!r}, clip {slot} ({path}): {problem}")
        both = pair_warning(fa, fb)
        if both:
            warnings.append(f"pair {pair.pair_id!r}: {both}")
    return warnings


def check_candidate_sets(sets: Sequence[CandidateSet], acoustic: AcousticJudge | None = None) -> list[str]:
    """Warnings about candidate clips: no speech, or a speaking rate implausible for the text."""
    acoustic = acoustic or AcousticJudge(pitch=False)
    warnings: list[str] = []
    for cset in sets:
        for k, path in enumerate(cset.candidates):
            f = acoustic.features(path)
            problem = f.no_speech or clip_warning(f, cset.text)
            if problem:
                warnings.append(f"set {cset.set_id!r}, candidate {k} ({path}): {problem}")
    return warnings
