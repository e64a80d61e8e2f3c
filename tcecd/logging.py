"""structlog set-up for the daemon.

JSON lines when stderr is not a terminal (journald, files, log shippers),
readable colourless-or-coloured console lines on a terminal; ``format`` may force
either. Every line carries a UTC timestamp and the level; the daemon binds
``event``-name, ``round`` and ``game`` with :func:`structlog.contextvars` so that
each line says which event, round and game it belongs to.

Note: structlog's own ``event`` key is the message; the event *name* is bound as
``event_name`` to avoid the clash.

Libraries that log through the standard library (python-chess, aiomqtt) go
through the same renderer (:class:`structlog.stdlib.ProcessorFormatter`) with
the same bound context, so that off a terminal *every* stderr line is one JSON
object, never a bare ``name: message`` line that a log shipper cannot parse.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import Literal, TextIO

import structlog

LogFormat = Literal["auto", "json", "console"]

_HANDLER_NAME = "tcecd-structlog"

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


def configure(
    level: str = "info", fmt: LogFormat = "auto", stream: TextIO | None = None
) -> None:
    """Configure structlog (idempotent; the last call wins)."""
    out = stream if stream is not None else sys.stderr
    isatty = bool(getattr(out, "isatty", lambda: False)())
    use_json = fmt == "json" or (fmt == "auto" and not isatty)
    renderer: structlog.types.Processor
    if use_json:
        renderer = structlog.processors.JSONRenderer(sort_keys=False)
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=isatty)
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    tail: list[structlog.types.Processor] = (
        [structlog.processors.format_exc_info, renderer] if use_json else [renderer]
    )
    structlog.configure(
        processors=[*shared, *tail],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(level.lower(), 20)),
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    # python-chess and aiomqtt log through the stdlib: warnings and up, rendered like
    # ours (one JSON line each off a terminal, with the bound context and the
    # logger's name); chess.engine only from ERROR up, so that engine garbage does
    # not flood the daemon's log.
    handler = logging.StreamHandler(out)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *tail],
        )
    )
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)  # idempotent: the last call wins
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("chess.engine").setLevel(logging.ERROR)


@contextlib.contextmanager
def engine_chatter_off() -> Iterator[None]:
    """python-chess's engine warnings (``Rejecting feature sigterm=0``, ``Unexpected engine
    output``) kept back for a while, as :func:`configure` keeps them out of the daemon's
    log: for commands that start engines without configuring logging (``validate
    --engines``), where Python would print them raw on stderr."""
    chess_logger = logging.getLogger("chess.engine")
    before = chess_logger.level
    chess_logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        chess_logger.setLevel(before)


def get_logger(**bind: object) -> structlog.stdlib.BoundLogger:
    """A logger with ``bind`` values on every line."""
    return structlog.get_logger("tcecd").bind(**bind)  # type: ignore[no-any-return]
