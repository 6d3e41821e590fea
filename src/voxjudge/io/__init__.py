"""Reading and writing utterance texts and result records."""

from voxjudge.io.matching import Paired, pair_texts
from voxjudge.io.readers import FORMATS, TextRecord, TextSet, read_texts
from voxjudge.io.writers import write_records

__all__ = ["FORMATS", "Paired", "TextRecord", "TextSet", "pair_texts", "read_texts", "write_records"]
