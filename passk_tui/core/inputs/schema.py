"""Every setting declared once: its flag, API keyword, form label, group, parser, resume rule,
store column and help, so that a new setting is one row here plus its use.

argparse (``cli.flags``), the Configure form (``tui.screens.configure``), the Python API's
keyword handling (``api.evaluate``), the validator's flag names and the resume rules
(``evaluations``) read this table instead of spelling each setting out. Pure: names and
parsers only (no argparse, no Textual), so every face may import it.
"""

from __future__ import annotations

# Field, Group and Resume are read through this module by every face: the schema is the one name.
from passk_tui.core.inputs.field import Field as Field
from passk_tui.core.inputs.field import Group as Group
from passk_tui.core.inputs.field import Kind as Kind
from passk_tui.core.inputs.field import Origin as Origin
from passk_tui.core.inputs.field import Resume as Resume
from passk_tui.core.inputs.field import Worded as Worded
from passk_tui.core.inputs.field import (
    at_least_one,
    in_flight,
    lazy_parser,
    level,
    named,
    parse_attempts,
    parse_concurrency,
    parse_confidence,
    parse_precision,
    parse_require,
    parse_timeout,
    parse_version,
    parse_whole_number,
    seconds,
    share,
)
from passk_tui.core.inputs.money_fields import MONEY_FIELDS

#: What the confident gate means, in one line, for --confidence's help. Here, beside the
#: setting it explains, and not with the gate (``core.stats.gating``): --help prints it
#: without loading the statistics.
CONFIDENT_GATE_MEANING = (
    "with --require X the gate reads the pass@k interval: pass when it lies wholly at or above X, "
    "fail when wholly below, else undecided (exit 4: more attempts would settle it)"
)
#: The same in a few words, for the Configure form's hint beside the confidence.
CONFIDENT_GATE_SHORT = "the gate reads intervals: pass, fail, undecided"

