"""A scripted stand-in for a tool-calling model: an OpenAI-compatible Chat Completions server.

No model small enough to run on this example's 2-core machine called tools reliably
enough to be worth measuring, so this server plays one, plainly scripted: it is a
support agent for a shop that

- calls ``lookup_order`` and then ``refund`` when a user asks for a refund of an order,
  but on about one request in four "forgets" to look the order up first and refunds
  straight away, and on about one in ten answers without calling any tool at all;
- holds a table booking over three user turns, confirming on the third.

Like a model sampling at a temperature above 0, it answers the same request differently
from one attempt to the next; with ``--seed`` it gives the same answer to the same
request every time. Run it with
``python scripted_model.py --port 8099`` and point an ``openai`` agent version at
``http://127.0.0.1:8099/v1`` (``agents.toml`` here does).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _roll(seed: int | None, messages: list[dict[str, Any]]) -> float:
    """A number in [0, 1): random, as a model sampling at a temperature above 0 answers; with a
    seed, fixed by it and the conversation so far (the same request, the same answer)."""
    if seed is None:
        return random.random()
    text = json.dumps([seed, messages], sort_keys=True)
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 2**32


def _call(name: str, arguments: dict[str, Any], number: int) -> dict[str, Any]:
    return {
        "id": f"call_{number}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def reply(body: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """The assistant message for one request: text, or tool calls."""
    messages = body.get("messages", [])
    tools = {t["function"]["name"] for t in body.get("tools", [])}
    users = [m for m in messages if m.get("role") == "user"]
    last = messages[-1] if messages else {}
    roll = _roll(seed, messages)
    if last.get("role") == "tool":
        called = [m for m in messages if m.get("role") == "tool"]
        if "refunded" in last.get("content", "") or "error" in last.get("content", ""):
            return {"role": "assistant", "content": f"All done: {last['content']}."}
        order = re.search(r"\d+", str(users[-1].get("content", ""))) if users else None
        if order and "refund" in tools:
            return {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call("refund", {"order_id": order.group()}, len(called) + 1)],
            }
        return {"role": "assistant", "content": f"I found this: {last['content']}."}
    text = str(last.get("content", "")).lower()
    order = re.search(r"\d+", text)
    asked = any("refund" in str(m.get("content", "")).lower() for m in users)
    if asked and order and {"refund", "lookup_order"} <= tools:
        if roll < 0.1:
            return {"role": "assistant", "content": "I have refunded your order."}
        first = "refund" if roll < 0.35 else "lookup_order"
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call(first, {"order_id": order.group()}, 1)],
        }
    if "refund" in text:
        return {"role": "assistant", "content": "Which order number is it?"}
    if "table" in text or "pm" in text or "confirm" in text:
        if len(users) >= 3 and "confirm" in text:
            return {"role": "assistant", "content": "Your table is confirmed. See you then!"}
        if len(users) == 1:
            return {"role": "assistant", "content": "Gladly. For which day and time?"}
        return {"role": "assistant", "content": "A table for two then. Shall I confirm it?"}
    return {"role": "assistant", "content": "How can I help?"}


class _Handler(BaseHTTPRequestHandler):
    seed: int | None = None

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        message = reply(body, self.seed)
        prompt = sum(len(str(m.get("content") or "")) for m in body.get("messages", [])) // 4 + 1
        completion = len(json.dumps(message)) // 4 + 1
        answer = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        data = b'{"object": "list", "data": [{"id": "scripted"}]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--seed", type=int, default=None, help="the same answer every time")
    args = parser.parse_args()
    _Handler.seed = args.seed
    server = ThreadingHTTPServer(("127.0.0.1", args.port), _Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
