"""What the settings schema (``core.inputs.schema``) says of each setting: the kinds of its
rows, and its parsers, imported only when first called so that --help stays light.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from importlib import import_module
from typing import Any, NamedTuple


def lazy_parser(module: str, name: str) -> Callable[..., Any]:
    """``core.inputs.<module>.<name>``, imported when first called: --help reads this table,
    and loading the parsers (fractions, decimal, dataclasses) cost it a third of its time."""

    def parse(*args: Any) -> Any:
        found: Callable[..., Any] = getattr(import_module(f"passk_tui.core.inputs.{module}"), name)
        return found(*args)

    parse.__qualname__ = parse.__name__ = name
    return parse


parse_attempts = lazy_parser("settings", "parse_attempts")
parse_concurrency = lazy_parser("settings", "parse_concurrency")
parse_confidence = lazy_parser("settings", "parse_confidence")
parse_precision = lazy_parser("settings", "parse_precision")
parse_require = lazy_parser("settings", "parse_require")
parse_timeout = lazy_parser("settings", "parse_timeout")
parse_version = lazy_parser("settings", "parse_version")
parse_whole_number = lazy_parser("settings", "parse_whole_number")
parse_price = lazy_parser("price", "parse_price")
parse_money = lazy_parser("price", "parse_money")
#: The same rules for a value given typed (the Python API): (value, how to show it) -> value.
at_least_one = lazy_parser("settings", "at_least_one")
in_flight = lazy_parser("settings", "in_flight")
level = lazy_parser("settings", "level")
seconds = lazy_parser("settings", "seconds")
share = lazy_parser("settings", "share")
price_amount = lazy_parser("price", "price_amount")
money_amount = lazy_parser("price", "money_amount")


class Group(Enum):
    """The --help section a flag is listed under (its title is the value)."""

    WHAT = "what to measure"
    HOW = "how to run"
    MONEY = "what it may cost"


class Kind(Enum):
    """A setting's value type: how a typed value is taken (``evaluations.settings_text``) and
    laid out in its store column (``store.rows``), one rule per type rather than per setting."""

    #: Text as given (a path, a name, an address).
    TEXT = "text"
    #: A whole number.
    WHOLE = "whole"
    #: A number (seconds, a level, a width).
    NUMBER = "number"
    #: Yes or no.
    SWITCH = "switch"
    #: A fraction kept exact, as written (``9/10``).
    RATIO = "ratio"
    #: Money kept exact, as its decimal (``2.50``).
    MONEY = "money"


class Origin(Enum):
    """Who gave a setting, so that a bad one is named in their words."""

    #: The command line: the flag (``--max-attempts``).
    CLI = "flag"
    #: ``evaluate(...)``: the keyword (``max_attempts``).
    API = "keyword"
    #: The Configure form: its label (``Stack key``).
    FORM = "label"


#: What a row says for its setting, keyword or column when that is its name, as most are: the
#: row says its name once, and the table (``core.inputs.schema``) reads each as the name.
NAME = "<the name>"

#: A line about some fields, worded for whoever gave them: given what they call a field (by
#: its name), it says the line (``f"{called('price_in')}: give {called('price_out')} too"``).
Worded = Callable[[Callable[[str], str]], str]


class Resume(Enum):
    """What a resume (``--resume ID``) may do with a setting given again."""

    #: What is measured: the same value again, or refused.
    MEASURED = "measured"
    #: An extension may raise it, never lower it (more attempts measure more of the same).
    GROWING = "growing"
    #: An adaptive evaluation's stop rule: given anew it may re-decide cases.
    STOP_RULE = "stop rule"
    #: A budget holds across resumes: it may be lowered (or set), never raised.
    BUDGET = "budget"
    #: How it runs: taken as given.
    RUNNING = "running"
    #: A price: the stored one is kept (one may be given where none was).
    PRICE = "price"
    #: Not a stored setting (the key, the baseline): read anew each time.
    NOT_STORED = "not stored"


class Field(NamedTuple):
    """One setting, as each face calls it and as it is parsed, resumed and stored."""

    #: The validator's and the form's name for it (``validate``'s keys).
    name: str
    #: Its flag (``--budget-cost``).
    flag: str
    #: The --help section.
    group: Group
    #: Its --help line.
    help: str
    #: --help's placeholder for its value; None: a switch (given or not).
    metavar: str | None = None
    #: Text to typed value, raising InputError naming no field; None: taken as given (a path,
    #: a switch) or checked against other fields by the validator.
    parse: Callable[[str], Any] | None = None
    #: What ``parse`` checks once the text is a value, for a value given typed: (value, how
    #: to show it) -> value, raising InputError naming no field; None: its kind says it all.
    rule: Callable[[Any, str], Any] | None = None
    #: Its ``Settings`` attribute (``NAME``: its name); None: not part of the settings (the
    #: key, the baseline).
    setting: str | None = NAME
    #: Its ``evaluate(...)`` keyword (``NAME``: its name); None: the API takes it otherwise
    #: (the agent argument, ``Stack(url, key)``).
    keyword: str | None = NAME
    #: Its Configure form label; None: not on the form.
    label: str | None = None
    #: The form field's placeholder (a switch: its checkbox's words).
    placeholder: str = ""
    #: What the form field says on hover ("" for none).
    tooltip: str = ""
    #: What a resume may do with it.
    resume: Resume = Resume.RUNNING
    #: Its column in the store's ``evaluations`` table (``NAME``: its name); None: not stored.
    #: A store without it gains it when opened (``store.schema``): no migration is written
    #: for a setting.
    column: str | None = NAME
    #: Its value type (a switch's is SWITCH).
    kind: Kind = Kind.TEXT

    @property
    def switch(self) -> bool:
        """A yes/no setting (a flag with no value, a checkbox)."""
        return self.metavar is None

    def called(self, origin: Origin) -> str:
        """What ``origin`` calls it: its flag, its keyword (else its name: the agent argument,
        ``Stack(url, key)``) or its form label (else its name)."""
        if origin is Origin.CLI:
            return self.flag
        if origin is Origin.API:
            return self.keyword or self.name
        return self.label or self.name


def named(*rows: Field) -> tuple[Field, ...]:
    """The rows as every face reads them: each setting, keyword and column a row leaves at
    ``NAME`` (says nothing of) is the row's name."""

    def said(given: str | None, row: Field) -> str | None:
        return row.name if given == NAME else given

    return tuple(
        row._replace(
            setting=said(row.setting, row),
            keyword=said(row.keyword, row),
            column=said(row.column, row),
        )
        for row in rows
    )
