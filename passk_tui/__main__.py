"""Entry point: parse flags, then hand over to the headless CLI or (lazily) the app."""

from __future__ import annotations

import os
import sys
from typing import NoReturn


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["init"]:
        from passk_tui.starter import run_init

        return run_init(argv[1:])
    if argv[:1] == ["history"]:
        from passk_tui.cli.run import run_history

        return run_history(argv[1:])
    if argv[:1] == ["compare"]:
        from passk_tui.cli.compare import run_compare

        return run_compare(argv[1:])
    if argv[:1] == ["serve"]:
        from passk_tui.cli.serve import run_serve

        return run_serve(argv[1:])
    from passk_tui.cli.flags import parse

    args = parse(argv)
    if args.headless or not sys.stdout.isatty():
        from passk_tui.cli.run import run_headless

        return run_headless(args, os.environ)
    from passk_tui.tui.launch import run_app

    return leave(run_app(args, os.environ))


def leave(status: int) -> NoReturn:
    """End the process now, once the app has closed: its results are on disk and its last
    lines printed; tearing down its thousands of widgets and styles took a third of a
    second after the last frame, every time the user quit."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
