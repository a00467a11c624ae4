"""How fast ``passk-tui import inspect`` reads a large log, beside inspect_ai's own reader.

Builds (once) a log of 10,000 samples x 5 epochs from the fixture run: its header and its
samples' JSON, each sample written again under a new id, zstd-compressed by inspect_ai's own
zip settings (``inspect_ai._util.zipfile``: going through its pydantic models took over half an
hour on a loaded machine), then times, each in a fresh process: ``passk-tui import inspect --no-transcripts``
(the outcomes, from the summaries), ``passk-tui import inspect`` (each sample's
conversation too, read from its member by a second process) and inspect_ai's ``read_eval_log``
of the same file. Wall seconds, CPU seconds (both processes), the largest process's peak RSS
(``ru_maxrss``) and the peaks of the two processes' RSS and PSS summed (sampled from /proc).

    pip install inspect-ai          # only the bench needs it, to write the log and to compare
    python bench/imports/inspect_speed.py [--samples 10000] [--epochs 5] [--log /tmp/big.eval]
    python bench/imports/inspect_speed.py --tools     # every sample calling tools
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
FIXTURES = ROOT / "tests" / "fixtures" / "imports"
#: The run whose samples the big log repeats: plain answers, or (``--tools``) every sample
#: calling two tools, one of which fails.
FIXTURE = FIXTURES / "inspect-run1.eval"
TOOLS_FIXTURE = FIXTURES / "inspect-tools.eval"


def build(
    path: Path, samples: int, epochs: int, with_summaries: bool = True, fixture: Path = FIXTURE
) -> None:
    """A log of ``samples`` x ``epochs`` made of ``fixture``'s samples, as inspect_ai zips one."""
    import json
    import zipfile

    from inspect_ai._util.zipfile import zipfile_compress_kwargs

    from passk_tui.imports.zip_members import Archive

    with Archive(fixture) as archive:
        names = sorted(
            n for n in archive.names() if n.startswith("samples/") and "tool-error" not in n
        )
        templates = [json.loads(archive.read(n)) for n in names]
        by_sample = {(s["id"], s["epoch"]): s for s in json.loads(archive.read("summaries.json"))}
        summaries = [by_sample[t["id"], t["epoch"]] for t in templates]  # each its sample's
        header = json.loads(archive.read("header.json"))
    ids = [f"s{n:05d}" for n in range(samples)]
    header["eval"]["dataset"].update(samples=samples, sample_ids=ids)
    made = []
    with zipfile.ZipFile(path, "w", **zipfile_compress_kwargs) as out:
        out.writestr("_journal/start.json", json.dumps({"version": 2, "eval": header["eval"]}))
        for n, sample_id in enumerate(ids):
            for epoch in range(1, epochs + 1):
                pick = (n * epochs + epoch) % len(templates)
                sample = dict(templates[pick], id=sample_id, epoch=epoch)
                out.writestr(f"samples/{sample_id}_epoch_{epoch}.json", json.dumps(sample))
                made.append(dict(summaries[pick], id=sample_id, epoch=epoch))
        if with_summaries:  # inspect writes them at the end: every sample's scores, in one list
            out.writestr("summaries.json", json.dumps(made))
        out.writestr("header.json", json.dumps(header))


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, float, float]:
    """Wall seconds, peak RSS in MB, CPU seconds (user + system, its child process's included),
    the peak of the RSS summed over the process and its children, and the peak of their PSS
    summed, in MB, of ``argv`` run to its end: on a shared machine the CPU seconds say more
    than the wall. The sums are sampled from /proc every 10 ms. The RSS sum counts the pages
    a forked child shares with its parent twice (an upper bound of what the two hold
    together); the PSS sum splits each shared page between them (what they hold)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before, cpu_before = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    summed = proportional = 0
    while process.poll() is None:
        rss, pss = _tree_memory(process.pid)
        summed, proportional = max(summed, rss), max(proportional, pss)
        time.sleep(0.01)
    stderr = process.stderr.read() if process.stderr else ""
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode not in (0, 1, 4):
        sys.exit(f"{argv[:4]} failed ({process.returncode}): {stderr[-500:]}")
    # ru_maxrss of children is the largest child so far: run the smaller one first.
    cpu = usage.ru_utime + usage.ru_stime - cpu_before
    return wall, max(usage.ru_maxrss, before) / 1024, cpu, summed / 1024, proportional / 1024


def _tree_memory(pid: int) -> tuple[int, int]:
    """The resident and the proportional KiB of ``pid`` and its children (0 for a process
    already gone)."""
    rss = pss = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            rollup = Path(f"/proc/{current}/smaps_rollup").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text()
        except OSError:
            continue
        for line in rollup.splitlines():
            if line.startswith("Rss:"):
                rss += int(line.split()[1])
            elif line.startswith("Pss:"):
                pss += int(line.split()[1])
        pending.extend(int(word) for word in children.split())
    return rss, pss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--log", type=Path, default=Path(tempfile.gettempdir()) / "passk-big.eval")
    parser.add_argument(
        "--no-summaries",
        action="store_true",
        help="a log without summaries.json: every sample read",
    )
    parser.add_argument("--no-theirs", action="store_true", help="skip inspect_ai's own reader")
    parser.add_argument(
        "--tools",
        action="store_true",
        help="every sample calls tools (its log: passk-big-tools.eval unless --log)",
    )
    args = parser.parse_args()
    if args.tools and args.log == parser.get_default("log"):
        args.log = args.log.with_name("passk-big-tools.eval")
    if not args.log.exists():
        started = time.perf_counter()
        fixture = TOOLS_FIXTURE if args.tools else FIXTURE
        build(args.log, args.samples, args.epochs, not args.no_summaries, fixture)
        print(
            f"built {args.log} ({args.log.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f} s"
        )
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "PASSK_DATA_DIR": data, "PYTHONPATH": str(ROOT)}
        # As an installed package runs: every module it loads compiled once, not at every
        # start. A shell with PYTHONDONTWRITEBYTECODE compiles them per run (0.2-0.4 s of
        # ours); a pycache prefix alone compiles the standard library's and the
        # dependencies' too, in the first run timed (0.8 s): one untimed run of each command
        # first writes them all, and brings the log into the page cache.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(data) / "pycache")
        for extra in (["--no-transcripts"], []):  # outcomes alone, then with the conversations
            command = ["import", "inspect", *extra, str(args.log)]
            warm = {**env, "PASSK_DATA_DIR": tempfile.mkdtemp(dir=data)}
            subprocess.run(
                [sys.executable, "-m", "passk_tui", *command], env=warm, capture_output=True
            )
            ours = timed([sys.executable, "-m", "passk_tui", *command], env)
            print(
                f"passk-tui {' '.join(command[:-1])}: {ours[0]:.2f} s, CPU {ours[2]:.2f} s,"
                f" peak RSS {ours[1]:.0f} MB (with its child, summed: RSS {ours[3]:.0f} MB,"
                f" PSS {ours[4]:.0f} MB)"
            )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if args.no_theirs:
        return
    reader = "from inspect_ai.log import read_eval_log; import sys; read_eval_log(sys.argv[1])"
    theirs = timed([sys.executable, "-c", reader, str(args.log)], dict(os.environ))
    print(
        f"inspect_ai read_eval_log: {theirs[0]:.2f} s, CPU {theirs[2]:.2f} s, peak RSS {theirs[1]:.0f} MB"
    )


if __name__ == "__main__":
    main()
