"""Test agent: records its pid, then answers its input once released; until then it waits.

argv[1] is a folder: the pid goes to ``<folder>/pids/<pid>`` and the answer (the input,
unchanged) comes once ``<folder>/release`` exists, so a run is held mid-way for as long
as a test needs and a resume finishes at once.
"""

import os
import sys
import time

folder = sys.argv[1]
answer = sys.stdin.read()
open(os.path.join(folder, "pids", str(os.getpid())), "w").close()
while not os.path.exists(os.path.join(folder, "release")):
    time.sleep(0.05)
print(answer)
