"""Write the tau-bench and tau2-bench fixtures of the import tests (seeded, our own data).

tau-bench and tau2-bench need paid model APIs to run, so the fixtures are written here in
their results formats as their sources define them: tau-bench's ``EnvRunResult`` list
(``tau_bench/types.py``, ``run.py``: a failed trial keeps ``info.error`` and reward 0) and
tau2-bench's ``Results`` (``src/tau2/data_model/simulation.py``: ``info``, ``tasks``,
``simulations`` with ``termination_reason`` and ``reward_info``), one file per domain.
The published tau-bench trajectories are checked by ``check_tau.py``.

    python bench/imports/make_tau_fixtures.py tests/fixtures/imports
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path


def tau1(rng: random.Random) -> list[dict[str, object]]:
    """5 tasks x 3 trials; task 4's second trial raised (an API error), as run.py keeps it."""
    results: list[dict[str, object]] = []
    for trial in range(3):
        for task_id in range(5):
            if task_id == 4 and trial == 1:
                info: dict[str, object] = {
                    "error": "APIConnectionError: Connection error.",
                    "traceback": "...",
                }
                results.append(
                    {"task_id": task_id, "reward": 0.0, "info": info, "traj": [], "trial": trial}
                )
                continue
            reward = 1.0 if rng.random() < task_id / 4 else 0.0
            traj = [
                {"role": "user", "content": f"task {task_id}: change my flight"},
                {"role": "assistant", "content": "Done." if reward else "I cannot do that."},
            ]
            info = {"task": {"user_id": f"user_{task_id}"}, "reward_info": {"reward": reward}}
            results.append(
                {"task_id": task_id, "reward": reward, "info": info, "traj": traj, "trial": trial}
            )
    return results


def tau2(rng: random.Random, domain: str, infra_error: bool) -> dict[str, object]:
    """4 tasks x 4 trials of one domain; one infrastructure error where asked."""
    tasks = [
        {"id": str(n), "user_scenario": {"instructions": f"{domain} task {n}"}} for n in range(4)
    ]
    simulations: list[dict[str, object]] = []
    for trial in range(4):
        for n in range(4):
            ending = "user_stop"
            reward_info: dict[str, object] | None = {
                "reward": 1.0 if rng.random() < (n + 1) / 5 else 0.0
            }
            if infra_error and n == 0 and trial == 2:
                ending, reward_info = "infrastructure_error", None
            elif n == 3 and trial == 3:
                ending = "max_steps"
                reward_info = {"reward": 0.0}
            simulations.append(
                {
                    "id": f"{domain}-{n}-{trial}",
                    "task_id": str(n),
                    "timestamp": "2026-12-04T10:00:00",
                    "start_time": "2026-12-04T10:00:00",
                    "end_time": "2026-12-04T10:00:09",
                    "duration": 9.0,
                    "termination_reason": ending,
                    "agent_cost": 0.01,
                    "user_cost": 0.01,
                    "reward_info": reward_info,
                    "messages": [
                        {"role": "user", "content": f"{domain} task {n}"},
                        {"role": "assistant", "content": "All set."},
                    ],
                    "trial": trial,
                }
            )
    info = {
        "git_commit": "a2c0247",
        "num_trials": 4,
        "max_steps": 200,
        "max_errors": 10,
        "user_info": {"implementation": "user_simulator", "llm": "fake-user"},
        "agent_info": {"implementation": "llm_agent", "llm": "fake-model"},
        "environment_info": {"domain_name": domain},
    }
    return {
        "timestamp": "2026-12-04T10:00:00",
        "info": info,
        "tasks": tasks,
        "simulations": simulations,
    }


def main() -> None:
    out = Path(sys.argv[1])
    rng = random.Random(11)
    (out / "tau-bench-results.json").write_text(json.dumps(tau1(rng), indent=1) + "\n")
    for domain, infra in (("airline", True), ("retail", False)):
        (out / f"tau2-{domain}.json").write_text(
            json.dumps(tau2(rng, domain, infra), indent=1) + "\n"
        )


if __name__ == "__main__":
    main()
