"""The FIDE Dutch system, rules of 2012 (``../shared/seeds/fide-dutch-system-2012.txt``).

A procedural implementation of the text as written, split by concern:

* :mod:`.state` -- what the finished rounds say about each player (score,
  colour history, floats, opponents, B.1b) and the A.2 order;
* :mod:`.colours` -- A.7 colour preferences, A.8 X1/Z1 and the E allocation;
* :mod:`.criteria` -- B.1/B.2 (``may_meet``: the one place for "these two may
  never meet") and the relative criteria a pair or a floater breaks;
* :mod:`.transpose` -- D.1 transpositions (with pruning, criteria broken a
  limited number of times), D.2 exchanges and D.3 moved-down-player sets;
* :mod:`.bracket` -- one score bracket: C.2 to C.10 and C.14, B.3 for
  brackets of unequal scores;
* :mod:`.system` -- the round: score brackets, C.1, C.12, C.13, the bye,
  F.1 board order and the schedule (:class:`Dutch2012`).

The 2017 system lives in :mod:`tcecd.pairing.dutch`; the two share nothing.
"""
