"""`passk-tui serve`: the app in a browser through textual-serve, one app process per browser tab.

The flags after ``serve`` other than ``--host`` and ``--port`` are the app's own
(``--demo``, ``--agent`` ...), checked once here so a mistake is one line at start,
not an error in every tab. A ``--key`` is handed to the app processes through their
environment, never on their command line. textual-serve has no authentication:
anyone who can reach the address can run evaluations as the user who started it,
so it binds to 127.0.0.1 unless ``--host`` says otherwise, and warns when it does.

Nor may a web page the user visits drive it: every request must name this server in
its ``Host`` (a hostname rebound to 127.0.0.1 is refused), and the websocket, which
runs the app, must come from this server's own page (its ``Origin``); anything else
is answered 403 (``Guard``). Nor may another site's page frame it (clickjacking, or a
hidden frame whose page opens a tab from this server's own origin): every answer says so,
to today's browsers (``frame-ancestors``) and older ones (``X-Frame-Options``).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import re
import shlex
import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from passk_tui.cli.flags import FlagParser, build_parser
from passk_tui.core.errors import ExitCode, InputError
from passk_tui.evaluations.settings_text import resume_changes, settings_from_args
from passk_tui.reports.export import check_export_path

if TYPE_CHECKING:
    from aiohttp import web
    from aiohttp.typedefs import Handler
    from textual_serve.server import Server

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: Our page for the served app: textual-serve's own one loads a web font from elsewhere.
TEMPLATES = Path(__file__).parents[1] / "web"
INSTALL_HINT = "pip install 'passk-tui[web]'"


def build_serve_parser() -> argparse.ArgumentParser:
    parser = FlagParser(
        prog="passk-tui serve",
        usage="passk-tui serve [--host HOST] [--port PORT] [APP FLAGS ...]",
        description=(
            "Serve the passk-tui app in a web browser (textual-serve). Every browser tab "
            "starts its own app process on this machine. There is NO authentication: anyone "
            "who can reach the address can run evaluations, and their agents' programs, as "
            f"you. It listens on {DEFAULT_HOST} unless --host says otherwise. Any other flag "
            "is the app's own (e.g. --demo, --agent/--version/--cases, --stack) and applies "
            "to every tab; with none, each tab opens on the Configure screen "
            "(Shift+Tab, Enter there runs the demo). Needs the web extra: " + INSTALL_HINT + "."
        ),
    )
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})"
    )
    parser.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})"
    )
    return parser


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be between 1 and 65535, got {value}")
    return value


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host`` (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def split_flags(argv: list[str]) -> tuple[argparse.Namespace, list[str], str | None]:
    """serve's own flags, the app's flags (checked now, the key taken out) and the key if given."""
    serve, rest = build_serve_parser().parse_known_args(argv)
    app = build_parser().parse_args(rest)  # a bad app flag: one line and exit 2, as for a run
    if app.headless:
        build_serve_parser().error(
            "--headless makes no sense with serve: the app is what is served"
        )
    try:
        check_app_flags(app, os.environ)
    except InputError as exc:
        build_serve_parser().error(str(exc))
    key = app.key
    if key is not None:
        rest = _without_key(rest)
    return serve, rest, key


def _without_key(argv: list[str]) -> list[str]:
    """The argv without ``--key K`` / ``--key=K`` (argparse accepted it: it is well formed)."""
    out: list[str] = []
    skip = False
    for item in argv:
        if skip:
            skip = False
        elif item == "--key":
            skip = True
        elif not item.startswith("--key="):
            out.append(item)
    return out


def app_command(app_argv: list[str]) -> str:
    """The shell command textual-serve runs per tab: this Python, the served app, its flags."""
    return shlex.join([sys.executable, "-m", "passk_tui.cli.serve", *app_argv])


def check_app_flags(app: argparse.Namespace, env: Mapping[str, str]) -> None:
    """Every app flag as a run checks it (config.py), nothing loaded or started, so a bad one
    fails once at start (InputError), not in every tab. Without what to measure the flags
    fill each tab's Configure: they are checked as if the demo said the rest."""
    for text in app.export or ():
        check_export_path(text)
    if app.resume:
        resume_changes(app)
    else:
        settings_from_args(argparse.Namespace(**{**vars(app), "demo": True}), env)


#: A Host header: a name or IPv4 address, or an IPv6 one in brackets; then maybe a port.
_HOST_HEADER = re.compile(r"(?P<name>\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(?P<port>[0-9]{1,5}))?")
#: On every answer (page, static files, refusals): only this server's own pages may frame it.
NO_FOREIGN_FRAMES = {
    "Content-Security-Policy": "frame-ancestors 'self'",
    "X-Frame-Options": "SAMEORIGIN",
}
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_WILDCARDS = frozenset({"", "0.0.0.0", "::"})


