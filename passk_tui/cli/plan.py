"""`passk-tui plan`: how many attempts, before any Run is spent (or for a stored evaluation's
undecided cases). The arithmetic is core's (``core.stats.plan.gate_chance``); this only reads flags."""

from __future__ import annotations

import argparse
from fractions import Fraction

from passk_tui.cli.flags import FlagParser
from passk_tui.cli.output import fail, print_out
from passk_tui.core.errors import ExitCode, InputError, RunError
from passk_tui.core.inputs.price import Price, parse_price, parse_tokens
from passk_tui.core.inputs.settings import (
    DEFAULT_K,
    parse_attempts,
    parse_confidence,
    parse_require,
)
from passk_tui.core.inputs.settings import parse_whole_number as parse_seed
from passk_tui.core.reading.vocabulary import DEFAULT_CONFIDENCE
from passk_tui.core.render import plan_text
from passk_tui.core.stats.costs.plan_cost import AttemptTokens, attempts_cost, undecided_costs
from passk_tui.core.stats.gating.family_wise import case_level
from passk_tui.core.stats.plan.adaptive_plan import (
    DEFAULT_CAP,
    DEFAULT_FIRST,
    DEFAULT_SEED,
    DEFAULT_SIMULATIONS,
    adaptive_rows,
)
from passk_tui.core.stats.plan.compare_power import compare_plan
from passk_tui.core.stats.plan.gate_chance import (
    TARGETS,
    all_pass_n,
    attempts_to_settle,
    default_rates,
    plan_rows,
)
from passk_tui.core.stats.plan.gate_thresholds import MAX_PLANNED, Thresholds
from passk_tui.evaluations.cost_settings import PRICES, price_pair
from passk_tui.evaluations.settings_text import flag


def build_plan_parser() -> FlagParser:
    parser = FlagParser(
        prog="passk-tui plan",
        description=(
            "How many attempts? For the confident gate (--require, --k, --confidence, the "
            "fixed-n exact interval): the n from which an agent that passes every attempt "
            "passes, and per expected pass rate (--expect P, again for more) the smallest n at "
            "which the gate gives the right verdict with chance 50% and 80%, computed exactly "
            "over the binomial law of the passes. --from ID plans a stored evaluation's "
            "undecided cases; --compare A B plans a per-case comparison of two pass rates."
        ),
        epilog="exit status: 0 planned, 2 bad flags or an unknown evaluation",
    )
    parser.list_flags = frozenset({"expect", "compare"})
    parser.add_argument("--require", metavar="X", help="the gate on pass@k, 0..1")
    parser.add_argument("--k", metavar="K", help=f"the k in pass@k (default {DEFAULT_K})")
    parser.add_argument(
        "--confidence", metavar="C", help="the gate's level, 0 < C < 1 (default 0.95)"
    )
    parser.add_argument(
        "--expect",
        metavar="P",
        action="append",
        help="a true per-attempt pass rate to plan for (again for more; default: a handful "
        "around the line)",
    )
    parser.add_argument(
        "--family-wise",
        action="store_true",
        help="plan for the whole suite's promise (each case at 1-(1-C)/M); needs --cases",
    )
    parser.add_argument("--cases", metavar="M", help="the cases in the suite (with --family-wise)")
    parser.add_argument(
        "--adaptive",
        action="store_true",
        help="the adaptive policy's expected attempts instead, by simulation (seed shown)",
    )
    parser.add_argument(
        "--attempts", metavar="N", help=f"--adaptive: the first attempts (default {DEFAULT_FIRST})"
    )
    parser.add_argument(
        "--max-attempts", metavar="N", help=f"--adaptive: the cap (default {DEFAULT_CAP})"
    )
    parser.add_argument(
        "--seed", metavar="S", help=f"--adaptive: the seed (default {DEFAULT_SEED})"
    )
    parser.add_argument(
        "--from",
        dest="source",
        metavar="ID",
        help="a stored evaluation (id, prefix, last): its undecided cases and the attempts to add",
    )
    money = parser.add_argument_group("what the attempts would cost")
    money.add_argument("--price-in", metavar="P", help="price per million input tokens")
    money.add_argument("--price-out", metavar="P", help="price per million output tokens")
    money.add_argument(
        "--tokens-in", metavar="N", help="input tokens expected per attempt (--from: observed)"
    )
    money.add_argument(
        "--tokens-out", metavar="N", help="output tokens expected per attempt (--from: observed)"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="two pass rates: attempts per version per case for compare to find the change",
    )
    return parser


