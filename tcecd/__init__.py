"""tcecd: run unattended TCEC-style Swiss computer-chess engine events."""

__version__ = "0.1.0"