class Guard:
    """Which requests this server answers: those naming it in ``Host``, and a websocket only
    from its own page's ``Origin``. Refused otherwise, so that a page on another origin
    cannot drive the app (DNS rebinding included: that page's Host is its own name).

    Its names: ``--host`` itself; for a loopback address also ``localhost``, ``127.0.0.1``
    and ``::1``; bound to every interface (0.0.0.0, ::), any IP address and this machine's
    host names. Any port: a tunnel or a forwarded port may reach it on another one; a page
    served on another port has another Origin.
    """

    def __init__(self, host: str) -> None:
        bound = host.strip("[]").lower()
        self.names = {bound}
        self.any_address = bound in _WILDCARDS
        if is_loopback(bound) or self.any_address:
            self.names |= _LOOPBACK_NAMES
        if self.any_address:
            self.names |= {socket.gethostname().lower(), socket.getfqdn().lower()}

    def refusal(self, host: str | None, origin: str | None, websocket: bool) -> str | None:
        """Why a request with these headers is refused, or None to answer it."""
        served = self._host(host)
        if served is None:
            return "not this server's address (Host)"
        if origin is None:
            return "a websocket needs its page's Origin" if websocket else None
        try:
            parts = urlsplit(origin.lower())
            port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
        except ValueError:
            return "not this server's page (Origin)"
        if parts.scheme not in ("http", "https") or (parts.hostname, port) != served:
            return "not this server's page (Origin)"
        return None

    def _host(self, header: str | None) -> tuple[str, int] | None:
        """The Host header's (name, port) when it names this server, else None."""
        match = _HOST_HEADER.fullmatch((header or "").lower())
        if match is None:
            return None
        name = match["name"].strip("[]")
        if not (name in self.names or self._is_address(name)):
            return None
        return name, int(match["port"] or 80)

    def _is_address(self, name: str) -> bool:
        """Bound to every interface, any IP address names this server (no DNS, no rebinding)."""
        if not self.any_address:
            return False
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True


def run_serve(argv: list[str]) -> int:
    """Check the flags, then serve until Ctrl-C; the return value is the exit status."""
    serve, app_argv, key = split_flags(argv)
    try:
        served_app_server = _served_app_server()
    except ImportError:
        sys.stderr.write(f"passk-tui: serve needs textual-serve: {INSTALL_HINT}\n")
        return ExitCode.CANNOT_RUN
    if key is not None:
        os.environ["PASSK_KEY"] = key  # inherited by every app process, never on its command line
    if not is_loopback(serve.host):
        sys.stderr.write(
            f"passk-tui: warning: serving on {serve.host}:{serve.port} with no authentication: "
            "anyone who can reach it can run evaluations as you\n"
        )
    server = served_app_server(app_command(app_argv), host=serve.host, port=serve.port)
    try:
        server.serve()
    except OSError as exc:  # the port is taken, the address is not this machine's
        sys.stderr.write(
            f"passk-tui: cannot serve on {serve.host}:{serve.port}: {exc.strerror or exc}\n"
        )
        return ExitCode.CANNOT_RUN
    return 0


def _served_app_server() -> type[Server]:
    """textual-serve's Server with our page, our start line, and URLs from the request's Host.

    Built lazily because textual-serve is an optional extra. The page's websocket
    address comes from the address the browser used, so ``--host 0.0.0.0`` works from
    another machine (textual-serve would send it ws://0.0.0.0:...).
    """
    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    class ServedApp(Server):
        def __init__(self, command: str, *, host: str, port: int) -> None:
            super().__init__(command, host=host, port=port, title="passk-tui")
            self.templates_path = TEMPLATES
            #: Each open tab's websocket handler, so that a stop can end them.
            self._tabs: set[asyncio.Task[Any]] = set()
            self.guard = Guard(host)

        async def _make_app(self) -> web.Application:
            """textual-serve's aiohttp app, every request of it (page, websocket, static files,
            downloads) first past the guard, and every answer, refusals included, not to be
            framed by another site."""
            app = await super()._make_app()
            app.middlewares.append(self._guarded)
            app.on_response_prepare.append(_refuse_foreign_frames)
            return app

        @web.middleware
        async def _guarded(self, request: web.Request, handler: Handler) -> web.StreamResponse:
            upgrade = request.headers.get("Upgrade", "").lower()
            websocket = request.path == "/ws" or upgrade == "websocket"
            why = self.guard.refusal(
                request.headers.get("Host"), request.headers.get("Origin"), websocket
            )
            if why is not None:
                raise web.HTTPForbidden(text=f"passk-tui serve: refused: {why}\n")
            return await handler(request)

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            tab = asyncio.current_task()
            assert tab is not None
            self._tabs.add(tab)
            try:
                return await super().handle_websocket(request)
            finally:
                self._tabs.discard(tab)

        async def on_shutdown(self, app: web.Application) -> None:
            """SIGTERM or Ctrl-C with tabs open: end them now (each tab's app is told to quit),
            rather than wait the minute aiohttp gives open websockets before it cancels."""
            for tab in list(self._tabs):
                tab.cancel()

        async def on_startup(self, app: web.Application) -> None:
            shown = f"[{self.host}]" if ":" in self.host else self.host
            self.console.print(
                f"passk-tui: serving the app on http://{shown}:{self.port} (Ctrl-C to stop)",
                highlight=False,
                markup=False,
            )

        @aiohttp_jinja2.template("index.html")
        async def handle_index(self, request: web.Request) -> dict[str, Any]:
            origin = f"{request.scheme}://{request.host}"
            ws_scheme = "wss" if request.scheme == "https" else "ws"
            return {
                "font_size": _font_size(request.query.get("fontsize", "16")),
                "app_websocket_url": f"{ws_scheme}://{request.host}/ws",
                "config": {"static": {"url": f"{origin}/static/"}},
                "application": {"name": self.title},
            }

    return ServedApp


async def _refuse_foreign_frames(request: web.Request, response: web.StreamResponse) -> None:
    """aiohttp's hook as each answer's headers go out (the middleware misses the refusals it
    raises and aiohttp's own 404s)."""
    response.headers.update(NO_FOREIGN_FRAMES)


def _font_size(text: str) -> int:
    try:
        return max(6, min(48, int(text)))
    except ValueError:
        return 16


def run_served_app(argv: list[str]) -> int:
    """One browser tab's app process: the app itself, whatever stdout is (textual-serve's pipe)."""
    from passk_tui.cli.flags import parse
    from passk_tui.tui.app.launch import run_app

    return run_app(parse(argv), os.environ)


if __name__ == "__main__":  # what textual-serve starts for each browser tab (app_command)
    sys.exit(run_served_app(sys.argv[1:]))
