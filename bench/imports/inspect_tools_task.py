"""The inspect_ai task whose log is the import tests' fixture of a conversation with tools.

One sample against ``fake_endpoint.py``'s ``(#T)`` script: the model calls ``multiply``,
then ``divide`` by zero (the tool fails, with inspect's ToolError), then answers 391, which
is right. Its log is ``inspect-tools.eval`` (and inspect's own ``.json`` conversion).
"""

from __future__ import annotations

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import Tool, ToolError, tool


@tool
def multiply() -> Tool:
    async def execute(a: int, b: int) -> int:
        """Multiply two numbers.

        Args:
            a: The first number.
            b: The second number.
        """
        return a * b

    return execute


@tool
def divide() -> Tool:
    async def execute(a: int, b: int) -> float:
        """Divide a by b.

        Args:
            a: The dividend.
            b: The divisor.
        """
        if b == 0:
            raise ToolError("cannot divide by zero")
        return a / b

    return execute


@task
def arithmetic_tools(epochs: int = 2) -> Task:
    return Task(
        dataset=[
            Sample(id="with-tools", input="What is 17 * 23? Use the tools. (#T)", target="391")
        ],
        solver=[use_tools(multiply(), divide()), generate()],
        scorer=match(location="end", numeric=True),
        epochs=Epochs(int(epochs)),
    )
