"""FIDE's Tournament Report File (TRF-2016) in and out.

:func:`parse_trf` turns TRF text into a :class:`TrfEvent` (players, finished
rounds, the context of the round to pair) and :func:`format_trf` does the
reverse, so ``tcecd pair`` can read what JaVaFo and bbpPairings read, and an
event run by tcecd can be checked with them. Both are pure: callers read and
write the files.
"""

from tcecd.trf.model import TrfEvent
from tcecd.trf.reader import parse_trf
from tcecd.trf.writer import format_pairing, format_trf

__all__ = ["TrfEvent", "format_pairing", "format_trf", "parse_trf"]
