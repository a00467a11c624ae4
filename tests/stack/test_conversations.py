"""Conversations and tools over real HTTP and real processes: the fake OpenAI face calling tools,
command agents holding a conversation, a simulated user, from the CLI to the `.json`."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from passk_tui.reports.report import build_report
from passk_tui.reports.report_html import render_report
from passk_tui.store import DB_NAME, Store
from tests.support.cli import environment, run_async
from tests.support.conversing import (
    exported_attempts,
    looping_model,
    tool_model,
    write_tool_agent,
)
from tests.support.fake_openai import FakeOpenAI

TOOL_CASES = """\
[[cases]]
name = "refund"
input = "Please refund order 1234."
check = { tool_called = { name = "refund", arguments = { order_id = "1234" } } }

[[cases]]
name = "bad-order"
input = "Refund order 0."
check = { contains = "no such order" }

[[cases]]
name = "magic"
input = "Use magic."
check = { contains = "no tool named" }
"""

CHAT_CASES = """\
[[cases]]
name = "booking"
turns = ["A table for two, please.", "Tomorrow at 7pm.", "Yes, confirm it."]
check = { contains = "confirmed" }
"""

USER_CASES = """\
[[cases]]
name = "refund-by-chat"
user = { agent = "customer", instruction = "You are Ana. You want a refund for order 1234.",
         max_turns = 8, stop = "###DONE###" }
