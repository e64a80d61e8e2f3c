"""The integer-program pairing system: the seed's model solved by HiGHS.

``IntegerProgram`` is the system (:mod:`.system`); :func:`explain` and
:func:`explain_round` give the objective's terms and the solver's status of a
round for ``tcecd pair --explain`` (:mod:`.explain`).
"""

from tcecd.pairing.integer_program.explain import Explanation, explain, explain_round, render
from tcecd.pairing.integer_program.system import IntegerProgram

__all__ = ["Explanation", "IntegerProgram", "explain", "explain_round", "render"]
