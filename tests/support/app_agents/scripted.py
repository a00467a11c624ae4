"""Test agent: its input says what to answer on each call, so every outcome is known in advance.

The input is a JSON object ``{"answers": [...]}``. The n-th call for the same input
answers ``answers[(n - 1) % len(answers)]``; an answer starting with ``!`` is an
error instead (exit 1, the rest on stderr) and ``block`` sleeps until killed. Calls
are counted in ``$PASSK_TEST_STATE`` (one file per input, under a lock), so with
concurrency 1 attempt n gets the n-th answer; without that variable every call
gives the first answer.
"""

import fcntl
import hashlib
import json
import os
import sys
import time

raw = sys.stdin.read()
answers = json.loads(raw)["answers"]
state = os.environ.get("PASSK_TEST_STATE")
call = 0
if state:
    path = os.path.join(state, hashlib.sha1(raw.encode()).hexdigest())
    with open(path, "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.seek(0)
        call = len(counter.read())
        counter.write(".")
answer = answers[call % len(answers)]
if answer == "block":
    while True:
        time.sleep(60)
if answer.startswith("!"):
    sys.stderr.write(answer[1:] + "\n")
    sys.exit(1)
sys.stdout.write(answer + "\n")
