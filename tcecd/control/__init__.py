"""The operator's console: live control of a running event over MQTT.

An operator publishes a command (``{"id", "command", "args"}``) to the event's
``control`` topic; the daemon checks it (:mod:`tcecd.control.protocol`,
pure), decides it against the event as it stands and records it in the
event state before it answers (:mod:`tcecd.control.console`), applies it
through the runner, and answers once on ``control/reply/<id>``. What a
command decided (a pause, a withdrawal, a replaced engine, the concurrency, a
restarted or adjudicated game) is a domain event of the record
(:mod:`tcecd.control.facts`), so a restart after a crash rebuilds it with
the same fold. The broker's ACL decides who may publish a command
(:mod:`tcecd.control.acl`); ``tcecd ctl`` is the operator's command line.
See docs/running.md ("The console") and docs/operations.md.
"""