check = { tool_called = { name = "refund", arguments = { order_id = "1234" } } }
"""


async def _run(folder: Path, agent: str, *more: str) -> tuple[int, str, str]:
    args = ["--agent", agent, "--version", "1", "--cases", "cases.toml", "--attempts", "2"]
    args += ["--concurrency", "1", "--export", "out.json", *more]
    return await run_async(*args, env=environment(folder / "data"), cwd=folder)


async def test_a_model_calls_tools_and_the_transcript_is_exported(
    endpoint: FakeOpenAI, tmp_path: Path
) -> None:
    endpoint.respond = tool_model
    write_tool_agent(tmp_path, endpoint.base_url)
    (tmp_path / "cases.toml").write_text(TOOL_CASES)
    code, out, err = await _run(tmp_path, "llm")
    assert code == 0, err
    rows = [line.split()[:4] for line in out.splitlines()[2:]]
    assert rows == [
        ["refund", "2/2", "0", "0"],
        ["bad-order", "2/2", "0", "0"],
        ["magic", "2/2", "0", "0"],
    ]
    attempts = exported_attempts(tmp_path / "out.json")
    messages = attempts[0]["transcript"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    tool = messages[2]
    assert (tool["name"], tool["arguments"], tool["content"], tool["error"]) == (
        "refund",
        {"order_id": "1234"},
        "refunded order 1234",
        False,
    )
    assert tool["duration"] > 0 and messages[1]["usage"] == {"input_tokens": 11, "output_tokens": 2}
    assert attempts[0]["output"] == "Done: refunded order 1234"
    # A failing tool and an unknown one answer the model with their error: no crash.
    failing = attempts[2]["transcript"]["messages"][2]
    assert failing["error"] is True and "no such order: 0" in failing["content"]
    unknown = attempts[4]["transcript"]["messages"][2]
    assert unknown["error"] is True and unknown["content"].startswith(
        "error: no tool named 'magic'"
    )
    # Every request told the model of the tool.
    assert all(seen.json["tools"][0]["function"]["name"] == "refund" for seen in endpoint.seen)
    # The HTML report shows each conversation, folded, its outside text escaped.
    with Store.open(tmp_path / "data" / DB_NAME) as store:
        page = render_report(build_report(store.load(store.resolve("last"))))
    assert page.count('<details class="transcript">') == 6
    assert '<p class="msg tool"><b>tool refund</b>' in page
    assert '<p class="msg tool error"><b>tool magic</b>' in page
    assert "arguments: {\n  &quot;order_id&quot;: &quot;1234&quot;\n}" not in page  # in a <pre>
    assert 'arguments: {\n  "order_id": "1234"\n}' in page


async def test_max_steps_stops_a_model_that_never_stops_calling(
    endpoint: FakeOpenAI, tmp_path: Path
) -> None:
    endpoint.respond = looping_model
    write_tool_agent(tmp_path, endpoint.base_url, max_steps=3)
    (tmp_path / "cases.toml").write_text(TOOL_CASES.split("\n\n")[0] + "\n")
    code, _out, err = await _run(tmp_path, "llm")
    assert code == 0, err
    attempt = exported_attempts(tmp_path / "out.json")[0]
    assert (attempt["outcome"], attempt["status"]) == ("errored", "stopped")
    assert attempt["error"] == "max_steps 3 reached and the model still called tools"
    assert [m["role"] for m in attempt["transcript"]["messages"]].count("assistant") == 3
    assert endpoint.requests == 6  # 3 steps x 2 attempts


async def test_three_turns_with_a_command_agent(endpoint: FakeOpenAI, tmp_path: Path) -> None:
    write_tool_agent(tmp_path, endpoint.base_url)
    (tmp_path / "cases.toml").write_text(CHAT_CASES)
    code, out, err = await _run(tmp_path, "booking")
    assert code == 0, err
    assert out.splitlines()[2].split()[:2] == ["booking", "2/2"]
    attempt = exported_attempts(tmp_path / "out.json")[0]
    said = [(m["role"], m["content"]) for m in attempt["transcript"]["messages"]]
    assert said == [
        ("user", "A table for two, please."),
        ("assistant", "Noted (1): A table for two, please."),
        ("user", "Tomorrow at 7pm."),
        ("assistant", "Noted (2): Tomorrow at 7pm."),
        ("user", "Yes, confirm it."),
        ("assistant", "Your table is confirmed."),
    ]


async def test_a_simulated_user_ends_on_its_stop_text(endpoint: FakeOpenAI, tmp_path: Path) -> None:
    endpoint.respond = tool_model
    write_tool_agent(tmp_path, endpoint.base_url)
    (tmp_path / "cases.toml").write_text(USER_CASES)
    code, out, err = await _run(tmp_path, "llm")
    assert code == 0, err
    assert out.splitlines()[2].split()[:2] == ["refund-by-chat", "2/2"]
    transcript = exported_attempts(tmp_path / "out.json")[0]["transcript"]
    said = [(m["role"], m["content"]) for m in transcript["messages"] if m["role"] != "tool"]
    assert said == [
        ("user", "I want a refund for order 1234."),
        ("assistant", ""),
        ("assistant", "Done: refunded order 1234"),
        ("user", "Thank you!"),
    ]
    assert all(m.get("simulated") for m in transcript["messages"] if m["role"] == "user")
    # A command agent reports no tokens: the simulated user's are none.
    case = json.loads((tmp_path / "out.json").read_text())["cases"][0]
    assert case["conversation"]["user_tokens"] is None


async def test_a_model_playing_the_user_has_its_tokens_counted_apart(
    endpoint: FakeOpenAI, tmp_path: Path
) -> None:
    endpoint.respond = tool_model
    write_tool_agent(tmp_path, endpoint.base_url, model_customer=True)
    (tmp_path / "cases.toml").write_text(USER_CASES)
    code, out, err = await _run(tmp_path, "llm")
    assert code == 0, err
    assert out.splitlines()[2].split()[:2] == ["refund-by-chat", "2/2"]
    case = json.loads((tmp_path / "out.json").read_text())["cases"][0]
    # Each attempt: two customer messages (100 in, 7 out each), two agent steps (11 in, 2 out).
    assert case["conversation"]["user_tokens"] == {"input_tokens": 400, "output_tokens": 28}
    assert (case["tokens"]["input"], case["tokens"]["output"]) == (44, 8)
    first = exported_attempts(tmp_path / "out.json")[0]["transcript"]
    assert first["user_usage"] == {"input_tokens": 200, "output_tokens": 14}
    # The customer's model was told its instruction first, and the agent's answers as the user's.
    asked = [s.json["messages"] for s in endpoint.seen if s.json["messages"][0]["role"] == "system"]
    assert asked[0][0]["content"].startswith("You are Ana.")
    assert [m["role"] for m in asked[1]] == ["system", "assistant", "user"]


def _priced_customer(folder: Path) -> None:
    """The customer's model priced at $1.50 / $6 per million tokens (the agent's is not)."""
    agents = folder / "agents.toml"
    agents.write_text(
        agents.read_text().replace(
            "[agents.customer.versions.1]\n",
            "[agents.customer.versions.1]\nprice = { input_per_mtok = 1.5, output_per_mtok = 6 }\n",
        )
    )


async def test_a_simulated_users_money_is_counted_apart_and_in_the_budget(
    endpoint: FakeOpenAI, tmp_path: Path
) -> None:
    endpoint.respond = tool_model
    write_tool_agent(tmp_path, endpoint.base_url, model_customer=True)
    _priced_customer(tmp_path)
    (tmp_path / "cases.toml").write_text(USER_CASES)
    code, _, err = await _run(tmp_path, "llm")
    assert code == 0, err
    exported = json.loads((tmp_path / "out.json").read_text())
    # Each attempt: the customer's 200 tokens in and 14 out, (200 x 1.5 + 14 x 6) / 10^6.
    assert exported_attempts(tmp_path / "out.json")[0]["transcript"]["user_cost"] == "0.000384"
    assert exported["cases"][0]["conversation"]["user_cost"] == 0.000768
    assert exported["evaluation"]["user_cost"] == 0.000768
    assert exported["cases"][0]["cost"] is None  # the agent's own: unpriced, not the user's
    # Before: a budget saw only the agent's money; the customer's first attempt now spends it.
    free = ["--price-in", "0", "--price-out", "0"]  # the agent's tokens cost nothing
    code, _, err = await _run(tmp_path, "llm", *free, "--budget-cost", "0.0001")
    assert code == 0, err
    spent = json.loads((tmp_path / "out.json").read_text())
    assert spent["evaluation"]["status_reason"].startswith("budget spent")
    assert len(spent["attempts"]) == 1


@pytest.mark.parametrize(
    ("agents", "problem"),
    [
        ('tools = "missing.toml"', "tools: no such file 'missing.toml'"),
        ('tools = "tools.toml"\nmax_steps = 0', "max_steps must be a whole number from 1 to 1000"),
    ],
)
async def test_a_bad_tools_setting_is_exit_2_in_one_line(
    endpoint: FakeOpenAI, tmp_path: Path, agents: str, problem: str
) -> None:
    write_tool_agent(tmp_path, endpoint.base_url)
    (tmp_path / "agents.toml").write_text(
        f'[agents.llm.versions.1]\nopenai = {{ base_url = "{endpoint.base_url}", model = "m" }}\n'
        f"{agents}\n"
    )
    (tmp_path / "cases.toml").write_text(TOOL_CASES)
    code, _out, err = await _run(tmp_path, "llm")
    assert code == 2 and problem in err and len(err.strip().splitlines()) == 1, err


async def test_a_tools_file_with_a_bad_schema_is_exit_2(
    endpoint: FakeOpenAI, tmp_path: Path
) -> None:
    write_tool_agent(tmp_path, endpoint.base_url)
    text = (tmp_path / "tools.toml").read_text().replace('type = "object"', 'type = "dict"', 1)
    (tmp_path / "tools.toml").write_text(text)
    (tmp_path / "cases.toml").write_text(TOOL_CASES)
    code, _out, err = await _run(tmp_path, "llm")
    assert code == 2, err
    assert "tools.toml: tools[0] (refund): parameters: type must be 'object'" in err
    assert len(err.strip().splitlines()) == 1


async def test_a_simulated_user_missing_from_the_agents_file_is_exit_2(
    endpoint: FakeOpenAI, tmp_path: Path
) -> None:
    write_tool_agent(tmp_path, endpoint.base_url)
    (tmp_path / "cases.toml").write_text(USER_CASES.replace('"customer"', '"nobody"'))
    code, _out, err = await _run(tmp_path, "llm")
    assert code == 2 and "case 'refund-by-chat': user agent 'nobody': no such agent" in err, err


async def test_a_simulated_user_nothing_answers_for_stops_the_run_before_any_attempt(
    endpoint: FakeOpenAI, tmp_path: Path
) -> None:
    """Before: its endpoint was first tried inside each attempt, so every attempt errored
    ("simulated user: ...") and the run went on; now it is checked as the agent's own is."""
    endpoint.respond = tool_model
    write_tool_agent(tmp_path, endpoint.base_url, model_customer=True)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    agents = tmp_path / "agents.toml"
    text = agents.read_text()
    customer = text.index("[agents.customer.versions.1]")
    agents.write_text(text[:customer] + text[customer:].replace(endpoint.base_url, closed, 1))
    (tmp_path / "cases.toml").write_text(USER_CASES)
    code, out, err = await _run(tmp_path, "llm")
    assert code == 3, err
    assert f"cannot reach {closed}" in err and "Traceback" not in err
    assert out == "" and not endpoint.seen  # the agent was never asked
