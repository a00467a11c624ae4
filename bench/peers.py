"""passk-tui on the peer harness's work (../shared/bench-peers), measured the way it measures peers.

    python bench/peers.py                          # passk-tui only, 3 repeats per latency
    python bench/peers.py --with-peers             # also run_peers.sh (inspect-ai, promptfoo) first

The same cases (make_cases.py, seeded: 200 arithmetic cases, converted to our JSONL with
``check = {equals = target}``), the same fake OpenAI server (fake_openai.py from the
harness's venv, started as run_peers.sh starts it: error rate 0.02, wrong rate 0.2, seed
1234), a local ``openai`` agent version pointing at it, 5 attempts, --concurrency 50,
latencies 50 and 0 ms, plus a 1 case x 1 attempt start-up run at 0 ms. Each run is
measured with ``/usr/bin/time -v`` (wall, user+sys, max RSS) and exports its attempts, from
which pass@3 is computed by hand (1 - C(n-c,3)/C(n,3) with c counted from the answers)
and compared with ours. With --with-peers the peers' rows (results.tsv) are printed
beside ours. Nothing here leaves 127.0.0.1; the server is stopped by its pid.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path

from harness import PASSK, ROOT, fresh_env, load, machine, spread, warn_if_busy

from passk_tui.core.version import __version__


def peers_folder(root: Path, env: Mapping[str, str]) -> Path:
    """BENCH_PEERS, else the nearest ``shared/bench-peers`` above ``root``: a worktree sits deeper."""
    if env.get("BENCH_PEERS"):
        return Path(env["BENCH_PEERS"])
    for folder in root.parents:
        if (folder / "shared" / "bench-peers").is_dir():
            return folder / "shared" / "bench-peers"
    return root.parent / "shared" / "bench-peers"


PEERS = peers_folder(ROOT, os.environ)
VENV_PY = Path(os.environ.get("VENV", "/tmp/bench-venv")) / "bin" / "python"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# Not run_peers.sh's 8765 (never mix servers): a free port unless PORT is given.
PORT = int(os.environ.get("PORT") or _free_port())
N, EPOCHS, CONC = 200, 5, 50
ERROR_RATE, WRONG_RATE, SEED = "0.02", "0.2", "1234"


def parse_time_v(path: Path) -> dict[str, float]:
    text = path.read_text()
    wall = 0.0
    for part in re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text)[1].split(
        ":"
    ):
        wall = wall * 60 + float(part)
    user = float(re.search(r"User time \(seconds\): (\S+)", text)[1])
    system = float(re.search(r"System time \(seconds\): (\S+)", text)[1])
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)[1]) / 1024
    return {"wall": wall, "cpu": user + system, "rss": rss}


def convert(source: Path, dest: Path) -> dict[str, str]:
    """The harness's {"id", "input", "target"} lines as our cases; returns name -> target."""
    targets = {}
    with source.open() as lines, dest.open("w") as out:
        for line in lines:
            case = json.loads(line)
            targets[case["id"]] = case["target"]
            row = {"name": case["id"], "input": case["input"], "check": {"equals": case["target"]}}
            out.write(json.dumps(row) + "\n")
    return targets


