"""A local agent that is a Python callable (``passk_tui.evaluate``'s): its return value is the answer.

A coroutine function runs on the evaluation's own loop; a plain function runs in a thread of a
pool as wide as ``--concurrency``, so that a blocking agent (an SDK call, ``time.sleep``) holds
one worker each and never the loop. A thread cannot be killed: an attempt past its deadline is
timed out at once, but its thread runs on until the function returns, holding its worker.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from passk_tui.core.attempt import Turn
from passk_tui.core.inputs.agent_definition import python_definition

if TYPE_CHECKING:
    from passk_tui.core.run.attempt_keys import PlannedAttempt
    from passk_tui.core.run.target import RetryNotice

#: What an agent may take by keyword besides its input: which attempt it is making (the same
#: three a `command` agent finds in its environment as PASSK_CASE, PASSK_ATTEMPT, PASSK_EVALUATION).
ATTEMPT_KEYWORDS = ("case", "attempt", "evaluation")


def callable_name(agent: Callable[..., Any]) -> str:
    """``module.qualname`` of a function or of a callable object's class."""
    named: Any = agent if hasattr(agent, "__qualname__") else type(agent)
    if isinstance(agent, functools.partial):
        named = agent.func
    module = getattr(named, "__module__", None) or "?"
    return f"{module}.{getattr(named, '__qualname__', type(agent).__name__)}"


def is_async(agent: Callable[..., Any]) -> bool:
    """Whether calling ``agent`` gives a coroutine (a coroutine function, or an object whose
    ``__call__`` is one, or a partial of either)."""
    inner = agent.func if isinstance(agent, functools.partial) else agent
    method = getattr(type(inner), "__call__", None)  # noqa: B004 (the method, not a test)
    return inspect.iscoroutinefunction(inner) or inspect.iscoroutinefunction(method)


def attempt_keywords(agent: Callable[..., Any]) -> frozenset[str]:
    """Which of ATTEMPT_KEYWORDS ``agent`` accepts by name (all of them with ``**kwargs``)."""
    try:
        parameters = list(inspect.signature(agent).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: it takes the input only
        return frozenset()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return frozenset(ATTEMPT_KEYWORDS)
    by_name = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return frozenset(p.name for p in parameters if p.kind in by_name and p.name in ATTEMPT_KEYWORDS)


class CallableTarget:
    """Calls ``agent(input)`` once per attempt: a return is a completed Turn, an exception a
    failed one carrying its type and message (the attempt is errored)."""

    def __init__(self, agent: Callable[..., Any], evaluation_id: str, concurrency: int) -> None:
        self.agent = agent
        self.evaluation_id = evaluation_id
        self.definition = python_definition(callable_name(agent))
        self._async = is_async(agent)
        self._keywords = attempt_keywords(agent)
        self._threads = (
            None
            if self._async
            else ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="passk-agent")
        )

    def __repr__(self) -> str:
        return f"CallableTarget({self.definition['callable']})"

    async def prepare(self) -> None:
        return None

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        """Call the agent on this attempt's input; its answer, or its exception, is the Turn."""
        given = {"case": attempt.case.name, "attempt": attempt.attempt}
        given["evaluation"] = self.evaluation_id
        keywords = {name: value for name, value in given.items() if name in self._keywords}
        try:
            if self._threads is None:
                answer = await self.agent(attempt.case.input, **keywords)
            else:
                call = functools.partial(self.agent, attempt.case.input, **keywords)
                answer = await asyncio.get_running_loop().run_in_executor(self._threads, call)
            if inspect.isawaitable(answer):  # a plain function that returned a coroutine
                answer = await answer
        except Exception as exc:
            return Turn("failed", error=f"{type(exc).__name__}: {exc}")
        problem = answer_problem(answer)
        if problem:
            return Turn("failed", error=problem)
        return Turn("completed", output=answer)

    async def aclose(self) -> None:
        """Let the pool go; a thread still running (past its deadline) ends on its own."""
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)


def answer_problem(answer: Any) -> str | None:
    """Why ``answer`` is no answer (None, or not a JSON value), or None when it is one."""
    if isinstance(answer, str):
        return None
    if answer is None:
        return "the agent returned None, not an answer"
    try:
        json.dumps(answer, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return f"the agent returned a {type(answer).__name__}, which is neither text nor JSON"
    return None
