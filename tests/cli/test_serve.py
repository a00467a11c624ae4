"""`passk-tui serve` without a browser: its flags, the key kept off command lines, the warning,
and over real HTTP, which Host and Origin it answers."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from passk_tui.cli.serve import Guard, app_command, is_loopback, split_flags
from tests.support import ROOT
from tests.support.web import _listening, free_port, wait_for


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
    assert command.endswith("-m passk_tui.cli.serve --demo")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--port", "0"], "between 1 and 65535"),
        (["--port", "http"], "whole number"),
        (["--headless"], "--headless"),
        (["--no-such-flag"], "--no-such-flag"),
        (["--attempts", "0"], "passk-tui: --attempts: must be at least 1, got 0"),
        (["--demo", "--k", "9", "--attempts", "3"], "--k: must be between 1 and the attempts"),
        (["--stack", "ftp://stack"], "--stack: 'ftp://stack' is not an http"),
        (["--resume", "last", "--timeout", "0"], "--timeout"),
        (["--export", "out.pdf"], "--export out.pdf"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(args: list[str], says: str) -> None:
    port = free_port()
    process = serve("--port", str(port), *args)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 2 and out == ""  # never said it was serving: never listened
    assert err.count("\n") == 1 and says in err and err.startswith("passk-tui")


def test_without_textual_serve_it_says_how_to_install_it() -> None:
    code = (
        "import sys; sys.modules['textual_serve'] = None; "
        "from passk_tui.cli.main import main; sys.exit(main(['serve']))"
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


# -- who may come in: Host and Origin ----------------------------------------------------------

WS_UPGRADE = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
}


@pytest.fixture(scope="module")
def served_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``passk-tui serve`` on a free loopback port, listening; stopped after the module."""
    pytest.importorskip("textual_serve")
    port = free_port()
    process = serve("--port", str(port))
    try:
        wait_for(lambda: _listening(port) or process.poll() is not None, 30, "serve to listen")
        assert process.poll() is None, process.communicate()[1]
        yield port
    finally:
        process.terminate()
        process.communicate(timeout=15)


