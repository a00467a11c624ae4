"""The headless command that runs an evaluation's settings again (never with the key)."""

from __future__ import annotations

import shlex
from fractions import Fraction

from passk_tui.core.inputs.settings import Settings

PROGRAM = "passk-tui"


def resume_text(evaluation_id: str) -> str:
    """How to go on with an evaluation that did not finish, in the words both faces print."""
    return f"what finished is stored; to continue: {PROGRAM} --resume {evaluation_id}"


def require_text(require: Fraction) -> str:
    """The gate as the shortest text that parses back to exactly the same fraction."""
    decimal = f"{float(require):g}"
    return decimal if Fraction(decimal) == require else str(require)


def timeout_text(seconds: float) -> str:
    """Seconds as short text that parses back to the same float (300, not 300.0)."""
    short = f"{seconds:g}"
    return short if float(short) == seconds else repr(seconds)


def headless_argv(settings: Settings) -> list[str]:
    """The argv of ``passk-tui --headless`` with every setting spelled out.

    Every flag is given even at its default, so the command means the same
    after a default changes. The stack key is not a setting and never appears:
    the command reads it from PASSK_KEY.
    """
    s = settings
    argv = [
        PROGRAM,
        "--headless",
        "--agent",
        s.agent,
        "--version",
        str(s.version),
        "--cases",
        s.cases_path,
        "--attempts",
        str(s.attempts),
        "--k",
        str(s.k),
        "--concurrency",
        str(s.concurrency),
        "--timeout",
        timeout_text(s.timeout),
    ]
    if s.completion_only:
        argv.append("--completion-only")
    if s.require is not None:
        argv += ["--require", require_text(s.require)]
    if s.stack is not None:
        argv += ["--stack", s.stack]
    if s.agents_path is not None:
        argv += ["--agents", s.agents_path]
    return argv


def headless_command(settings: Settings) -> str:
    """``headless_argv`` quoted for a POSIX shell, ready to paste."""
    return shlex.join(headless_argv(settings))
