"""The forecast as readable lines, from its JSON document.

One renderer for ``tcecd simulate --forecast`` and ``tcecd watch``: both
have the ``forecast`` payload's fields (:func:`tcecd.bus.payloads.forecast_fields`,
docs/events.md), so the table reads the same wherever it is shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _pct(p: float) -> str:
    """A probability as a short percentage: ``100``, ``37.5``, ``<0.1``, ``-`` (zero)."""
    if p <= 0.0:
        return "-"
    if p >= 1.0:
        return "100"
    if p < 0.001:
        return "<0.1"
    return f"{100 * p:.1f}"


def forecast_lines(
    doc: Mapping[str, Any], *, places: int | None = None, players: int | None = None
) -> list[str]:
    """A heading and one row per player (best expected place first): score so
    far, fitted rating, expected final score and place, P(top k), and
    ``P(place = i)`` for the first ``places`` places (default: all, at most 10).
    ``players`` limits the rows (``tcecd watch`` shows the top few)."""
    rows = list(doc.get("players") or [])
    if not rows:
        return ["Forecast: -"]
    total = len(rows[0].get("places") or [])
    shown = min(total, 10) if places is None else min(places, total)
    top = doc.get("top", 1)
    model = doc.get("model") or {}
    where = f"after round {doc.get('after_round')}"
    if doc.get("after_game"):
        where += f" + {doc.get('after_game')} game(s)"
    lines = [
        f"Forecast {where} of {doc.get('total_rounds')}: "
        f"{_count(doc.get('simulations'), 'simulation')}, seed {doc.get('seed')}; "
        f"draw rate {model.get('draw_rate')}, {_count(model.get('games'), 'game')} fitted",
    ]
    width = max(6, *(len(str(r.get("id", ""))) for r in rows))
    head = (f"  {'Player':<{width}} {'Score':>5} {'Rating':>6} {'E[pts]':>6} {'E[pl]':>5} "
            f"{f'Top{top}%':>6}")
    head += "".join(f" {f'#{i + 1}%':>5}" for i in range(shown))
    lines.append(head)
    for r in rows[: players if players is not None else len(rows)]:
        line = (
            f"  {r.get('id', '')!s:<{width}} {r.get('score', 0):>5g} "
            f"{round(r.get('rating', 0)):>6} {r.get('expected_score', 0):>6.2f} "
            f"{r.get('expected_place', 0):>5.1f} {_pct(r.get('top', 0)):>6}"
        )
        line += "".join(f" {_pct(p):>5}" for p in (r.get("places") or [])[:shown])
        lines.append(line)
    return lines


def _count(n: object, noun: str) -> str:
    """``1 simulation``, ``2 simulations`` (``n`` as the document has it)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
