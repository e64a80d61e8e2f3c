"""``python -m tcecd``: the same entry point as the ``tcecd`` console script."""

from tcecd.cli import main

raise SystemExit(main())
