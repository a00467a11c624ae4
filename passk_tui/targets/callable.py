"""A local agent that is a Python callable (``passk_tui.evaluate``'s): its return value is the answer.

A coroutine function runs on the evaluation's own loop; a plain function runs in a thread of its
own per attempt (the engine's pool bounds how many at once), so that a blocking agent (an SDK
call, ``time.sleep``) never holds the loop. The deadline holds whatever the agent does:

- A thread cannot be stopped: at the deadline the attempt is timed out at once and its thread is
  left to run until the function returns. It is a daemon thread, so it never keeps Python from
  exiting, and nothing waits for it (the next attempts start in threads of their own).
- A coroutine is cancelled at the deadline and not waited for: one that ignores the cancellation
  runs on beside the next attempts, on a loop that ``evaluate`` closes when it returns.
- An answer that comes after the deadline (a coroutine that blocked the event loop past it, so
  the deadline could not fire) is timed out all the same: the time of the answer decides.

Whatever leaves the agent, ``SystemExit``, ``KeyboardInterrupt`` or an exception whose message
cannot be read included, makes its attempt errored; only a Ctrl-C of the caller (a SIGINT that
arrived while the agent ran) goes on as ``KeyboardInterrupt``, and the exceptions its maker names
as the agent's own "no" (a pytest body's failed assertion) make it wrong, their message the reason. An answer is copied into plain
values before anything reads it: a ``str`` subclass's own methods never run again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import signal
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Any

from passk_tui.core.attempt import Turn
from passk_tui.core.inputs.agent_definition import python_definition
from passk_tui.core.text.decimals import fixed
from passk_tui.core.text.mentions import shorten
from passk_tui.core.transcript import Conversation

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


@dataclass(frozen=True, slots=True)
class _Outcome:
    """How one call of the agent ended: its value or what it raised, and when (loop clock)."""

    value: Any
    raised: BaseException | None
    ended: float


class CallableTarget:
    """Calls ``agent(input)`` once per attempt (per turn of a conversation, with the list of its
    messages): a return is a completed Turn, anything raised a failed one carrying its type
    and message (the attempt is errored), but one of ``wrong``: a completed Turn found wrong."""

    def __init__(
        self,
        agent: Callable[..., Any],
        evaluation_id: str,
        timeout: float,
        wrong: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.agent = agent
        #: What the agent raises to say its own answer is wrong (not that it could not answer).
        self.wrong = wrong
        self.evaluation_id = evaluation_id
        #: The evaluation's deadline in seconds, for the words of a late answer (a case may have its own).
        self.timeout = timeout
        self.definition = python_definition(callable_name(agent))
        self._async = is_async(agent)
        self._keywords = attempt_keywords(agent)
        self._interrupts = Interrupts()
        #: Coroutines cancelled at their deadline and not yet ended: held so they are not lost.
        self._left: set[asyncio.Task[_Outcome]] = set()

    def __repr__(self) -> str:
        return f"CallableTarget({self.definition['callable']})"

    async def prepare(self) -> None:
        self._interrupts.watch()

    async def execute(self, attempt: PlannedAttempt, deadline: float, notify: RetryNotice) -> Turn:
        """Call the agent on this attempt's input; its answer, or what it raised, is the Turn."""
        given = {"case": attempt.case.name, "attempt": attempt.attempt}
        given["evaluation"] = self.evaluation_id
        keywords = {name: value for name, value in given.items() if name in self._keywords}
        given_input = attempt.case.input
        if isinstance(given_input, Conversation):
            given_input = given_input["messages"]  # a conversation: the list of its messages
        call = functools.partial(self.agent, given_input, **keywords)
        interrupts = self._interrupts.count
        if self._async:
            outcome = await self._on_loop(call)
        else:
            outcome = await self._in_thread(call)
            if outcome.raised is None and inspect.isawaitable(outcome.value):
                returned = outcome.value  # a plain function that returned a coroutine
                outcome = await self._on_loop(lambda: returned)
        if outcome.ended > deadline:
            timeout = attempt.case.timeout or self.timeout
            late = outcome.ended - deadline
            return Turn(
                "timed_out",
                error=f"no Turn within the {timeout:g} s deadline (the agent's end came "
                f"{fixed(late, 1)} s after it: the event loop was held)",
            )
        if outcome.raised is not None:
            if (
                isinstance(outcome.raised, KeyboardInterrupt)
                and self._interrupts.count > interrupts
            ):
                raise outcome.raised  # the caller's Ctrl-C, not the agent's doing
            if isinstance(outcome.raised, self.wrong):
                # A reason is one line: the first of the message (pytest's diff follows it).
                said = described(outcome.raised).split("\n", 1)[0].rstrip()
                return Turn("completed", wrong=shorten(said))
            return Turn("failed", error=described(outcome.raised))
        answer, problem = plain_answer(outcome.value)
        if problem:
            return Turn("failed", error=problem)
        return Turn("completed", output=answer)

    async def _on_loop(self, call: Callable[[], Awaitable[Any]]) -> _Outcome:
        """Await the agent's coroutine in a task of its own, which the deadline cancels but
        never waits for (a coroutine may ignore its cancellation and run on)."""
        task = asyncio.get_running_loop().create_task(_outcome_of(call))
        try:
            await asyncio.wait((task,))
        except asyncio.CancelledError:
            task.cancel()
            self._left.add(task)
            task.add_done_callback(self._left.discard)
            raise
        return task.result()

    def _in_thread(self, call: Callable[[], Any]) -> asyncio.Future[_Outcome]:
        """Call the agent in a daemon thread of its own; the future has its outcome (a
        cancelled future leaves the thread to end on its own)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_Outcome] = loop.create_future()

        def settle(outcome: _Outcome) -> None:
            if not future.done():
                future.set_result(outcome)

        def work() -> None:
            try:
                outcome = _Outcome(call(), None, loop.time())
            except BaseException as exc:  # every way out of the agent is its attempt's outcome
                outcome = _Outcome(None, exc, loop.time())
            # A closed loop: no one waits for this attempt any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(settle, outcome)

        threading.Thread(target=work, name="passk-agent", daemon=True).start()
        return future

    async def aclose(self) -> None:
        """Stop counting SIGINTs; cancelled coroutines that run on are left to their loop."""
        self._interrupts.unwatch()


async def _outcome_of(call: Callable[[], Awaitable[Any]]) -> _Outcome:
    """The agent's coroutine run to its end, whatever it raises: a task that raised SystemExit
    or KeyboardInterrupt would take the event loop down with it. A CancelledError is caught
    too: the target's own cancel is never read, and one the agent raised is its error."""
    loop = asyncio.get_running_loop()
    try:
        value = await call()
    except BaseException as exc:
        return _Outcome(None, exc, loop.time())
    return _Outcome(value, None, loop.time())


