"""The CLI reference page, made from the argparse parsers themselves and the ``ExitCode`` enum.

Each parser is the one ``passk-tui [SUBCOMMAND] --help`` prints: it is caught as it is about to
print, so a flag added anywhere (by hand or from a settings schema) reaches the page without an
edit here, and a subcommand added to ``cli/subcommands.py``'s ``SUBCOMMANDS`` gets its section.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import io
import re
from collections.abc import Iterator
from typing import NoReturn


class _Caught(Exception):
    """Raised instead of printing a help: carries the parser that would have printed it."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__(parser.prog)
        self.parser = parser


def _catch(self: argparse.ArgumentParser, file: object = None) -> NoReturn:
    raise _Caught(self)


def parser_of(argv: list[str]) -> argparse.ArgumentParser:
    """The parser that ``passk-tui *argv --help`` prints the help of."""
    from passk_tui.cli.main import main

    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        original = argparse.ArgumentParser.print_help
        argparse.ArgumentParser.print_help = _catch  # type: ignore[method-assign]
        try:
            main([*argv, "--help"])
        except _Caught as caught:
            return caught.parser
        finally:
            argparse.ArgumentParser.print_help = original  # type: ignore[method-assign]
    raise LookupError(f"passk-tui {' '.join([*argv, '--help'])} printed no help")


def parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The run's parser (no subcommand), then each subcommand's, in the order main lists them."""
    from passk_tui.cli.subcommands import SUBCOMMANDS

    yield "", parser_of([])
    for name in SUBCOMMANDS:
        yield name, parser_of([name])


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _flag(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    if action.nargs == 0:
        return ", ".join(f"`{name}`" for name in action.option_strings)
    metavar = action.metavar or action.dest.upper()
    shown = metavar if isinstance(metavar, str) else " ".join(metavar)
    return ", ".join(f"`{name} {shown}`" for name in action.option_strings)


def _prose(parser: argparse.ArgumentParser, text: str) -> str:
    """An epilog: a paragraph, or as laid out when the parser keeps its lines (a list)."""
    if issubclass(parser.formatter_class, argparse.RawDescriptionHelpFormatter):
        return "```text\n" + text.strip("\n") + "\n```"
    return _cell(text)


def usage(parser: argparse.ArgumentParser) -> str:
    """The usage line as --help prints it, wrapped at 88 columns whatever the terminal."""
    formatter = argparse.HelpFormatter(parser.prog, width=88)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, "")
    return formatter.format_help().strip()


def parser_markdown(name: str, parser: argparse.ArgumentParser) -> str:
    """One parser as a section: its usage, description, a table per group, its epilog."""
    formatter = parser._get_formatter()
    lines = [f"## `{parser.prog}`" if name else "## `passk-tui` (a run, or the app)", ""]
    lines += ["```text", usage(parser), "```", ""]
    if parser.description:
        lines += [_cell(re.sub(r"-\n\s*", "-", parser.description)), ""]
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if a.help != argparse.SUPPRESS]
        if not actions:
            continue
        lines += [f"**{group.title}**", "", "| Flag | Meaning |", "| --- | --- |"]
        for action in actions:
            lines.append(f"| {_flag(action)} | {_cell(formatter._expand_help(action))} |")
        lines.append("")
    if parser.epilog:
        lines += [_prose(parser, parser.epilog), ""]
    return "\n".join(lines)


def exit_codes() -> list[tuple[int, str, str]]:
    """(value, name, meaning) of each ``ExitCode`` member, its meaning its ``#:`` comment."""
    from passk_tui.core.errors import ExitCode

    source = inspect.getsource(ExitCode)
    comments: dict[str, str] = {}
    said: list[str] = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#:"):
            said.append(stripped.removeprefix("#:").strip())
        elif said and "=" in stripped:
            target = ast.parse(stripped).body[0]
            if isinstance(target, ast.Assign) and isinstance(target.targets[0], ast.Name):
                comments[target.targets[0].id] = " ".join(said)
            said = []
        elif not stripped.startswith("#"):
            said = []
    return [(int(code), code.name, comments.get(code.name, "")) for code in ExitCode]


def exit_codes_markdown() -> str:
    rows = ["| Status | `ExitCode` | Meaning |", "| --- | --- | --- |"]
    rows += [
        f"| `{value}` | `{name}` | {_cell(meaning)} |" for value, name, meaning in exit_codes()
    ]
    return "\n".join(rows)


def page() -> str:
    """The whole generated part of the CLI reference."""
    sections = [parser_markdown(name, parser) for name, parser in parsers()]
    sections.append(
        f"## Exit status\n\nFrom `ExitCode` (`passk_tui/core/errors.py`):\n\n"
        f"{exit_codes_markdown()}\n"
    )
    return "\n".join(sections)
