"""tau-bench and tau2-bench results: each trial of a task an attempt, ``reward == 1`` passes.

tau-bench (``run.py``) writes a JSON list of ``{"task_id", "reward", "info", "traj", "trial"}``;
a trial that raised keeps ``info.error`` and is errored with it. tau2-bench writes
``{"info", "tasks", "simulations": [...]}``; a simulation that ended for a reason that is
not the agent's behaviour (``infrastructure_error``, ``agent_error``, ``user_error``,
``unexpected_error``, ``timeout``) is errored, named by that reason. A reward is a pass within
1e-6 of 1, as both tools count a success. Several files of one run (tau2's per-domain
files) import together, each case named ``domain/task`` when the domains differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from passk_tui.core.attempt import Outcome
from passk_tui.imports.conversation import transcript_from
from passk_tui.imports.model import (
    BadLog,
    ImportedAttempt,
    ImportedRun,
    not_a,
    number_of,
    object_of,
    read_json_file,
    seconds_of,
)

TOOL = "tau-bench"
#: tau2's termination reasons that say the trial did not measure the agent's behaviour.
ERRORED_ENDINGS = frozenset(
    {"infrastructure_error", "agent_error", "user_error", "unexpected_error", "timeout"}
)
_TOLERANCE = 1e-6


def read_tau(paths: list[Path]) -> ImportedRun:
    run = ImportedRun(TOOL)
    wholes = [(path, read_json_file(path, TOOL)) for path in paths]
    domains = {_domain(whole) for _, whole in wholes if isinstance(whole, dict)}
    for path, whole in wholes:
        if isinstance(whole, list):
            _tau1(run, path, whole)
        elif isinstance(whole, dict) and isinstance(whole.get("tasks"), list):
            prefix = f"{_domain(whole)}/" if len(domains) > 1 else ""
            _tau2(run, path, whole, prefix)
        else:
            raise not_a(
                path, TOOL, "not a tau-bench results file (a list of trials, or tau2's tasks)"
            )
    if not run.attempts:
        raise BadLog(f"{paths[0]}: no trials")
    return run


def _tau1(run: ImportedRun, path: Path, trials: list[Any]) -> None:
    run.tool_version = run.tool_version or "1"
    for index, trial in enumerate(trials):
        where = f"{path}: [{index}]"
        if not isinstance(trial, dict) or "task_id" not in trial:
            raise BadLog(f"{where}: a trial is an object with task_id, reward and trial")
        case = str(trial["task_id"])
        number = _trial_number(trial.get("trial"), f"{where} (task {case})")
        info = object_of(trial.get("info"))
        traj = trial.get("traj")
        output = _last_answer(traj)
        common = {
            "case": case,
            "attempt": number,
            "output": output,
            "transcript": transcript_from(traj, None, output),
        }
        if info.get("error"):
            run.add(ImportedAttempt(outcome=Outcome.ERRORED, error=str(info["error"]), **common))
            continue
        reward = _reward(trial.get("reward"), f"{where} (task {case})")
        run.add(_judged(reward, common))


def _tau2(run: ImportedRun, path: Path, whole: dict[str, Any], prefix: str) -> None:
    info = object_of(whole.get("info"))
    run.tool_version = run.tool_version or (
        f"2 ({info['git_commit'][:12]})" if info.get("git_commit") else "2"
    )
    run.agent = run.agent or object_of(info.get("agent_info")).get("llm")
    for task in whole.get("tasks") or []:
        if isinstance(task, dict) and task.get("id") is not None:
            run.order.append(f"{prefix}{task['id']}")
    for index, simulation in enumerate(_simulations(path, whole)):
        where = f"{path}: simulations[{index}]"
        if not isinstance(simulation, dict) or simulation.get("task_id") is None:
            raise BadLog(f"{where}: a simulation is an object with task_id and trial")
        case = f"{prefix}{simulation['task_id']}"
        where = f"{where} (task {simulation['task_id']})"
        output = _last_answer(simulation.get("messages"))
        common = {
            "case": case,
            "attempt": _trial_number(simulation.get("trial"), where),
            "output": output,
            "transcript": transcript_from(simulation.get("messages"), None, output),
            "started": seconds_of(simulation.get("start_time")),
            "duration": number_of(simulation.get("duration")),
            "usage": _usage(simulation.get("agent_usage")),
        }
        ending = str(simulation.get("termination_reason") or "")
        reward_info = simulation.get("reward_info")
        if ending in ERRORED_ENDINGS:
            run.add(ImportedAttempt(outcome=Outcome.ERRORED, error=f"ended by {ending}", **common))
        elif not isinstance(reward_info, dict):
            run.add(
                ImportedAttempt(
                    outcome=Outcome.ERRORED, error="not evaluated (no reward_info)", **common
                )
            )
        else:
            reward = _reward(reward_info.get("reward"), where)
            run.add(_judged(reward, common, ending))


def _simulations(path: Path, whole: dict[str, Any]) -> list[Any]:
    """tau2's simulations: in the file, or (its "dir" format) one file each in ``simulations/``
    beside it, else its ``simulation_index`` (outcomes without the conversations)."""
    inline = whole.get("simulations")
    if inline:
        return list(inline)
    folder = path.parent / "simulations"
    if folder.is_dir():
        return [read_json_file(file, TOOL) for file in sorted(folder.glob("*.json"))]
    return [
        {**entry, "reward_info": {"reward": entry["reward"]}}
        if entry.get("reward") is not None
        else entry
        for entry in whole.get("simulation_index") or []
        if isinstance(entry, dict)
    ]


def _judged(reward: float, common: dict[str, Any], ending: str = "") -> ImportedAttempt:
    if abs(reward - 1) <= _TOLERANCE:
        return ImportedAttempt(outcome=Outcome.PASSED, **common)
    reason = f"reward {reward:g}" + (f", ended by {ending}" if ending else "")
    return ImportedAttempt(outcome=Outcome.WRONG, reason=reason, **common)


def _reward(value: Any, where: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise BadLog(f"{where}: reward must be a number, got {json.dumps(value)}")
    return float(value)


def _trial_number(value: Any, where: str) -> int:
    """A trial as an attempt number: tau counts trials from 0, attempts count from 1."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadLog(f"{where}: trial must be a whole number from 0, got {json.dumps(value)}")
    return value + 1


def _domain(whole: Any) -> str:
    info = object_of(object_of(whole).get("info"))
    return str(object_of(info.get("environment_info")).get("domain_name") or "")


def _last_answer(messages: Any) -> Any:
    """The agent's last words in a trajectory: what the trial ended on."""
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if (
            isinstance(message, dict)
            and message.get("role") == "assistant"
            and message.get("content")
        ):
            return message["content"]
    return None


def _usage(usage: Any) -> dict[str, int] | None:
    usage = object_of(usage)
    found = {
        ours: usage[theirs]
        for ours, theirs in (
            ("input_tokens", "prompt_tokens"),
            ("output_tokens", "completion_tokens"),
        )
        if isinstance(usage.get(theirs), int)
    }
    return found or None
