"""Fuzzed flags and files: whatever is typed or written, a short answer, never a traceback.

Hypothesis builds argv from the real flag names (read from the argparse parser) with
hostile values (huge, negative, nan and inf numbers, NULs, lone surrogates, bidi
controls, empty and very long strings), and cases and agents files that are nearly
valid (hostile values in the right shapes) or broken (cut short, garbage spliced in).
Each runs the CLI in this process, through the same ``main`` the console script
calls, under a SIGALRM watchdog: a hang fails the example instead of the whole run.

What is asserted: bad input is exit 2 and one line; a run that could not start is
exit 3 and one line; nothing ever raises out of ``main``; a run that did go (the
agent is ``cat``, so an answer is the input) ends 0, 1 or 5 and its .html and .md
export shows no raw control or bidi character. Derandomized, so CI is reproducible.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from passk_tui.cli.flags import build_parser
from passk_tui.cli.main import main
from passk_tui.core.text.terminal_text import first_unsafe

#: Seconds one example may take before it counts as a hang.
LIMIT = 20.0
#: The progress line the CLI prints on a non-terminal stderr; not a message.
_PROGRESS = re.compile(r"^\d+/\d+ attempts ")
#: Lines beside the one problem: how to resume a run that stopped after it was stored, and
#: a warning said before it (the agent's definition changed since an earlier evaluation).
_NOT_PROBLEMS = (
    "passk-tui: what finished is stored; to continue: passk-tui --resume ",
    "passk-tui: warning: ",
)
#: Nothing listens here: an agent or stack there cannot be reached (exit 3, at once).
DEAD = "http://127.0.0.1:1"
FUZZ = settings(
    max_examples=800,
    deadline=None,  # the watchdog bounds an example; a slow machine must not fail the test
    derandomize=True,
    database=None,
    # One folder serves every example of a test: each writes the files it runs on.
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)

_PARSER = build_parser()
#: Every long flag of a run and whether it takes a value; --help and -V only print.
FLAGS = {
    option: action.nargs != 0
    for action in _PARSER._actions
    for option in action.option_strings
    if option.startswith("--") and option not in ("--help", "--program-version")
}

NUMBERS = st.sampled_from(
    [
        "0", "-0", "1", "2", "3", "-1", "+5", "0.5", ".5", "5.", "1/3", "1e", "1e9", "1e308",
        "1e-308", "1e-320", "1e400", "nan", "-nan", "inf", "-inf", "1e-100000000",
        "1e100000000", "0x10", "1_000", " 3 ", "٣", "１", str(2**63 - 1), str(2**63),
        str(-(2**63)), "9" * 30, "9" * 5000, "0." + "0" * 5000 + "1", "1\x00", "\x00", "",
    ]
)  # fmt: skip
ADDRESSES = st.sampled_from(
    [
        DEAD, "http://[::1]:1", "http://localhost:0", "http://[::1", "http://a..b",
        "http://xn--", "http://999.1.1.1", "http://☃.com", "https://u:p@127.0.0.1:1",
        "ftp://127.0.0.1:1", "http://127.0.0.1:99999", "http://\x00", "http://",
        "http://127.0.0.1:1/" + "a" * 5000, " http://127.0.0.1:1",
    ]
)  # fmt: skip
PATHS = st.sampled_from(
    [
        "", ".", "..", "/", "/dev/null", "/dev/zero", "nope.toml", "nope.jsonl", "cases.toml",
        "agents.toml", "x.json", "x.csv", "x.md", "x.xml", "x.html", "x.txt", "missing/x.json",
        "x\x00.json", "x\x00.toml", "\u202ex.html", "a" * 5000 + ".md", "a" * 5000 + ".toml",
        "\ud83d.md", "\ud83d.toml", "\udcff.toml",
    ]
)  # fmt: skip
STRANGE = st.sampled_from(
    [
        "last", "last~1", "last~" + "9" * 30, "last~-1", "ev_", "%", "_", "\\", "--", "-",
        "\udcff", "\ud83d", "\x1b[2J", "\x1b]52;c;aGk=\x07", "a\nb", "\u202eevil", "\t", " ",
    ]
)  # fmt: skip
TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
LONG = st.builds(lambda ch, n: ch * n, st.sampled_from("9a\x00é\u202e/-"), st.integers(1, 50_000))
VALUES = st.one_of(NUMBERS, ADDRESSES, PATHS, STRANGE, TEXT, LONG)


class Hang(BaseException):
    """Raised by the watchdog: not an Exception, so nothing in the CLI swallows it."""


@contextlib.contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_cli(argv: list[str]) -> tuple[int, str, list[str]]:
    """(exit status, stdout, stderr's lines less progress) of ``passk-tui argv``, in-process."""
    out, err = io.StringIO(), io.StringIO()
    with watchdog(LIMIT), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own exit (our FlagParser: exit 2, one line)
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    lines = [line for line in err.getvalue().splitlines() if not _PROGRESS.match(line)]
    if currently_in_test_context():
        event(f"exit {code}")  # --hypothesis-show-statistics: how many inputs went how far
    return code, out.getvalue(), lines


def assert_answered(argv: list[str], code: int, stdout: str, lines: list[str]) -> None:
    """A refusal (2) or a run that could not go (3) is one line; nothing is a traceback."""
    shown = f"argv={[a[:80] for a in argv]!r}\nstderr={lines[:5]!r}"
    assert "Traceback" not in stdout and not any("Traceback" in x for x in lines), shown
    if code in (2, 3):
        problems = [x for x in lines if not x.startswith(_NOT_PROBLEMS)]
        assert len(problems) == 1, shown
        assert problems[0].startswith("passk-tui: ") and len(problems[0]) < 1000, shown
    assert not any("\x1b" in x for x in lines), shown


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with its own store; no stack or key from the environment."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PASSK_DATA_DIR", str(tmp_path / "data"))
    for name in ("PASSK_STACK", "PASSK_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


# -- flags -----------------------------------------------------------------------------------

#: Two versions of an agent that cannot be reached: a run the flags allow ends in exit 3 at once.
DEAD_AGENTS = (
    f'[agents.dead.versions.1]\nopenai = {{ base_url = "{DEAD}/v1", model = "m" }}\n'
    f'[agents.dead.versions.2]\nopenai = {{ base_url = "{DEAD}/v1", model = "m" }}\n'
)
SEED = '[[cases]]\nname = "a"\ninput = "x"\ncheck = { equals = "x" }\n'
BASE = {"--agents": "agents.toml", "--agent": "dead", "--version": "1", "--cases": "cases.toml"}
BASE_ARGV = ["--headless", *(part for pair in BASE.items() for part in pair)]


@st.composite
def flag_argv(draw: st.DrawFn) -> list[str]:
    """The base flags, some dropped, then one to five flags of the parser with hostile values."""
    base = dict(BASE)
    for name in draw(st.lists(st.sampled_from(["--agent", "--version", "--cases"]), max_size=2)):
        base.pop(name, None)
    argv = ["--headless", *(part for pair in base.items() for part in pair)]
    for name in draw(st.lists(st.sampled_from(sorted(FLAGS)), min_size=1, max_size=5)):
        if not FLAGS[name]:
            argv.append(name)
        elif draw(st.booleans()):
            argv += [name, draw(VALUES)]
        else:
            argv.append(f"{name}={draw(VALUES)}")
    return argv


@FUZZ
@given(argv=flag_argv())
def test_fuzzed_flags_are_refused_in_one_line_or_cannot_run(folder: Path, argv: list[str]) -> None:
    (folder / "agents.toml").write_text(DEAD_AGENTS, encoding="utf-8")
    (folder / "cases.toml").write_text(SEED, encoding="utf-8")
    code, stdout, lines = run_cli(argv)
    assert_answered(argv, code, stdout, lines)
    # Every agent is unreachable, so nothing can have run: refused (2) or could not run (3).
    assert code in (2, 3), (code, argv, lines)


@pytest.mark.parametrize("name", sorted(name for name, takes in FLAGS.items() if takes))
def test_every_flag_given_dashes_as_its_value_is_refused(folder: Path, name: str) -> None:
    # Python 3.11's argparse makes ``--flag=--`` an empty list, where a string is expected.
    code, _, lines = run_cli([*BASE_ARGV, f"{name}=--"])
    assert (code, lines) == (2, [f"passk-tui: argument {name}: expected one argument"])


#: Counts a run takes at face value: small, or hostile but not a huge valid count.
SMALL = st.one_of(st.sampled_from(["1", "2", "3", "4"]), st.from_regex(r"\A-?[0-9]\Z"), TEXT)
#: The flags whose valid values decide how many attempts run: kept small so each run is quick.
COUNTS = ("--attempts", "--max-attempts", "--k", "--version", "--baseline")


@st.composite
def running_argv(draw: st.DrawFn) -> list[str]:
    """Flags for agent ``fast`` (``cat``) on the seed case, then hostile flags of the parser."""
    argv = ["--headless", "--agents", "agents.toml", "--agent", "fast", "--version", "1"]
    argv += ["--cases", "cases.toml", "--attempts", "2"]
    for name in draw(st.lists(st.sampled_from(sorted(FLAGS)), min_size=1, max_size=4)):
        value = draw(SMALL if name in COUNTS else VALUES)
        argv += [name, value] if FLAGS[name] else [name]
    return argv


@FUZZ
@given(argv=running_argv())
def test_fuzzed_flags_on_an_agent_that_answers_run_or_are_refused(
    folder: Path, argv: list[str]
) -> None:
    (folder / "agents.toml").write_text(
        toml_text({"agents": {"fast": {"versions": {"1": CAT, "2": CAT}}}}), encoding="utf-8"
    )
    (folder / "cases.toml").write_text(SEED, encoding="utf-8")
    code, stdout, lines = run_cli(argv)
    assert_answered(argv, code, stdout, lines)
    # The store fills as examples run: --resume finds evaluations done, cut short or failed.
    assert code in (0, 1, 2, 3, 4, 5), (code, argv, lines)


@FUZZ
@given(
    command=st.sampled_from(["compare", "history"]),
    values=st.lists(st.one_of(STRANGE, VALUES), max_size=3),
    export=st.one_of(st.none(), PATHS),
)
def test_fuzzed_compare_and_history_answer_in_one_line(
    folder: Path, command: str, values: list[str], export: str | None
) -> None:
    argv = [command, *values, *(["--export", export] if export is not None else [])]
    code, stdout, lines = run_cli(argv)
    assert_answered(argv, code, stdout, lines)
    # The store is empty: nothing can be compared; history says so (0) or refuses a flag (2).
    assert code in ((2, 3) if command == "compare" else (0, 2)), (code, argv, lines)


# -- files -----------------------------------------------------------------------------------

JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), TEXT, NUMBERS, STRANGE
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
#: argv a `command` check may be given: programs that answer at once, or none at all.
COMMANDS = st.lists(
    st.one_of(st.sampled_from(["true", "false", "cat", "./nope", "/", "", "\x00"]), TEXT),
    max_size=3,
)
TEXT_KINDS = st.sampled_from(["equals", "contains", "not_contains", "regex"])
#: Mostly checks of the right shape (so that the run goes on to use them), some of any shape.
CHECKS = st.one_of(
    st.builds(lambda kind, value: {kind: value}, TEXT_KINDS, TEXT),
    st.builds(lambda kind, value: {kind: value}, TEXT_KINDS, st.one_of(STRANGE, NUMBERS)),
    st.builds(lambda options: {"one_of": options}, st.lists(TEXT, max_size=3)),
    st.builds(lambda schema: {"json": schema}, JSON_VALUES),
    st.builds(
        lambda kind, value: {kind: value},
        st.sampled_from(["equals", "contains", "not_contains", "regex", "one_of", "json"]),
        JSON_VALUES,
    ),
    st.builds(lambda v, c: {"equals": v, "ignore_case": c}, JSON_VALUES, JSON_VALUES),
    st.builds(lambda n, t: {"number": n, "tolerance": t}, JSON_VALUES, JSON_VALUES),
    st.builds(lambda argv, t: {"command": argv, "timeout": t}, COMMANDS, NUMBERS),
    st.builds(lambda argv: {"command": argv}, COMMANDS),
    st.builds(lambda kind, checks: {kind: checks}, st.sampled_from(["all", "any"]), st.lists(
        st.builds(lambda v: {"equals": v}, JSON_VALUES), max_size=2)),
    st.dictionaries(TEXT, JSON_VALUES, max_size=2),
    JSON_VALUES,
)  # fmt: skip
_NAME = st.text("abcé -", min_size=1, max_size=8)
#: Mostly names a case may have (so the run goes on), some of any kind.
NAMES = st.one_of(_NAME, _NAME, _NAME, _NAME, TEXT, STRANGE, JSON_SCALARS)
CASE = st.fixed_dictionaries(
    {"name": NAMES, "input": st.one_of(TEXT, STRANGE, JSON_VALUES)},
    optional={"check": CHECKS},
)
CAT = {"command": ["cat"]}
#: A version of agent "fast": ``cat`` (the answer is the input), or a hostile variant of it.
AGENT_VERSION = st.one_of(
    st.just(CAT),
    st.builds(lambda argv: {"command": argv}, COMMANDS),
    st.builds(
        lambda url, model, extra: {"openai": {"base_url": url, "model": model, **extra}},
        st.one_of(ADDRESSES, TEXT),
        st.one_of(TEXT, JSON_SCALARS),
        st.dictionaries(
            st.sampled_from(["system", "api_key_env", "params", "timeout", "other"]),
            JSON_VALUES,
            max_size=2,
        ),
    ),
    JSON_VALUES,
)
AGENTS = st.builds(
    lambda name, number, version: {"agents": {name: {"versions": {number: version}}}},
    st.one_of(st.just("fast"), TEXT),
    st.one_of(st.just("1"), NUMBERS, TEXT),
    AGENT_VERSION,
)


