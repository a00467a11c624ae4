"""Test agent: starts a grandchild that sleeps, records both pids, then sleeps itself.

argv[1] is the file the pids are written to ("<child> <grandchild>"), once both run.
"""

import os
import subprocess
import sys
import time

grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{os.getpid()} {grandchild.pid}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(300)
