"""Summarise a py-spy raw (collapsed) profile: the top functions by own and by total samples.

    python bench/flame_summary.py PROFILE.txt [--top 25] [--match TEXT]

``py-spy record -f raw -o PROFILE.txt -- CMD`` writes one ``frame;frame;... count`` line per
distinct stack; this prints, per function, the share of samples where it is on top (own)
and anywhere on the stack (total), so a hot spot can be named with a figure.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter

_FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^()]*?)(?::\d+)?\)$")


def short(frame: str) -> str:
    """``func (path/to/module.py:12)`` -> ``module.py:func``."""
    match = _FRAME.match(frame.strip())
    if not match:
        return frame.strip()
    path = match["file"]
    tail = "/".join(path.split("/")[-2:]) if "site-packages" in path else path.split("/")[-1]
    return f"{tail}:{match['func']}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--match", default=None, help="only stacks containing this text")
    args = parser.parse_args(argv)
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    samples = 0
    with open(args.profile, encoding="utf-8") as lines:
        for line in lines:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or (args.match and args.match not in stack):
                continue
            n = int(count)
            frames = [short(f) for f in stack.split(";")]
            # py-spy's first frame may be the process/thread name: keep it, harmless.
            samples += n
            own[frames[-1]] += n
            for name in set(frames):
                total[name] += n
    print(f"{samples} samples")
    print(f"{'own %':>6}  {'total %':>7}  function")
    for name, n in own.most_common(args.top):
        print(f"{100 * n / samples:6.1f}  {100 * total[name] / samples:7.1f}  {name}")
    print()
    print(f"{'total %':>7}  function (by total)")
    for name, n in total.most_common(args.top):
        print(f"{100 * n / samples:7.1f}  {name}")


if __name__ == "__main__":
    main()
