"""Test agent: leaves a detached-output grandchild sleeping, answers at once and exits 0.

argv[1] is the file the grandchild's pid is written to.
"""

import subprocess
import sys

grandchild = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(300)"],
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
with open(sys.argv[1], "w") as f:
    f.write(str(grandchild.pid))
print("done")
