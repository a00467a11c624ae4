"""`--baseline V` end to end: real processes, the test stack over HTTP, and local agents.

Both versions run on the same cases in one go, each its own stored evaluation, linked;
the comparison goes to stdout exactly as `compare` prints it; a kill -9 and a resume of
either evaluation finish both with no Run started twice.
"""

from __future__ import annotations

import shlex
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from passk_tui.store import DB_NAME, Store
from passk_tui.store.pairs import load_pair, pair_of
from tests.support import AGENTS
from tests.support.cli import finish, start
from tests.support.resume import CASES, KEY, recorded
from tests.support.stack_server import StackScript, TurnScript

ATTEMPTS = 6
# Version 1 passes everything; version 2 answers beta wrong every time.
EXPECTED = """\
case   A passed  A errored  B passed  B errored  change  p     verdict
-----  --------  ---------  --------  ---------  ------  ----  ---------
alpha  6/6       0          6/6       0          0.00    1.00  unclear
beta   6/6       0          0/6       0          -1.00   0.01  regressed
gamma  6/6       0          6/6       0          0.00    1.00  unclear
0 improved, 1 regressed, 2 unclear
suite: B better on 0 cases, worse on 1, same on 2; odds ratio 0 (95% CI 0-0.29), p <0.001, regressed
"""


def expected(stack) -> str:
    """EXPECTED, then what each side ran (both on this stack)."""
    return EXPECTED + "".join(
        f"{side}: demo v{version}: on the stack at {stack.url}\n"
        for side, version in (("A", 1), ("B", 2))
    )


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    """alpha, beta and gamma, each checked for its own name."""
    path = tmp_path / "cases.toml"
    path.write_text(CASES)
    return path


def versions_differing_on_beta(latency: float) -> dict[int, StackScript]:
    return {
        1: StackScript(default=TurnScript(latency=latency)),
        2: StackScript(
            turns={"beta": TurnScript(output="not beta", latency=latency)},
            default=TurnScript(latency=latency),
        ),
    }


def pair_args(stack, cases: Path, *more: str) -> list[str]:
    return [
        *("--stack", stack.url, "--agent", "demo", "--cases", str(cases)),
        *("--version", "2", "--baseline", "1", "--attempts", str(ATTEMPTS)),
        *more,
    ]


def recorded_per_evaluation(data: Path) -> list[int]:
    """Counted attempts per evaluation, by version; [] before the store is there."""
    if recorded(data) == 0:
        return []
    with sqlite3.connect(data / DB_NAME, timeout=5) as db:
        rows = db.execute(
            "SELECT e.version, COUNT(a.attempt) FROM evaluations e LEFT JOIN attempts a"
            " ON a.evaluation_id = e.id AND a.outcome != 'withdrawn'"
            " GROUP BY e.id ORDER BY e.version"
        ).fetchall()
    return [n for _, n in rows]


def start_slow_pair(make_stack, cases: Path, tmp_path: Path):
    """A pair whose Turns take 0.6 s, four Runs at once: the stack, the data folder, the process."""
    stack = make_stack(keys={KEY: None}, scripts_by_version=versions_differing_on_beta(0.6))
    data = tmp_path / "data"
    return stack, data, start(*pair_args(stack, cases, "--concurrency", "4"), data=data, key=KEY)


def wait_until(process, condition, what: str) -> None:
    """Poll ``condition`` while the run goes on (30 s at most)."""
    deadline = time.monotonic() + 30
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def stored_pair(data: Path):
    with Store.open(data / DB_NAME) as store:
        newest, older = store.list_evaluations()
        return older, newest, pair_of(store, newest.id)


