"""A scripted OpenAI-compatible judge: verdicts by rule on the answer in the prompt.

The answer the judge is shown decides what it says (words in the answer, as the
default prompt quotes it):

- ``good``: ``VERDICT: PASS``; ``bad``: ``VERDICT: FAIL``;
- ``split``: PASS, PASS, FAIL in turn for each time the same prompt is asked (votes 2/3);
- ``mute``: no verdict line the first time a prompt is asked, then PASS;
- ``silent``: never a verdict line;
- ``broken``: an HTTP 400 (the judge's Run fails at once, no resend).

Served as a process of its own (``python -m tests.support.judge_server``) it prints its
base URL, and at SIGTERM the count of requests, for the CLI's tests across processes.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import AsyncIterator

from tests.support.fake_openai import FakeOpenAI, Reply, serve, text_usage

#: Where the answer sits in the default prompt: between these two lines.
_ANSWER_START = "The agent answered:\n"
_ANSWER_END = "\n\nThe rubric the answer must meet:"


def answer_in(prompt: str) -> str:
    """The answer quoted in a prompt made from the default template (else the whole prompt)."""
    start = prompt.find(_ANSWER_START)
    end = prompt.find(_ANSWER_END)
    if start < 0 or end < 0:
        return prompt
    return prompt[start + len(_ANSWER_START) : end]


class ScriptedJudge(FakeOpenAI):
    """The fake endpoint answering as a judge by the rules above; ``asked`` counts by prompt."""

    def __init__(self, latency: float = 0.0) -> None:
        super().__init__("", latency)
        self.asked: Counter[str] = Counter()

    def _default_reply(self, body: dict) -> Reply:
        prompt = str(body["messages"][-1]["content"])
        self.asked[prompt] += 1
        turn = self.asked[prompt]
        answer = answer_in(prompt)
        if "broken" in answer:
            return Reply(status=400, body={"error": {"message": "judge broken", "type": "test"}})
        if "silent" in answer or ("mute" in answer and turn == 1):
            text = "The answer is hard to grade."
        elif "split" in answer:
            text = "Mostly right.\nVERDICT: FAIL" if turn % 3 == 0 else "Right.\nVERDICT: PASS"
        elif "bad" in answer:
            text = "It misses the rubric.\nVERDICT: FAIL"
        else:
            text = "It meets the rubric.\nVERDICT: PASS"
        return Reply(content=text, usage=text_usage(body["messages"], text))


async def serving_judge() -> AsyncIterator[ScriptedJudge]:
    """A scripted judge listening for one test (``judge = pytest.fixture(serving_judge)``)."""
    server = ScriptedJudge()
    await server.start()
    yield server
    await server.stop()


def main(argv: list[str] | None = None) -> None:
    """Serve until SIGINT/SIGTERM; the base URL on stdout, then the request count."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.judge_server")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args(argv)
    serve(lambda: ScriptedJudge(args.latency))


if __name__ == "__main__":
    main()
