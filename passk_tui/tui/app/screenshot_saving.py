"""The app's screenshots: where the Screenshot command saves, saying so, and SVG that reads
the same outside a browser.

Textual saves into the user's Downloads folder and says nothing either way, so on a
machine without one (a server, a container) the command failed silently. Here it saves
into Downloads when that folder exists, else into the working folder, and one
notification names the file, or why it could not be written.

Each styled run is a ``<text>`` with a ``textLength``; SVG viewers outside browsers
(rsvg, image previews) strip a run's leading spaces under the default ``xml:space``
and stretch the rest over the length, so axis labels and right-aligned figures
moved. ``xml:space="preserve"`` on the root keeps every space where it was drawn.
"""

from __future__ import annotations

import io
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from platformdirs import user_downloads_path

if TYPE_CHECKING:
    from textual import events
    from textual.app import App


def preserve_spaces(svg: str) -> str:
    """An exported screenshot with its spaces kept by every SVG viewer, not only browsers."""
    return svg.replace("<svg ", '<svg xml:space="preserve" ', 1)


def screenshot_folder() -> Path:
    """The Downloads folder when there is one, else the working folder."""
    downloads = user_downloads_path()
    return downloads if downloads.is_dir() else Path.cwd()


def deliver_screenshot(
    app: App[Any],
    filename: str | None = None,
    path: str | None = None,
    time_format: str | None = None,
) -> str | None:
    """Textual's ``App.deliver_screenshot``, with spaces preserved, into ``screenshot_folder``
    unless told where (``PasskApp.deliver_screenshot`` is this)."""
    when = datetime.now().strftime(time_format or "%Y-%m-%dT%H_%M_%S")
    return app.deliver_text(
        io.StringIO(preserve_spaces(app.export_screenshot())),
        save_directory=path or screenshot_folder(),
        save_filename=filename or f"{app.title} {when}.svg",
        open_method="browser",
        mime_type="image/svg+xml",
        name="screenshot",
    )


# Textual's own delivery handlers (on App) would say it again, one with its markup showing
# raw: the app's handlers call these and, when they said it, prevent_default keeps the
# message from App's. The path is text (markup=False): a folder named "shots [1]" is not markup.


def say_saved(app: App[Any], event: events.DeliveryComplete) -> None:
    """A screenshot was written: say where, once."""
    if event.name == "screenshot":
        event.prevent_default()
        where = f" to {event.path}" if event.path is not None else ""
        app.notify(f"Screenshot saved{where}", title="Screenshot", markup=False)


def say_not_saved(app: App[Any], event: events.DeliveryFailed) -> None:
    """A screenshot could not be written: say why, once."""
    if event.name == "screenshot":
        event.prevent_default()
        app.notify(
            f"Screenshot not saved: {event.exception}",
            title="Screenshot",
            severity="error",
            markup=False,
        )
