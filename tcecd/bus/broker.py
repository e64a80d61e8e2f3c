"""An in-process MQTT 3.1.1 broker for the demo (``mqtt: embedded``). Work in progress."""

from __future__ import annotations

from types import TracebackType


class EmbeddedBroker:
    """``async with EmbeddedBroker(host, port) as broker:`` -- ``broker.port`` is the bound port."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port

    async def __aenter__(self) -> EmbeddedBroker:
        raise NotImplementedError("embedded broker not implemented yet")

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        return None