def test_a_pair_runs_both_versions_and_prints_the_comparison(make_stack, cases, tmp_path):
    stack = make_stack(keys={KEY: None}, scripts_by_version=versions_differing_on_beta(0.05))
    data = tmp_path / "data"
    report = tmp_path / "pair.html"
    args = pair_args(stack, cases, "--concurrency", "4", "--export", str(report))
    status, out, err = finish(start(*args, data=data, key=KEY))
    assert status == 0, err
    assert out == expected(stack)
    assert f"passk-tui: wrote {report}" in err and "Traceback" not in err
    text = report.read_text()
    assert '<tr id="cmp-1" class="regressed">' in text and KEY not in text and KEY not in err
    baseline, candidate, pair = stored_pair(data)
    assert (baseline.version, candidate.version) == (1, 2)
    assert pair is not None and (pair.baseline_id, pair.candidate_id) == (baseline.id, candidate.id)
    assert baseline.status == candidate.status == "done"
    stats = stack.stats()
    assert stats.runs_created == 2 * 3 * ATTEMPTS and stats.max_runs_per_key == 1
    assert stats.in_flight_peak <= 4  # one pool of --concurrency for both versions

    # The same comparison as `compare` gives on the two stored evaluations.
    status, again, _ = finish(start("--resume", baseline.id, data=data, key=KEY))
    assert (status, again) == (0, expected(stack))
    with Store.open(data / DB_NAME) as store:
        compared = load_pair(store, "last")
    assert compared is not None and [c.verdict for c in compared.comparison.cases] == [
        "unclear",
        "regressed",
        "unclear",
    ]


def test_kill_9_then_resume_of_either_finishes_both_with_one_run_per_key(
    make_stack, cases, tmp_path
):
    stack, data, process = start_slow_pair(make_stack, cases, tmp_path)
    wait_until(
        process,
        lambda: recorded(data) >= 6 and stack.stats().in_flight > 0,
        "no attempt was stored in time",
    )
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    in_flight_at_kill = stack.stats().in_flight
    a, b = recorded_per_evaluation(data)
    # Interleaved: both versions advanced together, never more than the pool apart.
    assert a > 0 and b > 0 and abs(a - b) <= 4, (a, b)
    baseline, candidate, _ = stored_pair(data)
    assert baseline.status == candidate.status == "interrupted"

    # Resuming the baseline's id resumes the pair; --fail-on-regression names beta.
    status, out, err = finish(
        start("--resume", baseline.id, "--fail-on-regression", data=data, key=KEY)
    )
    assert status == 1, err
    assert out == expected(stack)
    assert "passk-tui: regressed: beta: A 6/6 (pass@1 1.00), B 0/6 (pass@1 0.00)" in err
    stats = stack.stats()
    assert stats.runs_created == 2 * 3 * ATTEMPTS, stats
    assert set(stats.runs_by_key.values()) == {1}, stats.runs_by_key
    assert stats.replays >= in_flight_at_kill > 0  # replayed under their keys, not run again
    baseline, candidate, _ = stored_pair(data)
    assert baseline.status == candidate.status == "done"
    assert baseline.recorded == candidate.recorded == 3 * ATTEMPTS


def test_ctrl_c_withdraws_both_and_resume_reruns_them_under_retake_keys(
    make_stack, cases, tmp_path
):
    stack, data, process = start_slow_pair(make_stack, cases, tmp_path)
    wait_until(
        process,
        lambda: min(recorded_per_evaluation(data) or [0]) >= 2 and stack.stats().in_flight == 4,
        "no wave of Runs in flight",
    )
    process.send_signal(signal.SIGINT)
    status, out, err = finish(process)
    assert status == 130, err
    assert out.startswith("case   A passed  A errored") and "Traceback" not in err
    assert "attempts not run" in err and "--resume ev_" in err
    with Store.open(data / DB_NAME) as store:
        summaries = store.list_evaluations()
        stored = [store.load(s.id) for s in summaries]
    assert [s.status for s in summaries] == ["cancelled", "cancelled"]
    withdrawn = [r for s in stored for r in s.withdrawn]
    assert len(withdrawn) == 4 and {s.withdrawn != [] for s in stored} == {True}
    assert stack.stats().cancelled == 4

    stack.reset()
    status, out, err = finish(start("--resume", "last", data=data, key=KEY))
    assert (status, out) == (0, expected(stack)), err
    stats = stack.stats()
    assert stats.replays == 0 and stats.max_runs_per_key == 1
    assert {f"{r.key}/r1" for r in withdrawn} <= set(stats.runs_by_key)


