"""Why a sandboxed program ended: a wall it hit (errored, the sandbox's doing) or its own exit.

rlimits do not report themselves: a process over its CPU time gets SIGXCPU, and one
over its memory or process count gets an allocation or fork that fails, which it
reports as it will. These are the ways the common runtimes say so (CPython,
glibc's perror, the C++ runtime, bash).
"""

from __future__ import annotations

import re
import signal

#: The sandbox's words for each limit ("sandbox: memory limit", as docs/sandboxes.md shows them).
MEMORY = "sandbox: memory limit"
CPU = "sandbox: cpu limit"
PROCESSES = "sandbox: process limit"
START = "sandbox: could not start"

_MEMORY_SAID = re.compile(r"MemoryError|Cannot allocate memory|std::bad_alloc|[Oo]ut of memory")
_PROCESSES_SAID = re.compile(
    r"Resource temporarily unavailable|can't start new thread|fork: retry|Cannot fork|EAGAIN"
)
#: How our pre-exec (core/sandbox/tether.py) says it could not make a sandbox; bwrap, after it,
#: says so with "bwrap: ".
SAYS = "sandbox: "
MAKERS = ("bwrap: ", SAYS)
_CPU_CODES = frozenset({-signal.SIGXCPU, 128 + signal.SIGXCPU})


def limit_hit(code: int | None, stderr: bytes) -> str | None:
    """The limit a failed sandboxed program ran into, in the sandbox's words, or None.

    ``code`` is bwrap's exit status (128 + a signal's number when the program was
    killed by one); a program that exited 0 hit nothing that mattered.
    """
    if code == 0 or code is None:
        return None
    if code in _CPU_CODES:
        return CPU
    text = stderr[-4000:].decode("utf-8", "replace")
    lines = [line for line in text.splitlines() if line.strip()]
    if code == 1 and lines and lines[-1].startswith(MAKERS):
        return f"{START}: {lines[-1].split(': ', 1)[1]}"
    if _MEMORY_SAID.search(text):
        return MEMORY
    if _PROCESSES_SAID.search(text):
        return PROCESSES
    return None
