"""`passk-tui serve` without a browser: its flags, the key kept off command lines, the warning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from passk_tui.serve import app_command, is_loopback, split_flags
from tests.test_browser import free_port

ROOT = Path(__file__).resolve().parent.parent


def serve(*args: str, code: str | None = None, timeout: float = 30) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = ["-c", code] if code else ["-m", "passk_tui", "serve", *args]
    return subprocess.Popen(
        [sys.executable, *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.3.2.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.0.2.7", False),
        ("example.org", False),
    ],
)
def test_only_loopback_addresses_count_as_private(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_the_apps_flags_pass_through_and_the_key_never_reaches_a_command_line() -> None:
    own, app, key = split_flags(["--port", "9000", "--key", "s3cret", "--demo", "--key=other"])
    assert (own.host, own.port) == ("127.0.0.1", 9000)
    assert app == ["--demo"] and key == "other"
    command = app_command(app)
    assert "s3cret" not in command and "other" not in command
    assert command.endswith("-m passk_tui.serve --demo")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--port", "0"], "between 1 and 65535"),
        (["--port", "http"], "whole number"),
        (["--headless"], "--headless"),
        (["--no-such-flag"], "--no-such-flag"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(args: list[str], says: str) -> None:
    process = serve(*args)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 2 and out == ""
    assert err.count("\n") == 1 and says in err and err.startswith("passk-tui")


def test_without_textual_serve_it_says_how_to_install_it() -> None:
    code = (
        "import sys; sys.modules['textual_serve'] = None; "
        "from passk_tui.__main__ import main; sys.exit(main(['serve']))"
    )
    process = serve(code=code)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 3
    assert err == "passk-tui: serve needs textual-serve: pip install 'passk-tui[web]'\n"


def test_bound_beyond_loopback_it_warns_in_one_line() -> None:
    pytest.importorskip("textual_serve")
    port = free_port()
    process = serve("--host", "0.0.0.0", "--port", str(port))
    try:
        line = process.stderr.readline()
    finally:
        process.terminate()
        process.communicate(timeout=15)
    assert line == (
        f"passk-tui: warning: serving on 0.0.0.0:{port} with no authentication: "
        "anyone who can reach it can run evaluations as you\n"
    )


def test_on_loopback_it_says_where_and_warns_of_nothing() -> None:
    pytest.importorskip("textual_serve")
    port = free_port()
    process = serve("--port", str(port))
    try:
        line = process.stdout.readline()
    finally:
        process.terminate()
        _, err = process.communicate(timeout=15)
    assert line.startswith(f"passk-tui: serving the app on http://127.0.0.1:{port} ")
    assert "warning" not in err


def test_help_says_there_is_no_authentication_and_a_process_per_tab() -> None:
    process = serve("--help")
    out, _ = process.communicate(timeout=30)
    flat = " ".join(out.split())
    assert process.returncode == 0
    assert "NO authentication" in flat and "Every browser tab starts its own app process" in flat
