"""What one evaluation measures and how it runs, with the checks both faces share.

The parse functions raise InputError with a message that names no flag or
field: the CLI prefixes the flag, the configure screen shows it by the field. A value
given typed (the Python API) is held to the same rules (``at_least_one``, ``level``...,
each taking the value and how to show it) by ``core.inputs.typed``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from passk_tui.core.errors import InputError
from passk_tui.core.inputs.price import Price
from passk_tui.core.text.mentions import shorten
from passk_tui.core.text.terminal_text import escape, first_unsafe

DEFAULT_ATTEMPTS = 5
DEFAULT_K = 3
DEFAULT_CONCURRENCY = 4
DEFAULT_TIMEOUT = 300.0


@dataclass(frozen=True, slots=True)
class Settings:
    """An evaluation's settings: the measured part (agent .. completion_only) and the running part."""

    agent: str
    version: int
    cases_path: str
    attempts: int = DEFAULT_ATTEMPTS
    k: int = DEFAULT_K
    completion_only: bool = False
    require: Fraction | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    stack: str | None = None
    agents_path: str | None = None
    max_attempts: int | None = None
    """Adaptive (``--max-attempts``): undecided cases get more attempts up to this; None: fixed n."""
    precision: float | None = None
    """Adaptive without a gate: the widest pass@1 interval a decided case may have (None: 0.2)."""
    confidence: float | None = None
    """``--confidence``: the level of the intervals shown and of the gate (None: not given)."""
    price: Price | None = None
    """The version's price per million tokens (``--price-in``/``--price-out``, or the agents
    file's ``price``); None: no prices, so no money is shown."""
    budget_runs: int | None = None
    """``--budget-runs``: at most this many Runs started by the evaluation, resumes included."""
    budget_cost: Fraction | None = None
    """``--budget-cost``: no attempt starts once this much money is spent (exact)."""
    budget_errors: int | None = None
    """``--budget-errors``: no attempt starts once this many have errored, resumes included."""
    family_wise: bool = False
    """``--family-wise``: the gate's promise is the whole suite's, not each case's."""
    executor: str = "local"
    """``--executor``: where local `command` agents run, ``local`` (here) or ``ray`` (a Ray
    cluster). How, not what, is measured: not stored, given again to a resume."""
    ray_address: str | None = None
    """``--ray-address`` (or RAY_ADDRESS) with ``--executor ray``; None: a Ray started here."""
    label: str | None = None
    """``--label``: a few words to tell the evaluation apart in History (None: none)."""
    extended: bool = False
    """Attempts were added after some were recorded (``--resume ID --attempts N`` or
    ``--max-attempts N``, the app's More attempts): n was chosen by looking, so every interval
    is the anytime-valid one from then on (``core.stats.rates.interval_choice``)."""

    @property
    def adaptive(self) -> bool:
        """Whether undecided cases get more attempts (and every interval is the anytime-valid one)."""
        return self.max_attempts is not None


def default_k(attempts: int) -> int:
    """k defaults to 3, or to the attempts when fewer than 3 are made."""
    return min(DEFAULT_K, attempts)


def at_least_one(value: int, shown: str = "") -> int:
    """An attempts count or a budget of Runs: 1 or more."""
    if value < 1:
        raise InputError(f"must be at least 1, got {value}")
    return value


def parse_attempts(text: str) -> int:
    return at_least_one(parse_whole_number(text))


def check_k(value: int, attempts: int) -> int:
    """pass@k's k: between 1 and the attempts."""
    if not 1 <= value <= attempts:
        raise InputError(f"must be between 1 and the attempts ({attempts}), got {value}")
    return value


def check_max_attempts(value: int, attempts: int) -> int:
    """An adaptive evaluation's cap: at least the attempts every case gets."""
    if value < attempts:
        raise InputError(f"must be at least the attempts ({attempts}), got {value}")
    return value


def level(value: float, shown: str) -> float:
    """A confidence level or an interval's width: strictly between 0 and 1."""
    if not 0.0 < value < 1.0:
        raise InputError(f"must be strictly between 0 and 1, got {shown}")
    return value


def parse_confidence(text: str) -> float:
    """A level strictly between 0 and 1; raises InputError with a message for the user."""
    try:
        value = float(text.strip())
    except ValueError:
        raise InputError(f"must be a number between 0 and 1, got {shorten(text)!r}") from None
    return level(value, shorten(text.strip()))


def parse_precision(text: str) -> float:
    """An interval width: strictly between 0 and 1, as a level is."""
    return parse_confidence(text)


