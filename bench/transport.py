"""Our HTTP/1.1 transport against httpx's own (httpcore): start-up, CPU per request, throughput.

    python bench/transport.py                          # C 50 and 200, 0.05 s Turns, 3 repeats
    python bench/transport.py --only 200 --attempts 10000 --latency 0 --repeat 5

The stack's requests as the stack target sends them (``targets.http.send``, one
POST /v1/runs?wait=30 per attempt, its own idempotency key), C workers, against the test
stack in its own process. Each candidate runs in a fresh child, alternately: ``ours``
(``targets.http.make_client``) and ``httpx`` (httpx.AsyncHTTPTransport, a pool as large as
ours). The child reports its loop's wall and CPU; start-up is the import and first client
of each, timed in a child of its own. Issue 30 asked which transport to keep: this says.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import time
import uuid

from harness import PYTHON, ROOT, machine, run_request, spread, stack, warn_if_busy

STARTUP = {
    "ours": "from passk_tui.targets.http import make_client; make_client(50)",
    "httpx": (
        "import httpx; from passk_tui.targets.http import make_client; "
        "httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(limits=httpx.Limits("
        "max_connections=62, max_keepalive_connections=62)))"
    ),
}


def client_for(kind: str, concurrency: int):  # type: ignore[no-untyped-def]
    import httpx

    from passk_tui.targets.http import make_client

    if kind == "ours":
        return make_client(concurrency)
    pool = concurrency + max(4, concurrency // 4)
    limits = httpx.Limits(max_connections=pool, max_keepalive_connections=pool)
    return httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(limits=limits))


async def child(kind: str, url: str, concurrency: int, attempts: int) -> None:
    import httpx

    from passk_tui.targets.http import send

    client = client_for(kind, concurrency)
    prefix = uuid.uuid4().hex
    numbers = iter(range(attempts))
    target = httpx.URL(f"{url}/v1/runs?wait=30")
    limits = {"connect": 10.0, "read": 40.0, "write": 40.0, "pool": None}

    async def worker() -> None:
        for i in numbers:
            body, headers = run_request(prefix, i)
            request = httpx.Request(
                "POST", target, headers=headers, content=body, extensions={"timeout": limits}
            )
            answer = json.loads((await send(client, request)).content)
            if answer["turn"]["status"] != "completed":
                raise RuntimeError(f"not completed: {answer}")

    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    await client.aclose()
    print(json.dumps({"wall": wall, "cpu": cpu}))


def startup(kind: str) -> float:
    code = f"import time; t = time.perf_counter(); {STARTUP[kind]}; print(time.perf_counter() - t)"
    done = subprocess.run(
        [PYTHON, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return float(done.stdout)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        kind, url, concurrency, attempts = sys.argv[2:6]
        asyncio.run(child(kind, url, int(concurrency), int(attempts)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="50,200", help="concurrencies, e.g. 50,200")
    parser.add_argument("--attempts", type=int, default=5000)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    print(machine())
    warn_if_busy()
    kinds = ("ours", "httpx")
    for kind in kinds:
        times = [startup(kind) * 1000 for _ in range(max(5, args.repeat))]
        print(f"{kind:5} start-up (import + client): {spread(times, '{:.0f}')} ms")
    with stack(args.latency) as server:
        for concurrency in (int(c) for c in args.only.split(",")):
            ideal = args.attempts * args.latency / concurrency
            results: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
            for _ in range(args.repeat):
                for kind in kinds:  # alternately, so that load drifts hit both alike
                    argv = [PYTHON, __file__, "--child", kind, server.url, str(concurrency)]
                    done = subprocess.run(
                        [*argv, str(args.attempts)], cwd=ROOT, capture_output=True, text=True
                    )
                    if done.returncode:
                        raise SystemExit(done.stderr[-2000:])
                    results[kind].append(json.loads(done.stdout))
            for kind in kinds:
                walls = [r["wall"] for r in results[kind]]
                cpus = [r["cpu"] / args.attempts * 1000 for r in results[kind]]
                rate = args.attempts / statistics.median(walls)
                share = f", ideal/wall {ideal / statistics.median(walls):.2f}" if ideal else ""
                print(
                    f"C {concurrency:3}, L {args.latency:g} s, {kind:5}: wall {spread(walls)} s "
                    f"({rate:.0f}/s{share}); CPU {spread(cpus, '{:.3f}')} ms per request"
                )


if __name__ == "__main__":
    main()
