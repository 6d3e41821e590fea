"""Reading and writing utterance texts and result records.

Names load on first use: reading a text file (every ``asr metrics`` run) never imports the
writers' tempfile/hashlib machinery."""

from voxjudge._lazy import lazy_exports

_EXPORTS = {
    "JoinSide": "voxjudge.io.join",
    "Joined": "voxjudge.io.join",
    "join_by_id": "voxjudge.io.join",
    "Paired": "voxjudge.io.matching",
    "pair_texts": "voxjudge.io.matching",
    "FORMATS": "voxjudge.io.readers",
    "TextRecord": "voxjudge.io.text_record",
    "TextSet": "voxjudge.io.readers",
    "read_texts": "voxjudge.io.readers",
    "write_records": "voxjudge.io.writers",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