def parse_version(text: str) -> int:
    return parse_whole_number(text)


#: Most Runs in flight at once: each is a task (and a connection or a process) held for the
#: whole evaluation, so 2**63 of them would fill memory before the first attempt starts.
MAX_CONCURRENCY = 10_000


def in_flight(value: int, shown: str = "") -> int:
    """Runs in flight at once: between 1 and MAX_CONCURRENCY."""
    if not 1 <= value <= MAX_CONCURRENCY:
        raise InputError(f"must be between 1 and {MAX_CONCURRENCY:,}, got {value}")
    return value


def parse_concurrency(text: str) -> int:
    return in_flight(parse_whole_number(text))


def seconds(value: float, shown: str) -> float:
    """A deadline: a positive, finite number of seconds."""
    if not value > 0 or value == float("inf"):
        raise InputError(f"must be a positive number of seconds, got {shown}")
    return value


def parse_timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"must be a number of seconds, got {shorten(text)!r}") from None
    return seconds(value, repr(shorten(text)))


#: The largest power of ten a --require may be written with: 1e-100000000 as an exact
#: fraction is a hundred-million-digit integer (minutes to build), and past 1e-100 a gate
#: means 0 for any evaluation there can be.
MAX_REQUIRE_EXPONENT = 100
#: Longest --require text: more digits than that say nothing a gate can tell apart.
MAX_REQUIRE_CHARS = 100

_EXPONENT = re.compile(r"[eE][+-]?(\d+)")


def parse_require(text: str) -> Fraction:
    """The gate as an exact fraction of its decimal text, so 0.9 means exactly 9/10."""
    if len(text.strip()) > MAX_REQUIRE_CHARS:
        raise InputError(
            f"must be a number between 0 and 1 of at most {MAX_REQUIRE_CHARS} characters, "
            f"got {len(text.strip()):,}"
        )
    exponent = _EXPONENT.search(text)
    if exponent and int(exponent[1]) > MAX_REQUIRE_EXPONENT:
        raise InputError(
            f"must be a number between 0 and 1 with an exponent of at most "
            f"{MAX_REQUIRE_EXPONENT}, got {text.strip()!r}"
        )
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise InputError(f"must be a number between 0 and 1, got {shorten(text)!r}") from None
    return share(value, shorten(text))


def share(value: Fraction, shown: str) -> Fraction:
    """A gate: a share between 0 and 1, exact."""
    if not 0 <= value <= 1:
        raise InputError(f"must be between 0 and 1, got {shown}")
    return value


#: Longest --label: a few words, one line of History.
MAX_LABEL_CHARS = 60
#: Longest agent id or name taken from --agent.
MAX_AGENT_CHARS = 200


def parse_label(text: str) -> str:
    """A label: one line of printable text, trimmed, at most MAX_LABEL_CHARS."""
    return _one_line(text.strip(), MAX_LABEL_CHARS)


def parse_agent_name(text: str) -> str:
    """An agent id or name: one line of text, not absurdly long (InputError names no flag)."""
    return _one_line(text, MAX_AGENT_CHARS)


def _one_line(text: str, most: int) -> str:
    """``text`` if it is not blank, at most ``most`` characters and holds no control character:
    it is shown on the terminal and in one row of History."""
    if not text.strip():
        raise InputError("must not be empty")
    if len(text) > most:
        raise InputError(f"at most {most} characters, got {len(text):,}")
    unsafe = first_unsafe(text)
    if unsafe is not None:
        raise InputError(f"holds a control character ({escape(unsafe)})")
    return text


#: The largest whole number a flag takes: what the store's 64-bit integers hold.
MAX_WHOLE_NUMBER = 2**63 - 1


def parse_whole_number(text: str) -> int:
    stripped = text.strip()
    digits = stripped.lstrip("+-").lstrip("0")
    # Past 4,300 digits int() itself refuses the text: too large, not "not a number".
    if len(digits) > len(str(MAX_WHOLE_NUMBER)) and digits.isdigit():
        raise InputError(f"must be at most {MAX_WHOLE_NUMBER}, got a {len(stripped)}-digit number")
    try:
        value = int(stripped)
    except ValueError:
        raise InputError(f"must be a whole number, got {shorten(text)!r}") from None
    return storable_whole(value, stripped)


def storable_whole(value: int, shown: str) -> int:
    """A whole number the store's 64-bit integers hold (``shown``: as it was written)."""
    if abs(value) > MAX_WHOLE_NUMBER:
        raise InputError(f"must be at most {MAX_WHOLE_NUMBER}, got a {len(shown)}-digit number")
    return value