def test_a_version_missing_on_the_stack_is_exit_3_before_any_run(make_stack, cases, tmp_path):
    stack = make_stack(keys={KEY: None})
    data = tmp_path / "data"
    args = pair_args(stack, cases)
    args[args.index("--version") + 1] = "9"
    status, out, err = finish(start(*args, data=data, key=KEY))
    assert (status, out) == (3, "")
    assert err.count("\n") == 1 and "9" in err and "Traceback" not in err
    assert stack.stats().runs_created == 0
    baseline, candidate, _ = stored_pair(data)
    assert baseline.status == candidate.status == "failed"


def test_the_gate_reads_the_candidate_and_combines_with_the_regression_gate(
    make_stack, cases, tmp_path
):
    stack = make_stack(keys={KEY: None}, scripts_by_version=versions_differing_on_beta(0.0))
    data = tmp_path / "data"
    status, out, err = finish(
        start(*pair_args(stack, cases, "--require", "0.5"), data=data, key=KEY)
    )
    assert (status, out) == (1, expected(stack)), err  # beta fails the point gate in version 2
    assert "passk-tui: B (version 2) gate: beta: pass@3 0.00, 0 of 6 errored, is below" in err
    # The confident gate: beta's 0/6 leaves pass@3 at 0.00-0.85 (rounded outward), undecided against 0.5: 4 ...
    confident = pair_args(stack, cases, "--require", "0.5", "--confidence", "0.95")
    status, out, err = finish(start(*confident, data=data, key=KEY))
    assert (status, out) == (4, expected(stack)), err
    assert "passk-tui: B (version 2) gate: beta: undecided: pass@3 95% CI 0.00-0.85" in err
    # ... and with --fail-on-regression, beta's regression (1) outranks the undecided gate (4).
    status, out, err = finish(start(*confident, "--fail-on-regression", data=data, key=KEY))
    assert (status, out) == (1, expected(stack)), err
    assert "regressed: beta" in err and "undecided" in err


@pytest.fixture
def local_pair(tmp_path: Path) -> Path:
    """An agents file whose version 2 errors on beta (its tool fails), else echoes."""
    agents = AGENTS
    (tmp_path / "v2.py").write_text(
        "import sys\n"
        "data = sys.stdin.read()\n"
        "if 'beta' in data:\n"
        "    sys.stderr.write('tool failed')\n"
        "    sys.exit(1)\n"
        "print(data)\n"
    )
    path = tmp_path / "agents.toml"
    path.write_text(
        f'[agents.echo.versions.1]\ncommand = ["{sys.executable}", "{agents / "echo.py"}"]\n'
        f'[agents.echo.versions.2]\ncommand = ["{sys.executable}", "v2.py"]\n'
    )
    return path


