"""Kibitzers: analysis engines that follow the running games (the pure part).

:mod:`tcecd.kibitz.model` says which position each kibitzer analyses (the
running games, from the event stream) and turns an engine's search report
into a :class:`~tcecd.events.KibitzerReport`. The engines themselves run in
the daemon (:mod:`tcecd.daemon.kibitzer`).
"""
