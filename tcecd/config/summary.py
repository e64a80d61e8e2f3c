"""A short human summary of an event config (what ``tcecd validate`` prints),
and the rule text's recommendations the config does not follow. Pure."""

from __future__ import annotations

import shlex

from tcecd.config.event import EventConfig


def _pawns(score: float) -> str:
    return f"{score:.2f}"


def _adjudication(config: EventConfig) -> str:
    adj = config.adjudication
    parts: list[str] = []
    if adj.draw is not None:
        d = adj.draw
        parts.append(f"draw from move {d.from_move} within ±{_pawns(d.score)} for {d.moves} moves")
    if adj.win is not None:
        parts.append(f"win beyond ±{_pawns(adj.win.score)} for {adj.win.moves} moves")
    if adj.tablebases is not None:
        paths = ", ".join(str(p) for p in adj.tablebases.path)
        parts.append(f"tablebases up to {adj.tablebases.max_pieces} pieces ({paths})")
    if adj.max_moves is not None:
        parts.append(f"draw after {adj.max_moves} moves")
    return "; ".join(parts) if parts else "none"


def describe_event(config: EventConfig) -> list[str]:
    """The lines ``tcecd validate`` prints for a good config."""
    pairing = config.pairing
    seeding = pairing.seeding
    method = config.seeding_method
    seed_text: str = method
    if method == "group":
        seed_text += f", {seeding.groups} groups" if seeding.groups else ", groups by P/7"
    if method == "random":
        seed_text += (
            f", rng seed {seeding.seed}"
            if seeding.seed is not None
            else ", rng seed chosen at start"
        )
    kind = "double" if pairing.double else "single"
    tc = config.time_control_value()
    lines = [
        f"event:        {config.event.name} @ {config.event.site}"
        + (" (Chess960)" if config.variant == "chess960" else ""),
        f"pairing:      {pairing.system}, {config.rounds} {kind} round"
        f"{'s' if config.rounds != 1 else ''}, seeding {seed_text}",
        f"tiebreaks:    {', '.join((*pairing.tiebreaks, 'seed'))}",
    ]
    # The event's rules beyond C.04.1, only when it has any (lines as before otherwise).
    if pairing.points is not None and not config.point_system().is_standard:
        lines.append(f"points:       {config.point_system().describe()}")
    if pairing.acceleration == "baku":
        lines.append("acceleration: baku (FIDE C.04.5.1)")
    elif pairing.acceleration:
        lines.append(f"acceleration: virtual points for {len(pairing.acceleration)} engine(s)")
    if pairing.forbidden_pairs:
        shown = "; ".join(f"{a} - {b}" for a, b in pairing.forbidden_pairs)
        lines.append(f"forbidden:    {shown}")
    lines.append(f"engines:      {len(config.engines)}")
    for i, engine in enumerate(config.engines, 1):
        rating = f", rating {engine.rating}" if engine.rating is not None else ""
        where = f" on {engine.remote.host}" if engine.remote is not None else ""
        lines.append(
            f"  {i}. {engine.name} ({engine.protocol}{rating}{where}): {shlex.join(engine.command)}"
        )
        if engine.options:
            opts = ", ".join(f"{k}={v}" for k, v in engine.options.items())
            lines.append(f"     options: {opts}")
        own = engine.own_time_control()
        if own is not None:
            lines.append(f"     own limits: {own.text()} ({own.describe()})")
    if config.kibitzers:
        lines.append(f"kibitzers:    {len(config.kibitzers)}")
        for i, kib in enumerate(config.kibitzers, 1):
            engine = kib.engine
            lines.append(f"  {i}. {engine.name} (board {kib.board}, nice {kib.nice}): "
                         f"{shlex.join(engine.command)}")  # fmt: skip
            if engine.options:
                opts = ", ".join(f"{k}={v}" for k, v in engine.options.items())
                lines.append(f"     options: {opts}")
    lines.append(f"time control: {tc.text()} ({tc.describe()})")
    lines.append(f"adjudication: {_adjudication(config)}")
    if config.openings is not None:
        o = config.openings
        order = o.order + (f", seed {o.seed}" if o.seed is not None else "")
        book = "" if o.book is None else f" + Polyglot book {o.book.file}"
        if o.positions == "all":
            lines.append(f"openings:     the 960 Chess960 positions ({order})")
        elif o.positions is not None:
            numbers = ", ".join(str(n) for n in o.positions)
            lines.append(f"openings:     Chess960 positions {numbers} ({order})")
        else:
            lines.append(f"openings:     {o.file} ({o.format}, {order}){book}")
    else:
        lines.append("openings:     none (start position)")
    lines.append(
        f"play:         {config.concurrency} game{'s' if config.concurrency != 1 else ''} "
        "at a time; "
        f"{config.strikes.max} strikes disqualify, a faulty game is "
        f"{'lost' if config.strikes.on_fault == 'lose' else 'replayed'}"
    )
    lines.append(f"state:        {config.state_dir}")
    lines.append(f"pgn:          {config.pgn_path}")
    json_dir = config.tcec_json_dir
    lines.append(f"tcec json:    {json_dir if json_dir is not None else 'off'}")
    if config.mqtt is None:
        lines.append("mqtt:         off")
    else:
        settings = config.mqtt_settings()
        assert settings is not None
        where = settings.redacted_url()
        if settings.embedded:
            from urllib.parse import urlsplit

            port = urlsplit(settings.url).port  # none or 0: the broker picks a free one
            where = (
                f"embedded broker at {settings.host}:{port}"
                if port
                else f"embedded broker on {settings.host}, a free port chosen at start"
            )
        lines.append(
            f"mqtt:         {where}, "
            f"topics {settings.topic_prefix}/..., qos {settings.qos}"
        )
        if settings.operators:
            names = ", ".join(name for name, _ in settings.operators)
            lines.append(f"console:      on, operators {names} (tcecd ctl)")
    f = config.forecast
    if f is None:
        lines.append("forecast:     off")
    else:
        lines.append(
            f"forecast:     {f.simulations} simulation{'s' if f.simulations != 1 else ''} "
            f"after every game, P(top {f.top}), seed {f.seed}, prior sd {f.prior_sd:g} Elo, "
            f"{f.workers} worker{'s' if f.workers != 1 else ''}"
        )
    lines.append(f"logging:      {config.logging.level}, {config.logging.format}")
    return lines


def advice(config: EventConfig) -> list[str]:
    """Recommendations of the TCEC Swiss rule text that ``config`` does not
    follow (not errors: the pairing works either way)."""
    notes: list[str] = []
    if config.pairing.system != "tcec-swiss":
        return notes
    players = len(config.engines)
    rounds = config.rounds
    if not config.pairing.double and rounds % 2 == 0:
        notes.append(
            f"{rounds} single rounds: the rules recommend an odd number of single rounds "
            "for colour balance"
        )
    if rounds > (players + 1) // 2:
        notes.append(
            f"{rounds} rounds for {players} engines: the rules recommend at most about "
            f"{players // 2} (players / 2); consider a round robin"
        )
    return notes


def limits_note(config: EventConfig) -> str | None:
    """One line when engines play under their own limits (an entry's ``tc``,
    ``nodes``, ``depth`` or ``movetime_ms``): not an error, fairness is the
    operator's call, but the summary should say so."""
    own = [(e.name, e.own_time_control()) for e in config.engines]
    listed = [f"{name} ({tc.text()})" for name, tc in own if tc is not None]
    if not listed:
        return None
    note = f"engines with their own limits: {', '.join(listed)}"
    if len(listed) < len(own):
        note += f"; the others play the event's {config.time_control_value().text()}"
    return note