def test_local_agents_pair_and_a_mostly_errored_regression(local_pair, tmp_path):
    cases = tmp_path / "cases.toml"
    cases.write_text(
        '[[cases]]\nname = "alpha"\ninput = "alpha"\ncheck = { equals = "alpha" }\n'
        '[[cases]]\nname = "beta"\ninput = "beta"\ncheck = { equals = "beta" }\n'
    )
    base = ["--agents", str(local_pair), "--agent", "echo", "--cases", str(cases)]
    run = [*base, "--version", "2", "--baseline", "1", "--attempts", "5", "--fail-on-regression"]
    export = tmp_path / "pair.md"
    status, out, err = finish(start(*run, "--export", str(export), data=tmp_path, key=None))
    assert status == 1, err
    assert out == (
        "case   A passed  A errored  B passed  B errored  change  p     verdict\n"
        "-----  --------  ---------  --------  ---------  ------  ----  ---------\n"
        "alpha  5/5       0          5/5       0          0.00    1.00  unclear\n"
        "beta   5/5       0          0/5       5          -1.00   0.02  regressed\n"
        "0 improved, 1 regressed, 1 unclear\n"
        "suite: B better on 0 cases, worse on 1, same on 1; "
        "odds ratio 0 (95% CI 0-0.44), p 0.003, regressed\n"
        "beta: the drop is mostly errored attempts (A 0/5 errored, B 5/5): look at the "
        "platform, a provider or a tool before the agent\n"
        f"A: echo v1: {shlex.join([sys.executable, str(AGENTS / 'echo.py')])}\n"
        f"B: echo v2: {shlex.join([sys.executable, 'v2.py'])}\n"
    )
    assert "mostly errored" in err and f"wrote {export}" in err
    assert "| beta | 5/5 | 0 | 0/5 | 5 |" in export.read_text()
    # A baseline version missing from the agents file is bad input: exit 2, nothing stored.
    status, out, err = finish(
        start(*base, "--version", "2", "--baseline", "3", data=tmp_path, key=KEY)
    )
    assert (status, out) == (2, "") and "has no version 3" in err
    with Store.open(tmp_path / DB_NAME) as store:
        assert len(store.list_evaluations()) == 2


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--fail-on-regression"], "--fail-on-regression: only with --baseline V"),
        (["--baseline", "x"], "--baseline: must be a whole number"),
        (["--baseline", "1", "--export", "out.xml"], "not '.xml'"),
    ],
)
def test_bad_pair_flags_are_one_line_and_exit_2(cases, tmp_path, extra, message):
    args = ["--stack", "http://127.0.0.1:9", "--agent", "demo", "--version", "2"]
    status, out, err = finish(start(*args, "--cases", str(cases), *extra, data=tmp_path, key=KEY))
    assert (status, out) == (2, "") and message in err and err.count("\n") == 1, err


def test_resume_with_a_baseline_refuses_an_unpaired_or_different_one(make_stack, cases, tmp_path):
    stack = make_stack(keys={KEY: None})
    data = tmp_path / "data"
    single = ["--stack", stack.url, "--agent", "demo", "--version", "1", "--cases", str(cases)]
    assert finish(start(*single, "--attempts", "1", data=data, key=KEY))[0] == 0
    status, _, err = finish(start("--resume", "last", "--baseline", "1", data=data, key=KEY))
    assert status == 2 and "ran without a baseline" in err, err
    assert finish(start(*pair_args(stack, cases), data=data, key=KEY))[0] == 0
    status, _, err = finish(start("--resume", "last", "--baseline", "3", data=data, key=KEY))
    assert status == 2 and "--baseline 3 would change what is measured (stored: 1)" in err, err


async def test_the_pairing_api_a_face_uses(make_stack, cases, tmp_path):
    """What the app's Compare screen reads: roles on events, the pair from either id."""
    from passk_tui.core.inputs.settings import Settings
    from passk_tui.core.run.events import AttemptFinished
    from passk_tui.evaluations.pairing import find_pair, new_pair

    stack = make_stack(keys={KEY: None}, scripts_by_version=versions_differing_on_beta(0.0))
    settings = Settings("demo", 2, str(cases), attempts=ATTEMPTS, k=3, stack=stack.url)
    seen: list[tuple[str, int]] = []

    def on_event(role, event) -> None:
        if isinstance(event, AttemptFinished):
            seen.append((role, event.record.attempt))

    with Store.open(tmp_path / DB_NAME) as store:
        paired = new_pair(settings, 1, KEY, on_event, store=store)
        assert await paired.run() == "done"
        await paired.aclose()
        assert sorted({role for role, _ in seen}) == ["baseline", "candidate"]
        assert len(seen) == 2 * 3 * ATTEMPTS
        compared = paired.compared()
        assert [str(c.verdict) for c in compared.comparison.cases] == [
            "unclear",
            "regressed",
            "unclear",
        ]
        for evaluation in (paired.baseline, paired.candidate):
            pair = find_pair(evaluation.evaluation_id, store=store)
            assert pair is not None and pair.candidate_id == paired.candidate.evaluation_id
            again = load_pair(store, evaluation.evaluation_id)
            assert again is not None and again.comparison == compared.comparison
