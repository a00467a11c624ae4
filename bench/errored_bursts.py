"""How often the errored-burst rule cries wolf on independent errors, and how often it finds a real one.

The rule (``core.stats.errored_bursts``): among N attempts in finish order
with E errored, a burst is E >= 5, more than half of them inside one
stretch of ceil(N/10) consecutive attempts, and a bound on the chance of a
stretch that full under independent errors at most 0.1%. Under independent errors the E
errored places are a uniform random E-subset of the N, so the false-alarm rate
is simulated exactly that way, per (N, E) and per error chance r (E drawn
Binomial(N, r)). Then a real outage: every attempt in one stretch of 5% of the
evaluation errors, on top of independent errors at r = 2%.

    python bench/errored_bursts.py                  # 20,000 trials per cell, seed 1
    python bench/errored_bursts.py --trials 2000    # quicker
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from passk_tui.core.stats.errored_bursts import burst_in_places  # noqa: E402

SIZES = (50, 200, 1000, 5000)
COUNTS = (5, 6, 8, 10, 20, 50, 200)
RATES = (0.02, 0.05, 0.1, 0.3)


def alarm(rng: random.Random, attempts: int, errored: int) -> bool:
    places = sorted(rng.sample(range(attempts), errored))
    return burst_in_places(places, attempts) is not None


def by_count(trials: int, seed: int) -> None:
    rng = random.Random(seed)
    print("false alarms given E errored (independent errors):")
    print("N      " + "".join(f"E={e:<8}" for e in COUNTS))
    for n in SIZES:
        cells = []
        for e in COUNTS:
            if e > n:
                cells.append(f"{'-':<10}")
                continue
            rate = sum(alarm(rng, n, e) for _ in range(trials)) / trials
            cells.append(f"{rate:<10.4f}")
        print(f"{n:<7}" + "".join(cells))


def by_rate(trials: int, seed: int) -> None:
    rng = random.Random(seed + 1)
    print("false alarms per evaluation, each attempt errored with chance r:")
    print("N      " + "".join(f"r={r:<8}" for r in RATES))
    for n in SIZES:
        cells = []
        for r in RATES:
            hits = 0
            for _ in range(trials):
                places = [i for i in range(n) if rng.random() < r]
                hits += burst_in_places(places, n) is not None
            cells.append(f"{hits / trials:<10.4f}")
        print(f"{n:<7}" + "".join(cells))


def outage(trials: int, seed: int) -> None:
    rng = random.Random(seed + 2)
    print("found: an outage errors every attempt in 5% of the evaluation, plus r = 0.02 elsewhere:")
    for n in SIZES:
        hits = 0
        for _ in range(trials):
            width = max(1, n // 20)
            start = rng.randrange(n - width + 1)
            places = [i for i in range(n) if start <= i < start + width or rng.random() < 0.02]
            hits += burst_in_places(places, n) is not None
        print(f"N={n:<6} {hits / trials:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"trials per cell: {args.trials:,}, seed {args.seed}")
    by_count(args.trials, args.seed)
    by_rate(max(1, args.trials // 10), args.seed)
    outage(max(1, args.trials // 10), args.seed)


if __name__ == "__main__":
    main()
