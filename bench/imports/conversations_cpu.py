"""CPU of reading an inspect log's conversations alone, in one process (issue 32 item 7).

``passk-tui import inspect`` reads each sample's conversation (its member, its messages,
the transcript written out as the store keeps it) in two processes at once, which hides how
much CPU the reading itself takes. This times exactly that reading (``transcripts_aside``'s
per-batch ``_read``, which both processes run) over every sample of a log, with no fork,
store or summaries mapping timed, and prints a digest of the texts so that two versions of
the code can be checked to store the same bytes.

    python bench/imports/conversations_cpu.py [--log /tmp/passk-big.eval] [--profile]

The log is ``inspect_speed.py``'s (built there once).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from passk_tui.imports.inspect_log import inspect_run
    from passk_tui.imports.transcripts_aside import BATCH, _read
    from passk_tui.imports.zip_members import Archive

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, default=Path(tempfile.gettempdir()) / "passk-big.eval")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top entries")
    args = parser.parse_args()
    run = inspect_run([args.log], transcripts=False)  # the inputs and answers, untimed
    requests = [
        (f"samples/{a.case}_epoch_{a.attempt}.json", a.input, a.output) for a in run.attempts
    ]
    batches = [requests[start : start + BATCH] for start in range(0, len(requests), BATCH)]
    texts: list[str | None] = []
    profile = cProfile.Profile() if args.profile else None
    with Archive(args.log) as archive:
        wall, cpu = time.perf_counter(), time.process_time()
        if profile is not None:
            profile.enable()
        for batch in batches:
            failed = _read(archive, batch, texts)
            if failed is not None:
                sys.exit(failed)
        if profile is not None:
            profile.disable()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    digest = hashlib.sha256()
    for text in texts:
        digest.update(b"\x00" if text is None else text.encode() + b"\x01")
    stored = sum(text is not None for text in texts)
    print(
        f"{len(requests)} conversations ({stored} stored): CPU {cpu:.2f} s, wall {wall:.2f} s,"
        f" sha256 {digest.hexdigest()[:16]}; load average {os.getloadavg()[0]:.1f}"
    )
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(18)


if __name__ == "__main__":
    main()
