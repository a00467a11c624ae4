"""The demo agent: a stand-in whose flakiness is SIMULATED with random numbers.

It is not a model. It reads a case's input on stdin and answers on stdout so
that the demo suite shows every kind of result passk-tui tells apart: a case
that always passes, flaky ones that are sometimes wrong, and one whose "tool"
often errors (a non-zero exit, which a local command agent reports as a failed
Turn) and, when it answers, is sometimes wrong too. Each answer takes a random 0.1-0.6 s, so the live grid has
something to show.
"""

from __future__ import annotations

import json
import random
import sys
import time


def answer(question: str, rng: random.Random, version: int = 1) -> tuple[str, int]:
    """The reply and exit status for one question; the odds are the demo's script.

    Version 2 differs on the arithmetic case alone: 60% of its answers are a
    sentence around the number, which an ``equals`` check calls wrong. Version 3 is
    version 1 with the capital case fixed (Canberra 95% of the time): a matrix of the
    three (``--version 1,2,3``) shows one change each way.
    """
    if "17 * 23" in question:
        if version == 2 and rng.random() < 0.6:
            return "17 * 23 = 391", 0
        return "391", 0
    if "capital of Australia" in question:
        right = 0.95 if version == 3 else 0.6
        return ("Canberra" if rng.random() < right else "Sydney"), 0
    if "JSON object" in question:
        if rng.random() < 0.8:
            return json.dumps({"name": "Ada", "age": 36}), 0
        return json.dumps({"name": "Ada", "age": "thirty-six"}), 0
    if "weather" in question:
        roll = rng.random()
        if roll < 0.4:
            sys.stderr.write("weather tool: upstream timed out (simulated)\n")
            return "", 1
        if roll < 0.7:
            return "It is warm and sunny in Lisbon.", 0  # no temperature: the check fails
        return "It is 21 °C and sunny in Lisbon.", 0
    if "summarize" in question:
        if rng.random() < 0.9:
            return "The customer asks for a Refund of the duplicate charge.", 0
        return "The customer is unhappy with the service.", 0
    return "I do not know.", 0


def main() -> int:
    raw = sys.stdin.read()
    try:
        decoded = json.loads(raw)
        question = decoded if isinstance(decoded, str) else json.dumps(decoded)
    except ValueError:
        question = raw
    rng = random.Random()
    time.sleep(rng.uniform(0.1, 0.6))
    version = int(sys.argv[sys.argv.index("--version") + 1]) if "--version" in sys.argv else 1
    reply, status = answer(question, rng, version)
    sys.stdout.write(reply + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
