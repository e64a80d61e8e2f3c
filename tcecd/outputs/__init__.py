"""TCEC-format output files: pure JSON builders (:mod:`.tcec_json`) and the
atomic / append-only writers (:mod:`.files`)."""