def described(exc: BaseException) -> str:
    """``Type: message`` of what the agent raised, even when its message cannot be read."""
    try:
        message = str(exc)
    except BaseException:  # a hostile __str__ may raise anything; the attempt is still errored
        message = "(its message could not be read)"
    return f"{type(exc).__name__}: {message}"


def plain_answer(answer: Any) -> tuple[Any, str | None]:
    """The answer as plain values (text, or JSON values), or why it is no answer.

    A copy, made once here: a ``str`` subclass, a dict subclass or a float subclass of the
    agent's is never asked anything again (by a check, the store or an export).
    """
    try:
        if isinstance(answer, str):
            return str.__str__(answer), None
        if answer is None:
            return None, "the agent returned None, not an answer"
        return json.loads(json.dumps(answer, allow_nan=False)), None
    except BaseException:  # its own methods raise whatever they like: it is no answer
        kind = type(answer).__name__
        return None, f"the agent returned a {kind}, which is neither text nor JSON"


class Interrupts:
    """Counts the SIGINTs that reach the process while an evaluation runs on the main thread.

    A KeyboardInterrupt raised inside the agent is the caller's Ctrl-C only when one arrived;
    otherwise the agent raised it, and its attempt is errored. Off the main thread no signal
    can raise one, so nothing is watched there.
    """

    def __init__(self) -> None:
        self.count = 0
        self._installed: tuple[Callable[[int, FrameType | None], Any], Any] | None = None

    def watch(self) -> None:
        """Count each SIGINT, then hand it to the handler that was there."""
        if threading.current_thread() is not threading.main_thread() or self._installed:
            return
        previous = signal.getsignal(signal.SIGINT)
        if not callable(previous):
            return  # ignored, or the default (the process ends): no KeyboardInterrupt to tell

        def counted(signum: int, frame: FrameType | None) -> Any:
            self.count += 1
            return previous(signum, frame)

        signal.signal(signal.SIGINT, counted)
        self._installed = (counted, previous)

    def unwatch(self) -> None:
        """Put the previous handler back, unless someone replaced ours meanwhile."""
        if self._installed is None:
            return
        counted, previous = self._installed
        self._installed = None
        if signal.getsignal(signal.SIGINT) is counted:
            signal.signal(signal.SIGINT, previous)