#: Every setting; a row that says no setting, keyword or column has its name for each.
FIELDS: tuple[Field, ...] = named(
    Field(
        "agent",
        "--agent",
        Group.WHAT,
        "agent id on the stack, else a local agent's name; several (a,b) run a matrix",
        "ID",
        keyword=None,
        label="Agent",
        placeholder="agent id, or a local name",
        resume=Resume.MEASURED,
    ),
    Field(
        "version",
        "--version",
        Group.WHAT,
        "the exact agent version (integer); several (1,2,3) run a matrix, every case on "
        "each, the first compared with each other; --version alone prints passk-tui's own",
        "N",
        parse=parse_version,
        label="Version",
        placeholder="e.g. 3, or several: 1,2,3",
        resume=Resume.MEASURED,
        kind=Kind.WHOLE,
    ),
    Field(
        "cases",
        "--cases",
        Group.WHAT,
        "cases file (.toml or .jsonl)",
        "PATH",
        setting="cases_path",
        column="cases_path",
        label="Cases file",
        placeholder="a .toml or .jsonl file",
        resume=Resume.MEASURED,
    ),
    Field(
        "attempts",
        "--attempts",
        Group.WHAT,
        "attempts per case (default 5)",
        "N",
        parse=parse_attempts,
        rule=at_least_one,
        label="Attempts",
        placeholder="per case (default 5)",
        resume=Resume.GROWING,
        kind=Kind.WHOLE,
    ),
    Field(
        "max_attempts",
        "--max-attempts",
        Group.WHAT,
        "adaptive: after --attempts, more attempts for each undecided case, up to N",
        "N",
        # Its floor (the attempts) is the validator's to check; a resume checks the stored one.
        parse=parse_attempts,
        rule=at_least_one,
        resume=Resume.GROWING,
        kind=Kind.WHOLE,
    ),
    Field(
        "precision",
        "--precision",
        Group.WHAT,
        "adaptive without --require: a case is decided once its pass@1 interval is at most "
        "W wide (default 0.2)",
        "W",
        parse=parse_precision,
        rule=level,
        resume=Resume.STOP_RULE,
        kind=Kind.NUMBER,
    ),
    Field(
        "k",
        "--k",
        Group.WHAT,
        "the k in pass@k (default 3, or --attempts if smaller)",
        "K",
        # Its range (1..attempts) is the validator's; a resume refuses any k but the stored one.
        parse=parse_whole_number,
        label="k",
        placeholder="pass@k's k (default 3)",
        resume=Resume.MEASURED,
        kind=Kind.WHOLE,
    ),
    Field(
        "completion_only",
        "--completion-only",
        Group.WHAT,
        "accept cases with no check: such a case passes when its Turn completes",
        label="Completion only",
        placeholder="accept cases with no check (a completed Turn passes)",
        resume=Resume.MEASURED,
        kind=Kind.SWITCH,
    ),
    Field(
        "baseline",
        "--baseline",
        Group.WHAT,
        "also run version V on the same cases, interleaved, and print the comparison "
        "(as `passk-tui compare`); --require then gates the candidate (--version)",
        "V",
        parse=parse_version,
        setting=None,
        column=None,
        label="Baseline",
        placeholder="a version to compare with",
        resume=Resume.NOT_STORED,
        kind=Kind.WHOLE,
    ),
    Field(
        "require",
        "--require",
        Group.HOW,
        "exit 1 when any case's pass@k is below X (0..1)",
        "X",
        parse=parse_require,
        rule=share,
        label="Require",
        placeholder="gate on pass@k, 0..1",
        resume=Resume.STOP_RULE,
        kind=Kind.RATIO,
    ),
    Field(
        "confidence",
        "--confidence",
        Group.HOW,
        f"level of every interval, 0 < C < 1 (default 0.95 where shown); {CONFIDENT_GATE_MEANING}",
        "C",
        parse=parse_confidence,
        rule=level,
        label="Confidence",
        placeholder="intervals' level (0.95)",
        resume=Resume.STOP_RULE,
        kind=Kind.NUMBER,
    ),
    Field(
        "family_wise",
        "--family-wise",
        Group.HOW,
        "with --require and --confidence: the gate's promise holds for the whole suite "
        "(each case judged at 1-(1-C)/M, Bonferroni), not per case",
        label="Whole suite",
        placeholder="the gate's promise for the suite",
        kind=Kind.SWITCH,
    ),
    Field(
        "concurrency",
        "--concurrency",
        Group.HOW,
        "most Runs in flight at once (default 4)",
        "N",
        parse=parse_concurrency,
        rule=in_flight,
        label="Concurrency",
        placeholder="Runs in flight (default 4)",
        kind=Kind.WHOLE,
    ),
    Field(
        "executor",
        "--executor",
        Group.HOW,
        "where local command agents run: local (default) or ray (a Ray cluster)",
        "WHERE",
        keyword=None,
        resume=Resume.NOT_STORED,  # stored; given again, read beside the table (executor_settings)
    ),
    Field(
        "ray_address",
        "--ray-address",
        Group.HOW,
        "with --executor ray: the cluster (env RAY_ADDRESS; none: a Ray started here)",
        "ADDRESS",
        keyword=None,
        resume=Resume.NOT_STORED,
    ),
    Field(
        "timeout",
        "--timeout",
        Group.HOW,
        "per-attempt deadline in seconds (default 300)",
        "S",
        parse=parse_timeout,
        rule=seconds,
        label="Timeout",
        placeholder="seconds per attempt (300)",
        kind=Kind.NUMBER,
    ),
    Field(
        "stack",
        "--stack",
        Group.HOW,
        "the stack address (env PASSK_STACK)",
        "URL",
        keyword=None,
        label="Stack",
        placeholder="http(s) address, or none",
    ),
    Field(
        "key",
        "--key",
        Group.HOW,
        "the stack key (env PASSK_KEY is preferred)",
        "KEY",
        setting=None,
        keyword=None,
        column=None,
        label="Stack key",
        placeholder="or PASSK_KEY; never saved",
        resume=Resume.NOT_STORED,
    ),
    Field(
        "agents",
        "--agents",
        Group.HOW,
        "local agents file (default ./agents.toml)",
        "PATH",
        setting="agents_path",
        column="agents_path",
        label="Agents file",
        placeholder="default ./agents.toml",
    ),
    Field(
        "label",
        "--label",
        Group.HOW,
        "a few words to tell this evaluation apart, stored with it and shown in history",
        "TEXT",
        parse=lazy_parser("settings", "parse_label"),
        keyword=None,
    ),
    *MONEY_FIELDS,
)

#: Each field by its name.
BY_NAME = {f.name: f for f in FIELDS}
#: The Configure form's order (its text fields, then the switches; the money fields folded).
FORM_ORDER = (
    "agent",
    "version",
    "cases",
    "attempts",
    "k",
    "require",
    "confidence",
    "baseline",
    "concurrency",
    "timeout",
    "stack",
    "key",
    "agents",
    "price_in",
    "price_out",
    "budget_runs",
    "budget_cost",
    "completion_only",
    "family_wise",
)
#: The Configure form's fields that set money and budgets (its Cost group), in their order.
COST_FIELDS = tuple(f.name for f in FIELDS if f.group is Group.MONEY and f.label is not None)


def flag_name(name: str) -> str:
    """What the CLI calls field ``name`` in its line about it (``--budget-cost``)."""
    field = BY_NAME.get(name)
    return field.flag if field is not None else f"--{name}"


def resumed(rule: Resume) -> dict[str, str]:
    """The stored settings a resume treats by ``rule``, each with its flag (Settings names)."""
    return {f.setting: f.flag for f in FIELDS if f.resume is rule and f.setting is not None}


def form_fields() -> tuple[Field, ...]:
    """The Configure form's fields, in its order."""
    return tuple(BY_NAME[name] for name in FORM_ORDER)