def run_plan(argv: list[str]) -> int:
    """Parse, plan, print; the return value is the exit status."""
    args = build_plan_parser().parse_args(argv)
    try:
        text = _plan(args)
    except (InputError, RunError) as exc:
        return fail(exc)
    return ExitCode.OK if print_out(text) else ExitCode.CANNOT_RUN


def _plan(args: argparse.Namespace) -> str:
    confidence = flag("confidence", args.confidence, parse_confidence, DEFAULT_CONFIDENCE)
    cases = flag("cases", args.cases, parse_attempts, 1)
    if args.family_wise and args.cases is None and args.source is None:
        raise InputError("--family-wise: needs --cases M (the suite it plans for)")
    _check_modes(args)
    price, tokens = plan_money(args)
    if args.source is not None:
        return _plan_stored(args, price, tokens)
    if args.compare is not None:
        return _plan_compare(args.compare, confidence, cases)
    if args.require is None:
        raise InputError("missing --require (the gate to plan for), --from ID or --compare A B")
    require = flag("require", args.require, parse_require, Fraction(0))
    k = flag("k", args.k, _parse_k, DEFAULT_K)
    level = case_level(confidence, cases, args.family_wise)
    rates = [flag("expect", p, _parse_rate, Fraction(0)) for p in args.expect or []]
    rates = rates or default_rates(require, k)
    if price is not None and tokens is None:
        raise InputError(
            "--price-in: give --tokens-in and --tokens-out (expected per attempt), "
            "or --from ID to read them from a stored evaluation"
        )
    lines = []
    if args.adaptive:
        first = flag("attempts", args.attempts, parse_attempts, DEFAULT_FIRST)
        cap = flag("max-attempts", args.max_attempts, _parse_cap, DEFAULT_CAP)
        if cap < first:
            raise InputError(f"--max-attempts: must be at least the attempts ({first}), got {cap}")
        seed = flag("seed", args.seed, parse_seed, DEFAULT_SEED)
        anytime = Thresholds(require, k, level, anytime=True)
        lines.append(plan_text.all_pass_line(all_pass_n(anytime), anytime=True))
        adaptive = adaptive_rows(rates, anytime, first, cap, seed)
        table = plan_text.adaptive_table(adaptive, k)
        after = [plan_text.adaptive_line(first, cap, DEFAULT_SIMULATIONS, seed)]
        if price is not None and tokens is not None:
            means = [attempts_cost(r.mean_attempts, tokens, price) for r in adaptive]
            most = attempts_cost(cap, tokens, price)
            after += plan_text.adaptive_cost_lines(rates, means, cap, most, tokens, price)
    else:
        exact = Thresholds(require, k, level, anytime=False)
        lines.append(plan_text.all_pass_line(all_pass_n(exact)))
        rows = plan_rows(rates, exact)
        table = plan_text.plan_table(rows, k)
        after = []
        if price is not None and tokens is not None:
            costs = [{t: attempts_cost(r.n_for[t], tokens, price) for t in TARGETS} for r in rows]
            after += plan_text.cost_lines(rates, costs, tokens, price)
    if args.family_wise:
        after.append(plan_text.suite_line(confidence, cases, level))
    return "\n".join(lines) + "\n" + table + "".join(f"{line}\n" for line in after)


def _check_modes(args: argparse.Namespace) -> None:
    """One question per command: flags that belong to another mode are refused, not ignored."""
    mode = "--from" if args.source is not None else "--compare" if args.compare else None
    given = [
        name
        for name, value in (
            ("--expect", args.expect),
            ("--adaptive", args.adaptive),
            ("--k", args.k),
            ("--cases", args.cases if mode == "--from" else None),
            ("--compare", args.compare if mode == "--from" else None),
            ("--require", args.require if mode == "--compare" else None),
        )
        if value
    ]
    if mode is not None and given:
        raise InputError(f"{given[0]}: not with {mode} (it plans another question)")
    if mode is None and args.cases is not None and not args.family_wise:
        raise InputError("--cases: with --family-wise (or --compare), the suite it plans for")