def toml_text(document: object) -> str:
    """The document as TOML (a null, which TOML has not, as ""); as JSON text if TOML cannot."""
    try:
        return tomli_w.dumps(_without_nulls(document))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return json.dumps(document, default=str)


def _without_nulls(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items()}
    return value


@st.composite
def spoiled(draw: st.DrawFn, text: str) -> bytes:
    """``text`` as UTF-8, now and then cut short, or with garbage spliced in."""
    data = text.encode("utf-8", "surrogatepass")
    how = draw(st.sampled_from(["as is", "as is", "as is", "cut", "splice"]))
    if how == "cut" and data:
        return data[: draw(st.integers(0, len(data) - 1))]
    if how == "splice":
        at = draw(st.integers(0, len(data)))
        junk = draw(
            st.sampled_from([b"\x00", b"\xff\xfe", b"[", b"{", b'"', b"\n[[", b"\r", b"=="])
        )
        return data[:at] + junk + data[at:]
    return data


@st.composite
def files(draw: st.DrawFn) -> tuple[str, bytes, bytes, str]:
    """(cases suffix, cases bytes, agents bytes, export suffix)."""
    cases = draw(st.lists(CASE, min_size=1, max_size=2))
    suffix = draw(st.sampled_from([".toml", ".jsonl"]))
    if suffix == ".toml":
        text = toml_text({"cases": cases})
    else:
        text = "".join(json.dumps(case, default=str) + "\n" for case in cases)
    cat = {"agents": {"fast": {"versions": {"1": CAT}}}}
    agents = draw(st.sampled_from([cat, cat, None])) or draw(AGENTS)
    export = draw(st.sampled_from([".json", ".csv", ".md", ".xml", ".html"]))
    return suffix, draw(spoiled(text)), draw(spoiled(toml_text(agents))), export


