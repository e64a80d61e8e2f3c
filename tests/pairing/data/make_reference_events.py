"""Write ``reference_events.json``: simulated TCEC Swiss events and forecast
counts as the code of a given commit produces them.

The stored file was written by this script run against main at ee11053 (the
code before pairing sessions and the bitset matcher), from a checkout of that
commit::

    PYTHONPATH=<checkout of ee11053> python tests/pairing/data/make_reference_events.py OUT

Only public entry points that exist on both sides are used
(``simulate_event``, ``fit_model``, ``montecarlo.simulate``), so the file pins
what the old code did, round by round and count by count.

Exception: the ``dutch9`` forecast's counts (system ``dutch-2012``) were
written again by this script's code on branch pairing-2012, when dutch-2012
began to read the 2012 text as JaVaFo 1.4 does (issue 24; its pairings
changed on purpose, docs/pairing.md "Compared with JaVaFo 1.4"), and once
more when C.13's joined bracket took the latest added bracket as S1: of the
203 rounds that forecast pairs, 4 changed, and JaVaFo 1.4 pairs all 4 as the
new code does (only that entry was recomputed, with this script's code).
Once more when C.12 began to come before C.14.b2 (docs/pairing.md): of its
176 distinct rounds one (a7088fd29c77) pairs otherwise, as JaVaFo 1.4 does,
and leads to one round not paired before, which JaVaFo 1.4 pairs as tcecd
does (only that entry recomputed again). Once more when C.13 began to lower
the penultimate bracket's P1 after a lowest bracket of three players failed
on the bye alone (docs/pairing.md): three of its rounds (86f7417d2cd0,
da328ac1097e, fe7f7669e4ad) now pair as JaVaFo 1.4 does, and the forecast
then pairs six rounds not recorded before, all six as JaVaFo 1.4 pairs them
(checked with the jar; only that entry recomputed).
"""

from __future__ import annotations

import json
import sys

from tcecd.forecast.model import fit_model
from tcecd.forecast.montecarlo import EventSnapshot, simulate
from tcecd.pairing.simulation import simulate_event

#: (players, rounds, double, seed, draw_rate)
EVENTS = [
    (50, 40, False, 7, 0.5),
    (25, 30, False, 3, 0.5),
    (16, 20, True, 5, 0.5),
    (9, 24, False, 11, 0.9),
    (8, 15, True, 2, 0.3),
    (40, 39, False, 1, 0.0),
]

#: (name, system, players, played, rounds, double, event seed, simulations, seed)
FORECASTS = [
    ("bench50", "tcec-swiss", 50, 20, 40, False, 7, 50, 1),
    ("odd11double", "tcec-swiss", 11, 3, 12, True, 7, 200, 5),
    ("odd25", "tcec-swiss", 25, 10, 30, False, 7, 100, 2),
    ("small7long", "tcec-swiss", 7, 2, 14, False, 7, 200, 3),
    ("dutch9", "dutch-2012", 9, 2, 7, False, 7, 50, 4),
]


def main(out: str) -> None:
    events = []
    for players, rounds, double, seed, draw_rate in EVENTS:
        ev = simulate_event(players, rounds, double=double, seed=seed, draw_rate=draw_rate)
        events.append({
            "players": [[p.id, p.name, p.seed, p.rating] for p in ev.players],
            "double": double,
            "seed": seed,
            "draw_rate": draw_rate,
            "rounds": [
                {
                    "bye": r.bye,
                    "removed": list(r.removed_history_rounds),
                    "games": " ".join(f"{g.white}-{g.black}:{g.result.value}" for g in r.games),
                }
                for r in ev.rounds
            ],
        })
    forecasts = []
    for name, system, players, played, rounds, double, ev_seed, sims, seed in FORECASTS:
        ev = simulate_event(players, played, seed=ev_seed, double=double, system=system)
        snap = EventSnapshot(system, ev.players, double, ev.rounds, rounds)
        counts = simulate(snap, fit_model(snap.players, snap.games_so_far()), sims, seed)
        forecasts.append({
            "name": name, "system": system, "players": players, "played": played,
            "rounds": rounds, "double": double, "event_seed": ev_seed,
            "simulations": sims, "seed": seed,
            "places": counts.places, "score_half": counts.score_half,
        })
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"events": events, "forecasts": forecasts}, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
