"""Scripted models and programs for conversations and tools: what the fake OpenAI face answers
(a model that calls tools; a customer who chats), and small agent, tool and check programs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.support.fake_openai import Reply, tool_call

#: A tool that refunds an order: its arguments on stdin, its answer on stdout.
REFUND_TOOL = """\
import json, sys
args = json.load(sys.stdin)
if args.get("order_id") == "0":
    sys.exit("no such order: 0")
print(f"refunded order {args['order_id']}")
"""

TOOLS_TOML = """\
[[tools]]
name = "refund"
description = "Refund an order by its id."
parameters = { type = "object", properties = { order_id = { type = "string" } }, required = ["order_id"] }
command = ["python3", "refund.py"]
timeout = 20
"""

#: A command agent that holds a conversation: it reads {"messages": [...]} and answers the
#: last user message; at the third it confirms.
BOOKING_AGENT = """\
import json, sys
messages = json.load(sys.stdin)["messages"]
said = [m["content"] for m in messages if m["role"] == "user"]
print("Your table is confirmed." if len(said) == 3 else f"Noted ({len(said)}): {said[-1]}")
"""

#: A command agent playing the customer: refund first, then thanks and the stop text.
CUSTOMER_AGENT = """\
import json, sys
messages = json.load(sys.stdin)["messages"]
heard = [m["content"] for m in messages if m["role"] == "user"]
if any("refunded" in text for text in heard):
    print("Thank you! ###DONE###")
else:
    print("I want a refund for order 1234.")
"""


#: What a simulated customer's model reports it spent, each message (apart from the agent's).
CUSTOMER_USAGE = {"prompt_tokens": 100, "completion_tokens": 7}


def tool_model(body: dict[str, Any]) -> Reply:
    """A model with tools: it calls ``refund`` with the order number the user gave (an unknown
    tool when asked to 'use magic'), then answers with what the tool said. Given a customer's
    instruction (a system message naming Ana), it plays the customer instead."""
    messages = body["messages"]
    last = messages[-1]
    if messages[0]["role"] == "system" and "Ana" in messages[0]["content"]:
        done = any("refunded" in m["content"] for m in messages if m["role"] == "user")
        said = "Thank you! ###DONE###" if done else "I want a refund for order 1234."
        return Reply(content=said, usage=CUSTOMER_USAGE)
    if last["role"] == "tool":
        return Reply(content=f"Done: {last['content']}")
    text = str(last.get("content", ""))
    if "magic" in text:
        return Reply(content=None, tool_calls=[tool_call("magic", {})], finish_reason="tool_calls")
    found = re.search(r"\d+", text)
    if body.get("tools") and found:
        call = tool_call("refund", {"order_id": found.group()}, f"call_{len(messages)}")
        return Reply(content=None, tool_calls=[call], finish_reason="tool_calls")
    return Reply(content="How can I help?")


def looping_model(body: dict[str, Any]) -> Reply:
    """A model that never stops calling tools (max_steps must end it)."""
    step = len(body["messages"])
    call = tool_call("refund", {"order_id": "1"}, f"call_{step}")
    return Reply(content=None, tool_calls=[call], finish_reason="tool_calls")


def write_tool_agent(
    folder: Path, base_url: str, max_steps: int | None = None, model_customer: bool = False
) -> None:
    """An agents file with an `openai` version that has the refund tool, and a customer (a
    program, or with ``model_customer`` the same endpoint playing one)."""
    (folder / "refund.py").write_text(REFUND_TOOL)
    (folder / "tools.toml").write_text(TOOLS_TOML)
    (folder / "customer.py").write_text(CUSTOMER_AGENT)
    (folder / "booking.py").write_text(BOOKING_AGENT)
    steps = "" if max_steps is None else f"max_steps = {max_steps}\n"
    (folder / "agents.toml").write_text(
        f'[agents.llm.versions.1]\nopenai = {{ base_url = "{base_url}", model = "m" }}\n'
        f'tools = "tools.toml"\n{steps}'
        + (
            f'[agents.customer.versions.1]\nopenai = {{ base_url = "{base_url}", model = "m" }}\n'
            if model_customer
            else '[agents.customer.versions.1]\ncommand = ["python3", "customer.py"]\n'
        )
        + '[agents.booking.versions.1]\ncommand = ["python3", "booking.py"]\n'
    )


def exported_attempts(path: Path) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text())["attempts"])
