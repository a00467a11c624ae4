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
from typing import Any

from platformdirs import user_downloads_path
from textual import events
from textual.app import App


def preserve_spaces(svg: str) -> str:
    """An exported screenshot with its spaces kept by every SVG viewer, not only browsers."""
    return svg.replace("<svg ", '<svg xml:space="preserve" ', 1)


def screenshot_folder() -> Path:
    """The Downloads folder when there is one, else the working folder."""
    downloads = user_downloads_path()
    return downloads if downloads.is_dir() else Path.cwd()


class ScreenshotSaving(App[Any]):
    """The app's Screenshot: saved where it can be, and where it went said."""

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Textual's, with spaces preserved, into ``screenshot_folder`` unless told where."""
        when = datetime.now().strftime(time_format or "%Y-%m-%dT%H_%M_%S")
        return self.deliver_text(
            io.StringIO(preserve_spaces(self.export_screenshot())),
            save_directory=path or screenshot_folder(),
            save_filename=filename or f"{self.title} {when}.svg",
            open_method="browser",
            mime_type="image/svg+xml",
            name="screenshot",
        )

    # Textual's own handlers (on App) would say it again, one with its markup showing raw:
    # prevent_default keeps the message from the classes after this one. The path is text
    # (markup=False): a folder named "shots [1]" is not markup.

    def on_delivery_complete(self, event: events.DeliveryComplete) -> None:
        if event.name == "screenshot":
            event.prevent_default()
            where = f" to {event.path}" if event.path is not None else ""
            self.notify(f"Screenshot saved{where}", title="Screenshot", markup=False)

    def on_delivery_failed(self, event: events.DeliveryFailed) -> None:
        if event.name == "screenshot":
            event.prevent_default()
            self.notify(
                f"Screenshot not saved: {event.exception}",
                title="Screenshot",
                severity="error",
                markup=False,
            )