class FakeServer:
    """fake_openai.py started the way run_peers.sh starts it; stopped by its pid."""

    def __init__(self, latency_ms: int, folder: Path) -> None:
        self.latency_ms = latency_ms
        self.folder = folder
        self.proc: subprocess.Popen[bytes] | None = None

    def get(self, path: str) -> dict:
        url = f"http://127.0.0.1:{PORT}{path}"
        with urllib.request.urlopen(url, timeout=2) as answer:
            return json.loads(answer.read())

    def __enter__(self) -> FakeServer:
        try:
            self.get("/v1/models")
            raise SystemExit(f"port {PORT} already serving; refusing to mix servers")
        except OSError:
            pass
        log = (self.folder / f"server-{self.latency_ms}.log").open("wb")
        self.proc = subprocess.Popen(
            [
                str(VENV_PY), str(PEERS / "fake_openai.py"), "--port", str(PORT),
                "--latency-ms", str(self.latency_ms), "--error-rate", ERROR_RATE,
                "--wrong-rate", WRONG_RATE, "--seed", SEED,
            ],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        give_up = time.monotonic() + 10
        while time.monotonic() < give_up:
            try:
                self.get("/v1/models")
                return self
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        self.__exit__()
        raise SystemExit("fake_openai.py did not start")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run_ours(folder: Path, cases: Path, attempts: int, tag: str) -> dict:
    agents = folder / "agents.toml"
    agents.write_text(
        "[agents.fake.versions.1]\n"
        f'openai = {{ base_url = "http://127.0.0.1:{PORT}/v1", model = "fake-model", '
        'api_key_env = "FAKE_API_KEY" }\n'
    )
    data = folder / f"data-{tag}"
    env = fresh_env(data)
    env["FAKE_API_KEY"] = "fake-key"
    export = folder / f"{tag}.json"
    timing = folder / f"time-{tag}.txt"
    argv = [
        "/usr/bin/time", "-v", "-o", str(timing), PASSK, "--headless", "--agent", "fake",
        "--version", "1", "--agents", str(agents), "--cases", str(cases),
        "--attempts", str(attempts), "--k", str(min(3, attempts)), "--concurrency", str(CONC),
        "--export", str(export),
    ]  # fmt: skip
    done = subprocess.run(argv, env=env, cwd=folder, capture_output=True, text=True, timeout=600)
    if done.returncode not in (0, 1):
        raise SystemExit(f"passk-tui failed ({done.returncode}): {done.stderr[-800:]}")
    return {**parse_time_v(timing), "table": done.stdout, "export": export}


def check_pass_at_3(export: Path, targets: dict[str, str], table: str) -> str:
    """Recount each case's passes from its answers and recompute pass@3 by hand."""
    document = json.loads(export.read_text())
    answers: dict[str, list] = {}
    for attempt in document["attempts"]:
        answers.setdefault(attempt["case"], []).append(attempt)
    shown = {}
    for line in table.splitlines()[2:]:
        cells = line.split()
        if len(cells) >= 6:
            shown[cells[0]] = cells[5]
    mismatches = 0
    histogram: dict[int, int] = {}
    errored = 0
    for case in document["cases"]:
        attempts = answers.get(case["name"], [])
        n = len(attempts)
        c = sum(
            1
            for a in attempts
            if a["status"] == "completed" and str(a["output"]).strip() == targets[case["name"]]
        )
        errored += sum(1 for a in attempts if a["outcome"] == "errored")
        histogram[c] = histogram.get(c, 0) + 1
        hand = Fraction(1) - Fraction(math.comb(n - c, 3), math.comb(n, 3))
        ours = Fraction(case["figures"]["exact"]["pass_at_k"])
        printed = shown.get(case["name"])
        if hand != ours or printed != f"{float(hand):.2f}":
            mismatches += 1
    return (
        f"pass@3 by hand from the answers vs ours (exact and printed): {mismatches} mismatches "
        f"of {len(document['cases'])} cases; passes per case {dict(sorted(histogram.items()))}; "
        f"errored attempts {errored}"
    )


def run_peers(out: Path) -> None:
    env = dict(os.environ, OUT=str(out))
    subprocess.run(["bash", str(PEERS / "run_peers.sh")], env=env, check=False, timeout=3600)


def peer_rows(out: Path) -> list[dict[str, str]]:
    tsv = out / "results.tsv"
    if not tsv.exists():
        return []
    lines = tsv.read_text().splitlines()
    names = lines[0].split("\t")
    return [dict(zip(names, line.split("\t"), strict=False)) for line in lines[1:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latencies", default="50,0")
    parser.add_argument("--with-peers", action="store_true", help="run run_peers.sh first")
    parser.add_argument("--peers-out", default=None, help="an OUT of an earlier run_peers.sh")
    args = parser.parse_args()
    if not VENV_PY.exists():
        raise SystemExit(f"{VENV_PY} missing: run {PEERS}/setup.sh first")
    folder = Path(tempfile.mkdtemp(prefix="passk-bench-peers-"))
    peers_out = Path(args.peers_out) if args.peers_out else folder / "peers"
    if args.with_peers:
        run_peers(peers_out)
    warn_if_busy()
    print(f"machine: {machine()}")
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(f"passk-tui {__version__} at {commit}; work files in {folder}")
    source = folder / "cases.jsonl"
    subprocess.run(
        [str(VENV_PY), str(PEERS / "make_cases.py"), "-n", str(N), "-o", str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    one = folder / "cases1.jsonl"
    subprocess.run(
        [str(VENV_PY), str(PEERS / "make_cases.py"), "-n", "1", "-o", str(one)],
        check=True, capture_output=True,
    )  # fmt: skip
    targets = convert(source, folder / "ours.jsonl")
    convert(one, folder / "ours1.jsonl")
    rows = []
    for latency in (int(x) for x in args.latencies.split(",")):
        with FakeServer(latency, folder) as server:
            if latency == 0:
                start = [
                    run_ours(folder, folder / "ours1.jsonl", 1, f"startup{i}") for i in range(3)
                ]
                rows.append(("passk-tui-startup", 0, 1, start, None))
            runs = []
            for i in range(args.repeat):
                server.get("/stats/reset-peak")
                runs.append(run_ours(folder, folder / "ours.jsonl", EPOCHS, f"L{latency}-{i}"))
                runs[-1]["peak"] = server.get("/stats").get("max_in_flight")
            check = check_pass_at_3(runs[-1]["export"], targets, runs[-1]["table"])
            rows.append(("passk-tui", latency, N * EPOCHS, runs, check))
    print(f"\n{'tool':18} {'lat_ms':>6} {'attempts':>8} {'wall_s':>18} {'cpu_s':>18} "
          f"{'ms CPU/att':>10} {'rss_mb':>14} {'ideal_s':>7} {'ideal/wall':>10}")  # fmt: skip
    for tool, latency, attempts, runs, check in rows:
        ideal = attempts * latency / 1000 / CONC
        walls = [r["wall"] for r in runs]
        ratio = spread([ideal / w for w in walls]) if ideal else "-"
        print(
            f"{tool:18} {latency:>6} {attempts:>8} {spread(walls):>18} "
            f"{spread([r['cpu'] for r in runs]):>18} "
            f"{statistics.median(1000 * r['cpu'] / attempts for r in runs):>10.3f} "
            f"{spread([r['rss'] for r in runs], '{:.0f}'):>14} {ideal:>7.2f} {ratio:>10}"
            + (f"  peak {runs[-1].get('peak')}" if latency else "")
        )
        if check:
            print(f"    {check}")
    for row in peer_rows(peers_out):
        attempts = int(row["attempts"])
        print(
            f"{row['tool']:18} {float(row['latency_ms']):>6g} {attempts:>8} {row['wall_s']:>18} "
            f"{row['cpu_s']:>18} {float(row['cpu_ms_per_attempt']):>10.3f} {row['rss_mb']:>14} "
            f"{float(row['ideal_s']):>7.2f} {row['ratio']:>10}  rc {row['rc']} {row['accuracy']}"
        )
    print(f"\nload at the end: {load()}")
    if (peers_out / "versions.txt").exists():
        print("\npeer versions:\n" + (peers_out / "versions.txt").read_text())


if __name__ == "__main__":
    sys.exit(main())
