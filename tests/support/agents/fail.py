"""Test agent: writes a long stderr and exits 3 (the tail is what a failed attempt keeps)."""

import sys

sys.stdin.read()
sys.stderr.write("noise " * 200 + "\n")
sys.stderr.write("Traceback: the real reason is at the end\n")
sys.exit(3)
