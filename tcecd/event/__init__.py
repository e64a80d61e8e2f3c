"""The event's state and its event-level rules, pure: the fold over the
committed domain events (:mod:`tcecd.event.state`), strikes and
disqualification (:mod:`tcecd.event.strikes`), forfeits."""
