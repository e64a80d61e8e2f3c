"""The FIDE Dubov system, C.04.4.1 (2018): see :mod:`tcecd.pairing.dubov.system`."""
