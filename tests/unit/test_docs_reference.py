"""The docs site's generated references hold everything the code has: every flag of every
subcommand as ``--help`` prints it, every named key of every screen, every exit status; and
every marker a page asks for is one the hooks make."""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from pathlib import Path

import pytest
from textual.app import App
from textual.binding import Binding

from docs.gen import cli_reference, hooks, keys_reference
from passk_tui.cli.main import main
from passk_tui.cli.subcommands import SUBCOMMANDS
from passk_tui.core.errors import ExitCode
from tests.support import ROOT


def printed_help(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([*argv, "--help"])
    return out.getvalue()


@pytest.mark.parametrize("argv", [[], *([name] for name in SUBCOMMANDS)], ids=str)
def test_every_flag_help_prints_is_in_the_cli_reference(argv: list[str]) -> None:
    page = cli_reference.page()
    # The flag column of --help: an indented line starting with a dash, up to its help text.
    heads = [line.strip().split("  ")[0] for line in printed_help(argv).splitlines()]
    flags = {
        flag for head in heads if head.startswith("-") for flag in re.findall(r"--?[\w-]+", head)
    }
    assert flags
    section = page.split(f"## `passk-tui {argv[0]}`" if argv else "## `passk-tui` (a run")[1]
    section = section.split("\n## ", 1)[0]
    missing = {flag for flag in flags if f"`{flag}" not in section}
    assert not missing, missing


def test_every_exit_status_is_in_the_table_with_its_meaning() -> None:
    table = cli_reference.exit_codes_markdown()
    for code in ExitCode:
        row = next(line for line in table.splitlines() if f"`{code.name}`" in line)
        assert row.startswith(f"| `{int(code)}` |") and row.rstrip(" |").split("|")[-1].strip()


def screens_with_keys() -> list[type]:
    """Every screen class under passk_tui/tui found by reading the sources (not the generator's
    walk), imported by its module name."""
    found = []
    for path in sorted((ROOT / "passk_tui" / "tui").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for cls in re.findall(r"^class (\w+)\(", path.read_text(encoding="utf-8"), re.M):
            value = getattr(importlib.import_module(name), cls)
            if "BINDINGS" in vars(value):
                found.append(value)
    return found


def test_every_named_binding_of_every_class_is_on_the_keys_page() -> None:
    page = keys_reference.page()
    classes = screens_with_keys()
    assert len(classes) >= 15  # the app, its screens and widgets with keys
    for cls in classes:
        for binding in Binding.make_bindings(vars(cls)["BINDINGS"]):
            if binding.tooltip and binding.description:
                key = App().get_key_display(binding)
                rows = [line for line in page.splitlines() if f"| {binding.description} |" in line]
                assert any(f"`{key}`" in row for row in rows), (cls, binding)


def test_the_pages_markers_are_all_made() -> None:
    pages = (ROOT / "docs").rglob("*.md")
    asked = {m for p in pages for m in hooks.MARKER.findall(p.read_text(encoding="utf-8"))}
    assert asked == set(hooks.GENERATED)
    text = hooks.generated("<!-- generated: exit-codes -->")
    assert "`GATE_FAILED`" in text and "<!--" not in text


def test_llms_txt_links_every_page_of_the_nav() -> None:
    import yaml

    config = yaml.safe_load(
        re.sub(r"!!python\S*", "", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    )
    config["docs_dir"] = str(ROOT / "docs")
    text = hooks.llms_txt(config)
    pages = list(hooks.nav_pages(config["nav"], Path(config["docs_dir"])))
    assert text.startswith("# passk-tui\n\n> ") and len(pages) >= 20
    for title, path in pages:
        assert f"- [{title}]({hooks.page_url(path)})" in text


def test_every_keyword_of_evaluate_and_the_marker_is_on_the_python_page() -> None:
    import inspect

    import passk_tui
    from passk_tui.api.pytest_session import KEYWORDS

    page = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    keywords = [
        name
        for name, parameter in inspect.signature(passk_tui.evaluate).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    missing = [name for name in [*keywords, *KEYWORDS] if f"`{name}" not in page]
    assert not missing, missing
    listed = page.split("**Every flag is a keyword**")[1].split("`baseline=V`")[0]
    twice = [name for name in keywords if listed.count(f"`{name}`") > 1]
    assert not twice, twice  # the list once named family_wise twice
