"""Event formats behind one registry (:mod:`tcecd.formats.base`): the
round-based pairing systems (:mod:`tcecd.formats.rounds`), the knockout cup
(:mod:`tcecd.formats.knockout`, its pure core and its adapter), ``tcecd
play``'s matches (:mod:`tcecd.formats.match`)."""
