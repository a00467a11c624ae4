"""The agent under test, as a fixture: set up once per test, shared by all its attempts."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import support_bot


@pytest.fixture
def agent() -> Callable[[str], str]:
    return support_bot.answer
