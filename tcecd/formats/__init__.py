"""Event formats behind one registry (:mod:`tcecd.formats.base`): the
round-based pairing systems, the knockout cup, ``tcecd play``'s matches."""
