"""Each format's reader against the tool's own figures, on logs the real tools wrote.

inspect_ai and promptfoo wrote their fixtures here (``bench/imports/make_fixtures.sh``);
tau-bench and tau2-bench cannot run without paid model APIs, so theirs are written in the
formats their sources define (``bench/imports/make_tau_fixtures.py``).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from math import comb
from pathlib import Path

import pytest

from passk_tui.core.attempt import Outcome
from passk_tui.core.stats.rates.figures import pass_at_k, pass_hat_k
from passk_tui.core.transcript import plain_transcript
from passk_tui.imports.inspect_log import read_inspect
from passk_tui.imports.jsonl import read_jsonl
from passk_tui.imports.lm_eval import read_lm_eval
from passk_tui.imports.model import BadLog, ImportedAttempt, ImportedRun
from passk_tui.imports.promptfoo import read_promptfoo
from passk_tui.imports.tau import read_tau

FIXTURES = Path(__file__).parent.parent / "fixtures" / "imports"


def _conversation(attempt: ImportedAttempt) -> list[tuple[str, str]]:
    """The conversation the Case screen shows for an imported attempt: its transcript, or
    (none kept) its input and its answer; an empty answer left out (an errored epoch's: the
    .json has its empty completion, a summary none)."""
    answered = attempt.outcome is not Outcome.ERRORED or attempt.output is not None
    shown = attempt.transcript or plain_transcript(attempt.input, attempt.output, answered)
    return [(m.role, m.content) for m in shown.messages if m.content or m.role != "assistant"]


def tally(run: ImportedRun) -> dict[str, tuple[int, int]]:
    """Per case: (attempts, passes)."""
    n: Counter[str] = Counter()
    c: Counter[str] = Counter()
    for a in run.attempts:
        n[a.case] += 1
        c[a.case] += a.outcome is Outcome.PASSED
    return {case: (n[case], c[case]) for case in n}


@pytest.mark.parametrize("name", ["inspect-run1.eval", "inspect-run2.eval", "inspect-run1.json"])
def test_inspect_pass_at_3_equals_inspects_own_reducer(name: str) -> None:
    """inspect's pass_at_3 reducer over the epochs it scored (it leaves errored epochs out) is
    our unbiased pass@3 over the same passes and scored epochs: 0 mismatches."""
    run = read_inspect([FIXTURES / name])
    counts = tally(run)
    errored = Counter(a.case for a in run.attempts if a.outcome is Outcome.ERRORED)
    assert set(run.reported) == set(counts) and len(counts) == 6
    for case, (n, c) in counts.items():
        scored = n - errored[case]
        assert float(pass_at_k(scored, c, 3)) == pytest.approx(run.reported[case]["pass_at_3"])
        assert float(pass_at_k(scored, c, 1) if scored else 0) == pytest.approx(
            run.reported[case]["mean"]
        )


def test_inspect_eval_and_its_json_conversion_read_alike() -> None:
    """The same run as a .eval archive (zstd members, read from its summaries) and as inspect's
    own .json conversion (whole samples): alike but for the answer, which a summary holds only
    as the scorer read it (a wrong one's whole text is in the reason, as its explanation), and
    the conversation shown is the same: the archive's transcript (read from its sample members)
    says what the .json's answer says."""
    archive = read_inspect([FIXTURES / "inspect-run1.eval"])
    whole = read_inspect([FIXTURES / "inspect-run1.json"])
    key = lambda a: (a.case, a.attempt)  # noqa: E731
    bare = [replace(a, output=None, transcript=None) for a in sorted(archive.attempts, key=key)]
    assert bare == [
        replace(a, output=None, transcript=None) for a in sorted(whole.attempts, key=key)
    ]
    shown = [_conversation(a) for a in sorted(archive.attempts, key=key)]
    assert shown == [_conversation(a) for a in sorted(whole.attempts, key=key)]
    assert sum(a.transcript is not None for a in archive.attempts) == 10  # the wrong answers
    passed = [a.output for a in archive.attempts if a.outcome is Outcome.PASSED]
    assert passed == ["391"] * 13
    assert archive.tool_version == "0.3.285" and archive.agent == "openai-api/fake/fake-model"
    assert archive.order[:2] == ["product-1", "product-2"]


def test_inspect_errors_are_errored_with_inspects_words() -> None:
    run = read_inspect([FIXTURES / "inspect-run1.eval"])
    errors = sorted((a.attempt, a.error) for a in run.attempts if a.outcome is Outcome.ERRORED)
    assert errors == [
        (2, "RuntimeError('the calculator tool crashed on epoch 2')"),
        (4, "RuntimeError('the calculator tool crashed on epoch 4')"),
    ]
    wrong = [a for a in run.attempts if a.case == "never-right"]
    assert {a.outcome for a in wrong} == {Outcome.WRONG}
    assert wrong[0].output == "391" and wrong[0].reason is not None


def test_inspect_pass_value_decides_instead() -> None:
    """--pass-value I: the incorrect answers pass (a custom scorer's own vocabulary)."""
    run = read_inspect([FIXTURES / "inspect-run1.eval"], pass_value="I")
    assert tally(run)["never-right"] == (5, 5)


def test_promptfoo_counts_equal_promptfoos_stats() -> None:
    path = FIXTURES / "promptfoo-results.json"
    run = read_promptfoo([path])
    stats = json.loads(path.read_text())["results"]["stats"]
    outcomes = Counter(a.outcome for a in run.attempts)
    assert outcomes[Outcome.PASSED] == stats["successes"] == 15
    assert outcomes[Outcome.WRONG] == stats["failures"]
    assert outcomes[Outcome.ERRORED] == stats["errors"] == 5
    # Per test: promptfoo's own success flags, grouped by the test's description.
    theirs: Counter[str] = Counter()
    for result in json.loads(path.read_text())["results"]["results"]:
        theirs[result["testCase"]["description"]] += result["success"]
    assert {case: c for case, (_, c) in tally(run).items()} == dict(theirs)
    assert all(n == 5 for n, _ in tally(run).values())
    down = [a for a in run.attempts if a.case == "provider-down"]
    assert down[0].error is not None and "500" in down[0].error


def test_tau_bench_pass_hat_k_equals_tau_benchs_formula() -> None:
    """tau-bench's display_metrics: pass^k = mean over tasks of C(c, k) / C(trials, k)."""
    run = read_tau([FIXTURES / "tau-bench-results.json"])
    counts = tally(run)
    for k in (1, 2, 3):
        theirs = sum(comb(c, k) / comb(3, k) for _, c in counts.values()) / len(counts)
        ours = sum(pass_hat_k(n, c, k) for n, c in counts.values()) / len(counts)
        assert float(ours) == pytest.approx(theirs)
    errored = [a for a in run.attempts if a.outcome is Outcome.ERRORED]
    assert [(a.case, a.attempt, a.error) for a in errored] == [
        ("4", 2, "APIConnectionError: Connection error.")
    ]


def test_tau2_domains_together_named_by_domain() -> None:
    run = read_tau([FIXTURES / "tau2-airline.json", FIXTURES / "tau2-retail.json"])
    counts = tally(run)
    assert len(counts) == 8 and all(n == 4 for n, _ in counts.values())
    assert run.order[0] == "airline/0" and run.agent == "fake-model"
    errored = [a for a in run.attempts if a.outcome is Outcome.ERRORED]
    assert [(a.case, a.error) for a in errored] == [("airline/0", "ended by infrastructure_error")]
    max_steps = [a for a in run.attempts if a.reason and "max_steps" in a.reason]
    assert {a.outcome for a in max_steps} == {Outcome.WRONG}


LM_EVAL_RUNS = sorted((FIXTURES / "lm-eval").glob("run*"))


def test_lm_eval_each_run_equals_lm_evals_own_mean() -> None:
    """Five real runs of one task: each run's samples file alone gives lm-eval's reported
    exact_match; together, each document has one attempt per run."""
    assert len(LM_EVAL_RUNS) == 5
    means = []
    for folder in LM_EVAL_RUNS:
        (samples,) = folder.glob("samples_*.jsonl")
        (results,) = folder.glob("results_*.json")
        theirs = json.loads(results.read_text())["results"]["arithmetic_fake"]["exact_match,none"]
        counts = tally(read_lm_eval([samples]))
        assert sum(c for _, c in counts.values()) / len(counts) == pytest.approx(theirs)
        means.append(theirs)
    together = read_lm_eval([next(f.glob("samples_*.jsonl")) for f in LM_EVAL_RUNS])
    counts = tally(together)
    assert all(n == 5 for n, _ in counts.values()) and together.notes == [
        "metric exact_match, filter none"
    ]
    assert sum(c for _, c in counts.values()) / 25 == pytest.approx(sum(means) / 5)
    assert tally(together)["4"] == (5, 0)  # its target is 17: never right


def test_lm_eval_aggregated_results_are_named_for_what_they_are() -> None:
    (results,) = LM_EVAL_RUNS[0].glob("results_*.json")
    with pytest.raises(BadLog) as caught:
        read_lm_eval([results])
    assert str(caught.value) == (
        f"{results}: line 1: this is lm-eval's aggregated results "
        "(import the samples_*.jsonl it wrote with --log_samples)"
    )


@pytest.mark.parametrize(
    ("reader", "name", "words"),
    [
        (read_promptfoo, "inspect-run1.json", "this is an inspect log; use `import inspect`"),
        (read_inspect, "promptfoo-results.json", "this is a promptfoo results file; use `import promptfoo`"),
        (read_tau, "promptfoo-results.json", "this is a promptfoo results file; use `import promptfoo`"),
        (read_promptfoo, "tau2-airline.json", "this is a tau2-bench results file; use `import tau-bench`"),
    ],
)  # fmt: skip
def test_a_file_of_another_format_is_named(reader: object, name: str, words: str) -> None:
    with pytest.raises(BadLog) as caught:
        reader([FIXTURES / name])  # type: ignore[operator]
    assert str(caught.value) == f"{FIXTURES / name}: {words}"


def test_tau2_dir_format_reads_the_simulations_folder(tmp_path: Path) -> None:
    """tau2's "dir" format: results.json without simulations, one file each beside it."""
    whole = json.loads((FIXTURES / "tau2-airline.json").read_text())
    (tmp_path / "simulations").mkdir()
    for simulation in whole.pop("simulations"):
        (tmp_path / "simulations" / f"{simulation['id']}.json").write_text(json.dumps(simulation))
    (tmp_path / "results.json").write_text(json.dumps(whole))
    from_dir = read_tau([tmp_path / "results.json"])
    inline = read_tau([FIXTURES / "tau2-airline.json"])
    key = lambda a: (a.case, a.attempt)  # noqa: E731
    assert sorted(from_dir.attempts, key=key) == sorted(inline.attempts, key=key)


def test_jsonl_numbers_a_cases_lines_and_checks_usage(tmp_path: Path) -> None:
    path = tmp_path / "attempts.jsonl"
    lines = [
        {"case": "a", "outcome": "passed", "usage": {"input_tokens": 3, "output_tokens": 1}},
        {"case": "b", "outcome": "errored", "error": "HTTP 503"},
        {"case": "a", "outcome": "wrong", "output": {"answer": 4}, "duration": 1.5},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + "\n")
    run = read_jsonl([path])
    assert [(a.case, a.attempt, a.outcome) for a in run.attempts] == [
        ("a", 1, Outcome.PASSED), ("b", 1, Outcome.ERRORED), ("a", 2, Outcome.WRONG),
    ]  # fmt: skip
    assert run.attempts[0].usage == {"input_tokens": 3, "output_tokens": 1}
    path.write_text(json.dumps({"case": "a", "outcome": "passed", "usage": {"input_tokens": -1}}))
    with pytest.raises(BadLog) as caught:
        read_jsonl([path])
    assert str(caught.value) == f"{path}: line 1: usage.input_tokens must be a whole number >= 0"
