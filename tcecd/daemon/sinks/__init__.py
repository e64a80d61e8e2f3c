"""The sinks of the daemon's event stream (:mod:`tcecd.daemon.stream`): one
module per output, each a small consumer with its own read model."""