@FUZZ
@given(made=files(), completion_only=st.booleans())
def test_fuzzed_cases_and_agents_files_are_refused_in_one_line_or_run(
    folder: Path, made: tuple[str, bytes, bytes, str], completion_only: bool
) -> None:
    suffix, cases, agents, export = made
    (folder / f"cases{suffix}").write_bytes(cases)
    (folder / "agents.toml").write_bytes(agents)
    out = folder / f"out{export}"
    out.unlink(missing_ok=True)
    argv = [
        "--headless", "--agents", "agents.toml", "--agent", "fast", "--version", "1",
        "--cases", f"cases{suffix}", "--attempts", "1", "--k", "1", "--timeout", "5",
        "--export", out.name, *(["--completion-only"] if completion_only else []),
    ]  # fmt: skip
    code, stdout, lines = run_cli(argv)
    assert_answered(argv, code, stdout, lines)
    assert code in (0, 1, 2, 3, 5), (code, lines)
    if code in (0, 1) and export in (".md", ".html"):
        text = out.read_text(encoding="utf-8")
        unsafe = first_unsafe(text.replace("\n", "").replace("\t", ""))
        assert unsafe is None, (export, hex(ord(unsafe)), lines)


#: Text a valid file may hold anywhere but in a name: every control and bidi character, and no
#: lone surrogate (UTF-8 cannot hold one; the loaders refuse it).
ANY_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
#: A name a case may have: control, format and separator characters are refused in names.
VALID_NAMES = st.text(
    st.characters(exclude_categories=("Cc", "Cs", "Cf", "Zl", "Zp")), min_size=1, max_size=20
).filter(str.strip)
#: Checks of the right shape with hostile values: the run goes on to judge with them.
VALID_CHECKS = st.one_of(
    st.builds(lambda kind, value: {kind: value}, TEXT_KINDS, ANY_TEXT),
    st.builds(lambda value, case: {"equals": value, "ignore_case": case}, ANY_TEXT, st.booleans()),
    st.builds(lambda n, t: {"number": n, "tolerance": t}, st.floats(), st.floats(0)),
    st.builds(lambda options: {"one_of": options}, st.lists(ANY_TEXT, min_size=1, max_size=3)),
    st.just({"json": {}}),
    st.builds(lambda argv: {"command": ["cat", *argv]}, st.lists(ANY_TEXT, max_size=2)),
)
VALID_INPUTS = st.one_of(
    ANY_TEXT,
    st.builds(
        lambda ch, n: ch * n, st.sampled_from("9a\x00é\u202e\x1b\x85/"), st.integers(1, 5000)
    ),
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), ANY_TEXT),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ANY_TEXT, inner, max_size=3),
        max_leaves=8,
    ),
)


