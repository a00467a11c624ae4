"""A seeded OpenAI-compatible Chat Completions endpoint for making the import fixtures.

Standard library only, so the peers' own environments can reach it. The last user message
decides the answer: it ends in a marker ``(#N)``, and case N is answered 391 with chance
``N / 5`` (so case 5 always, case 0 never), else "I am not sure"; the marker ``(#E)`` is
answered with HTTP 500 every time (a provider that is down); the marker ``(#T)`` plays a
conversation with tools: it calls ``multiply(17, 23)``, then ``divide(391, 0)`` (which fails),
then answers 391 (the tool fixture's, ``inspect_tools_task.py``). Seeded: the same run of a
tool gets the same answers in the same order of requests.

    python bench/imports/fake_endpoint.py --port 0 --seed 7    # prints http://127.0.0.1:PORT/v1
"""

from __future__ import annotations

import argparse
import json
import random
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MARKER = re.compile(r"\(#(\d+|E|T)\)\s*$")
#: The calls the ``(#T)`` conversation makes, one per request, before it answers.
TOOL_SCRIPT = [("multiply", {"a": 17, "b": 23}), ("divide", {"a": 391, "b": 0})]


class Endpoint(BaseHTTPRequestHandler):
    """Answers ``/v1/chat/completions`` and ``/v1/models``; nothing else."""

    rng = random.Random(0)
    lock = threading.Lock()

    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        self._send({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        first = str(body["messages"][0]["content"])
        if (found := MARKER.search(first)) and found[1] == "T":
            self._tools(body)
            return
        last = str(body["messages"][-1]["content"])
        found = MARKER.search(last)
        if found and found[1] == "E":
            self._send({"error": {"message": "the model is down", "type": "server_error"}}, 500)
            return
        chance = int(found[1]) / 5 if found else 1.0
        with self.lock:
            right = self.rng.random() < chance
        content = "391" if right else "I am not sure."
        self._answer(body, {"role": "assistant", "content": content}, "stop")

    def _tools(self, body: dict[str, object]) -> None:
        """The ``(#T)`` conversation: the next scripted call, or the answer once all were made."""
        messages = body["messages"]
        assert isinstance(messages, list)
        made = sum(1 for m in messages if m.get("role") == "tool")
        if made >= len(TOOL_SCRIPT):
            self._answer(body, {"role": "assistant", "content": "391"}, "stop")
            return
        name, arguments = TOOL_SCRIPT[made]
        call = {
            "id": f"call_{made + 1}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        message = {"role": "assistant", "content": "", "tool_calls": [call]}
        self._answer(body, message, "tool_calls")

    def _answer(self, body: dict[str, object], message: dict[str, object], finish: str) -> None:
        messages = body["messages"]
        assert isinstance(messages, list)
        content = str(message.get("content") or "")
        prompt = sum(len(str(m.get("content", ""))) for m in messages) // 4 + 1
        completion = len(content) // 4 + 1
        self._send(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "fake-model"),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": finish,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }
        )

    def _send(self, value: object, status: int = 200) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    Endpoint.rng = random.Random(args.seed)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Endpoint)
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
