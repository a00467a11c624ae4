"""How close an undecided case is to settling: the attempts its stop rule would likely need.

What a budgeted adaptive policy ranks cases by (``core.run.policy``): with Runs
scarce, the next attempt goes where it is most likely to decide a case. The
estimate follows the case's expected path: more attempts passing at its current
estimate (c + 1/2) / (n + 1) (the Jeffreys prior's mean, so that 0 of 5 is not
taken as certain failure), passes placed as evenly as that rate allows, and asks
the rule after each. Along one path the rule's anytime-valid interval only
narrows (it is a running intersection), so once decided the path stays decided:
the fewest attempts is found by bisection, in log2(room) questions.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

#: A stop rule on a case's outcomes by attempt number (1 a pass, 0 not): a reason, or None.
Rule = Callable[[bytes], object]


def expected_path(order: bytes, more: int) -> bytes:
    """``order`` followed by ``more`` outcomes at its estimated rate, passes spread evenly."""
    rate = Fraction(2 * order.count(1) + 1, 2 * (len(order) + 1))
    path = bytearray(order)
    for j in range(1, more + 1):
        path.append(int(round(rate * j) > round(rate * (j - 1))))
    return bytes(path)


def more_to_decide(order: bytes, rule: Rule, room: int) -> int | None:
    """The fewest more attempts after which ``rule`` decides the case along its expected
    path; None when even ``room`` more would not (too close to the line, or the cap)."""
    if room < 1 or rule(expected_path(order, room)) is None:
        return None
    low, high = 1, room  # rule(path of high) decides; find the smallest such
    while low < high:
        middle = (low + high) // 2
        if rule(expected_path(order, middle)) is None:
            low = middle + 1
        else:
            high = middle
    return low
