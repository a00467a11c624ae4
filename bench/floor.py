"""The floor: a bare aiohttp client running the same Runs on the test stack, no passk-tui.

    python bench/floor.py URL CONCURRENCY ATTEMPTS [--openai]

One POST /v1/runs?wait=30 per attempt (the Turn ends within the wait), each with its
own idempotency key, CONCURRENCY workers; with --openai, one POST URL/chat/completions
per attempt instead (the peer harness's fake_openai.py, 500s counted, not retried). Prints the loop's wall time (start-up not
included), the per-request latency spread and the CPU: what this machine and this stack
allow any Python client, to read passk-tui's figures against.
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import sys
import time
import uuid

import aiohttp
from harness import run_request


async def run(
    url: str, concurrency: int, attempts: int, openai: bool = False
) -> tuple[float, list[float]]:
    prefix = uuid.uuid4().hex
    latencies: list[float] = []
    connector = aiohttp.TCPConnector(limit=concurrency + 16)
    async with aiohttp.ClientSession(connector=connector) as session:
        numbers = iter(range(attempts))

        async def worker() -> None:
            for i in numbers:
                if openai:
                    sent = time.perf_counter()
                    question = {"role": "user", "content": f"What is {i} + 1?"}
                    async with session.post(
                        f"{url}/chat/completions",
                        data=json.dumps({"model": "fake-model", "messages": [question]}),
                        headers={"Content-Type": "application/json"},
                    ) as r:
                        json.loads(await r.read())
                    latencies.append(time.perf_counter() - sent)
                    continue
                body, headers = run_request(prefix, i)
                sent = time.perf_counter()
                async with session.post(f"{url}/v1/runs?wait=30", data=body, headers=headers) as r:
                    answer = json.loads(await r.read())
                if answer["turn"]["status"] != "completed":
                    raise RuntimeError(f"not completed: {answer}")
                latencies.append(time.perf_counter() - sent)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start, latencies


def main() -> None:
    url, concurrency, attempts = sys.argv[1].rstrip("/"), int(sys.argv[2]), int(sys.argv[3])
    wall, latencies = asyncio.run(run(url, concurrency, attempts, "--openai" in sys.argv))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    ms = sorted(x * 1000 for x in latencies)
    print(
        f"bare aiohttp: {attempts} attempts at C={concurrency}: loop {wall:.3f} s "
        f"({attempts / wall:.0f}/s); request ms median {statistics.median(ms):.1f} "
        f"p95 {ms[int(len(ms) * 0.95)]:.1f} max {ms[-1]:.1f}; "
        f"CPU {usage.ru_utime + usage.ru_stime:.2f} s"
    )


if __name__ == "__main__":
    main()
