"""The FIDE (Dutch) system, C.04.3 as approved in 2016/2017 (``../shared/seeds/
fide-dutch-system-2017-C0403.txt``), as a pure pairing system.

Modules by concern: :mod:`.state` (scores, colour and float history, A.2-A.7),
:mod:`.colours` (colour preferences A.6 and allocation E.1-E.5), :mod:`.criteria`
(the absolute criteria C.1-C.3 and the edge weights encoding C.4-C.19 and the
D rules), :mod:`.matcher` (the weighted matching), :mod:`.graph` (a bracket's
graph, the completion check), :mod:`.brackets` (the bracket by bracket
process, A.9 and B), :mod:`.system` (the ``dutch-2017`` system).
"""
