"""The exit codes are PRODUCT.md's, in one enum every face reads."""

from __future__ import annotations

import signal

from passk_tui.core.errors import ExitCode, InputError, RunError, signalled_exit


def test_the_codes_are_the_products() -> None:
    assert [int(code) for code in ExitCode] == [0, 1, 2, 3, 4, 5, 128, 130]
    assert InputError.exit_code == 2 and RunError.exit_code == 3
    assert signalled_exit(signal.SIGHUP) == 129 and signalled_exit(signal.SIGTERM) == 143
    assert signalled_exit(signal.SIGINT) == ExitCode.CANCELLED


def test_a_code_prints_as_its_number() -> None:
    """Written into messages and JSON as the number a shell sees, not ``ExitCode.OK``."""
    assert f"{ExitCode.UNDECIDED}" == "4" and str(ExitCode.CANCELLED) == "130"
