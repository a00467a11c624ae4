"""Test agent: answers with its stdin, unchanged, plus a newline."""

import sys

data = sys.stdin.buffer.read()
sys.stdout.buffer.write(data + b"\n")
