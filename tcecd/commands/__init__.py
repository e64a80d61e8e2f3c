"""One module per ``tcecd`` subcommand (see :mod:`tcecd.cli`)."""
