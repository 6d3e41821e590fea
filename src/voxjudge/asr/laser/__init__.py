"""LASER: graded-penalty ASR scoring (no penalty / minor 0.5 / major 1.0 per word pair;
score = 1 - total penalty / reference words), with a rules judge, LLM judges and a trainable one.

Names load on first use, so an offline run never imports the LLM judges (and the LLM
client they bring: asyncio, sqlite3, the message types)."""

from voxjudge._lazy import lazy_exports

_EXPORTS = {
    "RubricPair": "voxjudge.asr.laser.align",
    "rubric_align": "voxjudge.asr.laser.align",
    "LaserFiles": "voxjudge.asr.laser.files",
    "ScoredFiles": "voxjudge.asr.laser.files",
    "score_files": "voxjudge.asr.laser.files",
    "is_offline": "voxjudge.asr.laser.judges",
    "judge_prompt": "voxjudge.asr.laser.llm_judges",
    "LaserResult": "voxjudge.asr.laser.result",
    "LABELS": "voxjudge.asr.laser.rubric",
    "ErrorType": "voxjudge.asr.laser.rubric",
    "LaserRubric": "voxjudge.asr.laser.rubric",
    "Label": "voxjudge.asr.laser.rules",
    "classify": "voxjudge.asr.laser.rules",
    "classify_words": "voxjudge.asr.laser.rules",
    "LaserOptions": "voxjudge.asr.laser.run",
    "run_laser": "voxjudge.asr.laser.run",
    "ScoredPair": "voxjudge.asr.laser.scoring",
    "UtteranceScore": "voxjudge.asr.laser.scoring",
    "score": "voxjudge.asr.laser.scoring",
    "summarize": "voxjudge.asr.laser.scoring",
    "align_utterance": "voxjudge.asr.laser.utterances",
    "utterance_language": "voxjudge.asr.laser.utterances",
    "words": "voxjudge.asr.laser.utterances",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
