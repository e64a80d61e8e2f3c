"""The FIDE (Dutch) system, C.04.3 as approved in 2016/2017 (``../shared/seeds/
fide-dutch-system-2017-C0403.txt``), as a pure pairing system.

Modules by concern: :mod:`.state` (scores, colour and float history, A.2-A.7),
:mod:`.colours` (colour preferences A.6 and allocation E.1-E.5), :mod:`.criteria`
(the absolute criteria C.1-C.3, the colour facts of a pair for C.8-C.11, the
weights' field layout), :mod:`.weights` (a bracket's edge weights encoding
C.5-C.19 and the D rules), :mod:`.following` (C.7 summed up when a bracket
has at most one downfloater), :mod:`.matcher` (the weighted matching),
:mod:`.graph` (a bracket's graph, the completion check), :mod:`.brackets`
(the bracket by bracket process, A.9, B and the D phases), :mod:`.system`
(the ``dutch-2017`` system).
"""