@st.composite
def valid_files(draw: st.DrawFn) -> tuple[str, str]:
    """(suffix, text) of a cases file of the right shape whose names, inputs and checks are hostile."""
    names = draw(st.lists(VALID_NAMES, min_size=1, max_size=3, unique_by=str.casefold))
    cases = [
        {"name": name, "input": draw(VALID_INPUTS), "check": draw(VALID_CHECKS)} for name in names
    ]
    if draw(st.booleans()):
        return ".toml", toml_text({"cases": cases})
    return ".jsonl", "".join(json.dumps(case) + "\n" for case in cases)


@settings(FUZZ, max_examples=300)
@given(made=valid_files(), export=st.sampled_from([".md", ".html"]))
def test_fuzzed_values_run_and_every_export_shows_them_safely(
    folder: Path, made: tuple[str, str], export: str
) -> None:
    suffix, text = made
    (folder / f"cases{suffix}").write_text(text, encoding="utf-8", errors="surrogatepass")
    (folder / "agents.toml").write_text(toml_text({"agents": {"fast": {"versions": {"1": CAT}}}}))
    out = folder / f"out{export}"
    out.unlink(missing_ok=True)
    argv = [
        "--headless", "--agents", "agents.toml", "--agent", "fast", "--version", "1",
        "--cases", f"cases{suffix}", "--attempts", "2", "--k", "1", "--timeout", "5",
        "--require", "1", "--export", out.name,
    ]  # fmt: skip
    code, stdout, lines = run_cli(argv)
    assert_answered(argv, code, stdout, lines)
    assert code in (0, 1, 2), (code, lines)
    if code != 2:
        written = out.read_text(encoding="utf-8")
        unsafe = first_unsafe(written.replace("\n", "").replace("\t", ""))
        assert unsafe is None, (export, hex(ord(unsafe)), lines)
