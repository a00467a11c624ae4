"""``python -m passk_tui``: the same as the ``passk-tui`` console script (``cli/main.py``)."""

from __future__ import annotations

import sys

from passk_tui.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
