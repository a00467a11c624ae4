"""mkdocs hooks (mkdocs.yml ``hooks:``): the references generated from the code, the
screenshots from the repository's ``screenshots/``, and ``llms.txt`` at the site's root.

A page asks for a generated part with a marker line (``<!-- generated: cli -->``); the
marker is replaced on every build, so the site never shows a flag, key or exit status the
code no longer has. The pages keep their own words around the marker.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# mkdocs imports this file by path and then restores sys.path; the generators import the
# package (not installed in a checkout) when a page is built: the root stays on the path.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mkdocs.structure.files import File, Files  # noqa: E402

from docs.gen import cli_reference, keys_reference  # noqa: E402

#: What each marker becomes.
GENERATED: dict[str, Callable[[], str]] = {
    "cli": cli_reference.page,
    "exit-codes": cli_reference.exit_codes_markdown,
    "keys": keys_reference.page,
}
MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)


def generated(markdown: str) -> str:
    """``markdown`` with each marker replaced by what it names."""

    def part(match: re.Match[str]) -> str:
        if match[1] not in GENERATED:
            raise ValueError(f"unknown generated part {match[1]!r}")
        return GENERATED[match[1]]().strip()

    return MARKER.sub(part, markdown)


def on_config(config: Any) -> Any:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return config


def on_files(files: Files, config: Any) -> Files:
    """The screenshots are the README's too: served from the repository's folder, not copied."""
    for shot in sorted((ROOT / "screenshots").iterdir()):
        files.append(
            File(
                f"screenshots/{shot.name}",
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    files.append(File.generated(config, "llms.txt", content=llms_txt(config)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return generated(markdown)


def nav_pages(nav: list[Any], docs: Path) -> Iterator[tuple[str, str]]:
    """(title, path) of every page in mkdocs.yml's nav, in its order; a page listed without
    a title is named by its first heading."""
    for item in nav:
        title, value = next(iter(item.items())) if isinstance(item, dict) else (None, item)
        if isinstance(value, list):
            yield from nav_pages(value, docs)
        elif not str(value).startswith(("http://", "https://")):
            text = (docs / value).read_text(encoding="utf-8")
            yield title or text.split("\n", 1)[0].lstrip("# ").strip(), value


def first_paragraph(markdown: str) -> str:
    """The page's first paragraph of prose, on one line (its heading, code and tables skipped)."""
    for block in markdown.split("\n\n"):
        block = block.strip()
        if block and not block.startswith(("#", "```", "|", "<!--", "![", "-")):
            return " ".join(block.split())
    return ""


def page_url(path: str) -> str:
    """Where the built site serves the page at ``path`` (directory URLs), from its root."""
    folder = path.removesuffix(".md").removesuffix("index")
    if not folder:
        return "./"
    return folder if folder.endswith("/") else folder + "/"


def llms_txt(config: Any) -> str:
    """The site for a language model (llmstxt.org): what it is, then a link and a line per page."""
    docs = Path(config["docs_dir"])
    lines = ["# passk-tui", "", f"> {' '.join(config['site_description'].split())}", ""]
    lines += ["## Docs", ""]
    for title, path in nav_pages(config["nav"], docs):
        said = first_paragraph((docs / path).read_text(encoding="utf-8"))
        said = said if len(said) <= 240 else said[:239].rsplit(" ", 1)[0] + "…"
        url = page_url(path)
        lines.append(f"- [{title}]({url}): {said}" if said else f"- [{title}]({url})")
    return "\n".join(lines) + "\n"
