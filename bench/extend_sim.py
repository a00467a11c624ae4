"""Extending after "undecided": how often the gate's verdict ends wrong, before and after issue 20.

The procedure a user follows: run a fixed n (``--attempts 5``), read the
confident gate; while a case is undecided (exit 4: "more attempts would settle
it"), extend it (``--resume ID --attempts 2n``) and read again, up to n = 640.
Each look that decides stops the procedure, so the n is chosen by looking.

Before issue 20 every look read the exact (Clopper-Pearson) interval, valid only
at an n fixed in advance: its misses add up over the looks. Now the first look
(n fixed in advance and reached as planned) reads it, and every look after an
extension reads the confidence sequence (``core.interval_choice``), which holds at
every n at once. Both are read through the product's own path: ``Settings`` with
``extended`` as the session stores it, ``core.sampling.reading`` (the method decided
by ``core.interval_choice``, the gate by ``core.gate``), each case's outcomes in
attempt order as the store keeps them.

A verdict is wrong when it is on the other side of X from the true pass@k =
1-(1-p)^k. The rates p sit near the line, where wrong verdicts are likeliest.
Seeded: the same command prints the same table.

    python bench/extend_sim.py     # --reruns 4000 --require 0.8 --k 3 --confidence 0.95 --start 5 --most 640
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import sqrt
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness import machine  # noqa: E402

from passk_tui.core.inputs.settings import Settings  # noqa: E402
from passk_tui.core.run.sampling import reading  # noqa: E402
from passk_tui.core.stats.gating.gate import read  # noqa: E402
from passk_tui.core.stats.rates.figures import CaseFigures  # noqa: E402
from passk_tui.core.stats.rates.intervals import CLOPPER_PEARSON  # noqa: E402

#: True pass@3 around the 0.8 line: below it the right verdict is fail, above it pass.
TRUE_PASS_AT_K = (0.70, 0.76, 0.78, 0.79, 0.81, 0.82, 0.84, 0.90)


@dataclass
class Tally:
    """One rate's reruns: the n each stopped at (None: undecided at the most) and if wrong."""

    looks: tuple[int, ...]
    wrong_by: dict[int, int] = field(default_factory=dict)
    undecided: int = 0
    attempts: int = 0

    def add(self, stopped_at: int | None, wrong: bool, used: int) -> None:
        self.attempts += used
        if stopped_at is None:
            self.undecided += 1
            return
        if wrong:
            for n in self.looks:
                if n >= stopped_at:
                    self.wrong_by[n] = self.wrong_by.get(n, 0) + 1


def looks(start: int, most: int) -> tuple[int, ...]:
    """n at each look: start, then doubled by each extension, up to most."""
    ns = [start]
    while ns[-1] * 2 <= most:
        ns.append(ns[-1] * 2)
    return tuple(ns)


def verdict_now(order: bytes, settings: Settings, exact_every_look: bool) -> str:
    """The gate's verdict on a one-case evaluation with these outcomes, as the CLI reads it."""
    n = len(order)
    figures = [CaseFigures("c", n, order.count(1), n - order.count(1), 0, settings.k, n, order)]
    if exact_every_look:  # before issue 20: the exact interval whatever happened before
        case = read(figures, settings.require, settings.confidence, CLOPPER_PEARSON).cases[0]
    else:
        case = reading(figures, settings).cases[0]
    return case.verdict or "undecided"


def follow(
    outcomes: bytes, base: Settings, ns: tuple[int, ...], exact_every_look: bool
) -> tuple[int | None, str]:
    """Look at each n in turn, extending while undecided: (n it stopped at or None, verdict)."""
    for i, n in enumerate(ns):
        # The first look is the run as planned; every later one follows an extension.
        settings = replace(base, attempts=n, extended=i > 0)
        verdict = verdict_now(outcomes[:n], settings, exact_every_look)
        if verdict != "undecided":
            return n, verdict
    return None, "undecided"


def share(count: int, of: int) -> str:
    """A share with its binomial standard error: ``3.9% ±0.3``."""
    p = count / of
    return f"{100 * p:.1f}% ±{100 * sqrt(p * (1 - p) / of):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reruns", type=int, default=4000)
    parser.add_argument("--require", type=Fraction, default=Fraction(8, 10))
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--start", type=int, default=5)
    parser.add_argument("--most", type=int, default=640)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ns = looks(args.start, args.most)
    base = Settings(
        "sim",
        1,
        "sim.toml",
        attempts=args.start,
        k=args.k,
        require=args.require,
        confidence=args.confidence,
    )
    shown = (n for n in (ns[0], 40, 80, ns[-1]) if n in ns)
    marks = tuple(dict.fromkeys(shown))
    print(machine())
    print(
        f"{args.reruns:,} reruns per rate; --require {float(args.require):g} --k {args.k} "
        f"--confidence {args.confidence:g}; looks at n = {', '.join(map(str, ns))}"
    )
    head = (
        ["true pass@k", "p"]
        + [f"before: wrong by n={n}" for n in marks]
        + [f"now: wrong by n={n}" for n in marks]
        + ["now: undecided at the most", "now: attempts per case"]
    )
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    started = time.process_time()
    worst_before = worst_now = 0.0
    for truth in TRUE_PASS_AT_K:
        p = 1.0 - (1.0 - truth) ** (1.0 / args.k)
        right = "pass" if truth >= args.require else "fail"
        before, now = Tally(ns), Tally(ns)
        rng = random.Random(f"{args.seed}:{truth}")
        for _ in range(args.reruns):
            outcomes = bytes(rng.random() < p for _ in range(ns[-1]))
            for tally, exact in ((before, True), (now, False)):
                stopped, verdict = follow(outcomes, base, ns, exact)
                tally.add(stopped, verdict not in (right, "undecided"), stopped or ns[-1])
        worst_before = max(worst_before, before.wrong_by.get(ns[-1], 0) / args.reruns)
        worst_now = max(worst_now, now.wrong_by.get(ns[-1], 0) / args.reruns)
        cells = (
            [f"{truth:.2f} ({right})", f"{p:.4f}"]
            + [share(before.wrong_by.get(n, 0), args.reruns) for n in marks]
            + [share(now.wrong_by.get(n, 0), args.reruns) for n in marks]
            + [share(now.undecided, args.reruns), f"{now.attempts / args.reruns:.0f}"]
        )
        print("| " + " | ".join(cells) + " |", flush=True)
    promise = (1 - args.confidence) / 2
    print(
        f"worst wrong-verdict rate by n={ns[-1]}: before {100 * worst_before:.1f}%, now "
        f"{100 * worst_now:.1f}% (the fixed-n gate's promise (1-C)/2 = {100 * promise:.1f}%, "
        f"1-C = {100 * (1 - args.confidence):.1f}%); CPU {time.process_time() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
