"""Reading and writing utterance texts and result records."""

from voxjudge.io.join import Joined, JoinSide, join_by_id
from voxjudge.io.matching import Paired, pair_texts
from voxjudge.io.readers import FORMATS, TextRecord, TextSet, read_texts
from voxjudge.io.writers import write_records

__all__ = [
    "FORMATS",
    "JoinSide",
    "Joined",
    "Paired",
    "join_by_id",
    "TextRecord",
    "TextSet",
    "pair_texts",
    "read_texts",
    "write_records",
]