def _plan_stored(
    args: argparse.Namespace, price: Price | None, tokens: AttemptTokens | None
) -> str:
    """Each undecided case of a stored evaluation, read by its own settings (``--require`` and
    ``--confidence`` given here read it under that gate instead); priced (the flags', else its
    stored prices), what its more attempts would cost at each case's observed tokens per
    attempt (or ``--tokens-in/--tokens-out``)."""
    ref, require, confidence, family_wise = (
        args.source,
        args.require,
        args.confidence,
        args.family_wise,
    )
    from passk_tui.core.run.sampling import gate_confidence
    from passk_tui.core.stats.gating.gate import read
    from passk_tui.core.stats.rates.interval_choice import evaluation_choice
    from passk_tui.store import Store  # the store only when asked for

    with Store.open() as store:
        stored = store.load(store.resolve(ref))
    s = stored.settings
    gate = flag("require", require, parse_require, s.require)
    if gate is None:
        raise InputError(f"--from {ref}: {stored.id} has no gate: give --require X")
    level = flag("confidence", confidence, parse_confidence, gate_confidence(s))
    level = DEFAULT_CONFIDENCE if level is None else level
    figures = stored.figures()
    method = evaluation_choice(s, figures).method
    reading = read(figures, gate, level, method, family_wise or s.family_wise)
    if not reading.undecided:
        return f"{stored.id}: every case is decided ({len(reading.cases):,} cases)\n"
    more = [
        {
            t: attempts_to_settle(c.figures.passed, c.figures.n, gate, reading.k, reading.level, t)
            for t in TARGETS
        }
        for c in reading.undecided
    ]
    text = (
        f"{stored.id}: {len(reading.undecided):,} of {len(reading.cases):,} cases undecided; "
        "more attempts each (its rate taken at its estimate, judged by the anytime-valid "
        "interval once extended)\n" + plan_text.undecided_table(reading, more)
    )
    price = price or s.price
    if price is None:
        return text
    costs = undecided_costs(reading.undecided, more, stored.records, price, tokens)
    return text + "".join(
        f"{line}\n" for line in plan_text.undecided_cost_lines(reading, costs, price, tokens)
    )


def plan_money(args: argparse.Namespace) -> tuple[Price | None, AttemptTokens | None]:
    """The prices and tokens per attempt given to plan (each in pairs), or None."""
    prices = [flag(n.replace("_", "-"), getattr(args, n), parse_price, None) for n in PRICES]
    price = price_pair(*prices)
    names = ("tokens_in", "tokens_out")
    counts = [flag(n.replace("_", "-"), getattr(args, n), parse_tokens, None) for n in names]
    if (counts[0] is None) != (counts[1] is None):
        given, missing = ("in", "out") if counts[1] is None else ("out", "in")
        raise InputError(f"--tokens-{given}: give --tokens-{missing} too")
    tokens_in, tokens_out = counts
    tokens = (
        None if tokens_in is None or tokens_out is None else AttemptTokens(tokens_in, tokens_out)
    )
    if tokens is not None and price is None and args.source is None:
        raise InputError("--tokens-in: give --price-in and --price-out too (what a token costs)")
    return price, tokens


def _plan_compare(rates: list[str], confidence: float, cases: int) -> str:
    rate_a, rate_b = (flag("compare", text, _parse_rate, Fraction(0)) for text in rates)
    plan = compare_plan(rate_a, rate_b, confidence, cases)
    return plan_text.compare_line(plan.alpha, cases) + "\n" + plan_text.compare_table([plan])


def _parse_rate(text: str) -> Fraction:
    """A pass rate as its exact decimal fraction (0.9 is 9/10), 0..1."""
    return parse_require(text)


def _parse_k(text: str) -> int:
    return _parse_cap(text)


def _parse_cap(text: str) -> int:
    value = parse_attempts(text)
    if value > MAX_PLANNED:
        raise InputError(f"must be at most {MAX_PLANNED:,}, got {value:,}")
    return value