def response_to(
    port: int, path: str, host: str, headers: dict[str, str] | None = None
) -> http.client.HTTPResponse:
    """serve's answer to a GET with exactly this Host header (and these others), its body
    left unread (101: the socket is the tab's; it closes with the connection)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest("GET", path, skip_host=True)
        connection.putheader("Host", host)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.endheaders()
        return connection.getresponse()
    finally:
        connection.close()


def status_of(port: int, path: str, host: str, headers: dict[str, str] | None = None) -> int:
    """The status serve answers a GET with exactly this Host header (and these others)."""
    return response_to(port, path, host, headers).status


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("127.0.0.1:{port}", 200),
        ("localhost:{port}", 200),
        ("LOCALHOST:{port}", 200),
        ("evil.example:{port}", 403),  # a hostname rebound to 127.0.0.1
        ("evil.example", 403),
        ("127.0.0.1:9000", 200),  # a tunnel's or a forwarded port
        ("127.0.0.1", 200),
        ("127.0.0.1:{port}@evil.example", 403),
        ("", 403),
    ],
)
def test_the_page_answers_only_its_own_host(served_port: int, host: str, status: int) -> None:
    assert status_of(served_port, "/", host.format(port=served_port)) == status
    assert status_of(served_port, "/static/js/textual.js", host.format(port=served_port)) in (
        {200} if status == 200 else {403}
    )


@pytest.mark.parametrize(
    ("host", "origin", "status"),
    [
        ("127.0.0.1:{port}", "http://127.0.0.1:{port}", 101),  # its own page
        ("localhost:{port}", "http://localhost:{port}", 101),
        ("127.0.0.1:{port}", "http://evil.example", 403),  # another site's page
        ("127.0.0.1:{port}", "http://127.0.0.1:9000", 403),  # another port on this machine
        ("127.0.0.1:{port}", "http://localhost:{port}", 403),  # same server, not the same page
        ("127.0.0.1:{port}", "null", 403),  # a sandboxed frame, a file:// page
        ("127.0.0.1:{port}", None, 403),  # no browser sends none
        ("evil.example:{port}", "http://evil.example:{port}", 403),  # DNS rebinding
    ],
)
def test_the_websocket_opens_only_from_its_own_page(
    served_port: int, host: str, origin: str | None, status: int
) -> None:
    headers = dict(WS_UPGRADE)
    if origin is not None:
        headers["Origin"] = origin.format(port=served_port)
    assert status_of(served_port, "/ws", host.format(port=served_port), headers) == status


def test_a_foreign_origin_is_refused_on_every_request(served_port: int) -> None:
    own = f"127.0.0.1:{served_port}"
    assert status_of(served_port, "/", own, {"Origin": f"http://{own}"}) == 200
    assert status_of(served_port, "/", own, {"Origin": "http://evil.example"}) == 403


@pytest.mark.parametrize(
    ("bound", "host", "origin", "answered"),
    [
        ("127.0.0.1", "127.0.0.1:8000", None, True),
        ("127.0.0.1", "[::1]:8000", "http://[::1]:8000", True),
        ("127.0.0.1", "localhost:8000", "https://localhost:8000", True),
        ("127.0.0.1", "127.0.0.1:9000", "http://127.0.0.1:9000", True),  # ssh -L 9000:...
        ("127.0.0.1", "127.0.0.1", "http://127.0.0.1", True),
        ("127.0.0.1", "127.0.0.1", "http://127.0.0.1:8000", False),
        ("127.0.0.1", "127.0.0.2:8000", None, False),
        ("::1", "[::1]:8000", "http://[::1]:8000", True),
        ("::1", "[::1]:8000", "http://[::1]:8001", False),
        ("0.0.0.0", "192.0.2.7:8000", "http://192.0.2.7:8000", True),
        ("0.0.0.0", "[2001:db8::1]:8000", "http://[2001:db8::1]:8000", True),
        ("0.0.0.0", "evil.example:8000", "http://evil.example:8000", False),
        ("0.0.0.0", f"{socket.gethostname()}:8000", f"http://{socket.gethostname()}:8000", True),
        ("0.0.0.0", "192.0.2.7:8000", "http://evil.example", False),
        ("192.0.2.7", "192.0.2.7:8000", None, True),
        ("192.0.2.7", "localhost:8000", None, False),  # not served on loopback
        ("box.example", "BOX.example:8000", "http://box.example:8000", True),
        ("box.example", "192.0.2.7:8000", None, False),
        ("127.0.0.1", "127.0.0.1:8000", "http://127.0.0.1:8000:1", False),
        ("127.0.0.1", "127.0.0.1:8000", "javascript://127.0.0.1:8000", False),
    ],
)
def test_the_guard_knows_the_names_of_the_address_served(
    bound: str, host: str, origin: str | None, answered: bool
) -> None:
    refusal = Guard(bound).refusal(host, origin, websocket=origin is not None)
    assert (refusal is None) is answered, refusal


@pytest.mark.parametrize(
    ("path", "host", "headers", "status"),
    [
        ("/", "127.0.0.1:{port}", {}, 200),  # the page
        ("/static/js/textual.js", "127.0.0.1:{port}", {}, 200),
        ("/static/css/xterm.css", "localhost:{port}", {}, 200),
        ("/static/", "127.0.0.1:{port}", {}, 200),  # textual-serve lists the folder
        ("/no-such-page", "127.0.0.1:{port}", {}, 404),
        ("/", "evil.example:{port}", {}, 403),  # the refusals too
        ("/ws", "127.0.0.1:{port}", {**WS_UPGRADE, "Origin": "http://evil.example"}, 403),
    ],
)
def test_no_other_sites_page_may_frame_any_answer(
    served_port: int, path: str, host: str, headers: dict[str, str], status: int
) -> None:
    response = response_to(served_port, path, host.format(port=served_port), headers)
    assert response.status == status
    assert response.getheader("Content-Security-Policy") == "frame-ancestors 'self'"
    assert response.getheader("X-Frame-Options") == "SAMEORIGIN"
