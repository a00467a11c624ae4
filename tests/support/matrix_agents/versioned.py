"""A deterministic command agent for matrix tests: version V passes attempt a of a case when
a <= the passes its table gives that case at V (``PASSES``), else answers wrongly; a sleep
(seconds, from PASSK_MATRIX_SLEEP) lets a test kill a run part way through."""

from __future__ import annotations

import os
import sys
import time

#: Passes out of 10 per case and version: "steady" never moves, "drops" falls at v2 and v3,
#: "climbs" rises at v3.
PASSES = {
    "steady": {1: 9, 2: 9, 3: 9},
    "drops": {1: 10, 2: 1, 3: 0},
    "climbs": {1: 2, 2: 4, 3: 10},
}


def main() -> int:
    version = int(sys.argv[1])
    sys.stdin.read()
    time.sleep(float(os.environ.get("PASSK_MATRIX_SLEEP", "0")))
    case, attempt = os.environ["PASSK_CASE"], int(os.environ["PASSK_ATTEMPT"])
    print("ok" if attempt <= PASSES[case][version] else "no")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
