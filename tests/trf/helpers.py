"""Building TRF-2016 player lines by column, so the test files are readable."""

from __future__ import annotations


def player_line(
    number: int,
    name: str,
    rating: int | None,
    *rounds: str,
    title: str = "",
    points: str = "",
) -> str:
    """A ``001`` line: ``rounds`` are round blocks like ``"2 w 1"`` or ``"0000 - H"``
    (opponent right-aligned in 4 columns), or ``""`` for no entry; ``points``
    the points column (blank: not checked against the results)."""
    head = f"001 {number:4d}  {title:>3} {name:<33} {'' if rating is None else rating:>4}"
    head = head.ljust(80) + f"{points:>4}    1"  # points (81-84) and rank (86-89, not read)
    blocks = []
    for text in rounds:
        if not text:
            blocks.append(" " * 8)
            continue
        opp, colour, result = text.split(" ")
        number = "0000" if int(opp) == 0 else f"{int(opp):4d}"
        blocks.append(f"{number} {colour} {result}")
    return (head + "".join("  " + b for b in blocks)).rstrip()
