"""In a real browser: Debian's chromium, headless, driven by selenium through its chromedriver.

The report is opened from disk: its DOM must hold every case with its figures, and no
request may leave the page. ``passk-tui serve`` is started on a free loopback port: the
page must show the app's Configure screen, and pressing d must run the demo to its
results. The served terminal draws on a canvas (xterm.js), so what it shows is read from
the bytes the page's websocket received, as xterm.js got them (escape codes removed).
Skipped only where chromium is not installed and not in CI (.ci/run installs it).
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from passk_tui.core.stats.rates.intervals import case_intervals
from passk_tui.core.text.figure_text import interval_text, two_decimals
from passk_tui.reports.compare_export import export_comparison
from passk_tui.reports.export import export
from passk_tui.reports.html_page import BLOCK
from passk_tui.reports.report import build_report
from passk_tui.store import Store
from passk_tui.store.comparison import load_compared
from tests.support import ROOT
from tests.support.chromium import CHROMEDRIVER, CHROMIUM, start_chromium
from tests.support.compare import BASELINE, CANDIDATE, store_evaluation
from tests.support.reports import awkward_evaluation
from tests.support.web import _listening, free_port, wait_for


def _require_browser() -> None:
    missing = [
        name for name, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)) if not path
    ]
    if not missing:
        return
    reason = f"{' and '.join(missing)} not installed (apt-get install -y chromium chromium-driver)"
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests: {reason}")
    pytest.skip(reason)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator:
    """A fresh headless chromium (its own user-data-dir) that logs every network event."""
    _require_browser()
    pytest.importorskip("selenium")
    driver = start_chromium(tmp_path / "chromium", log_network=True)
    try:
        yield driver
    finally:
        driver.quit()


def network_events(driver, seen: list[dict]) -> list[dict]:
    """Every DevTools network event logged so far (the log drains on read: kept in ``seen``)."""
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"].startswith("Network."):
            seen.append(message)
    return seen


def requests_of(events: list[dict], document: str) -> list[str]:
    """The URLs the page at ``document`` asked for (the browser's own start page left out)."""
    return [
        e["params"]["request"]["url"]
        for e in events
        if e["method"] == "Network.requestWillBeSent" and e["params"].get("documentURL") == document
    ]


# -- the report ------------------------------------------------------------------------------

ROWS_SCRIPT = """
return [...document.querySelectorAll('#figures tbody tr')].map(tr => ({
  id: tr.id,
  cells: [...tr.children].map(td => td.innerText.trim()),
  grid: tr.querySelector('.grid').textContent,
}));
"""

CASES_SCRIPT = """
return [...document.querySelectorAll('details.case')].map(d => ({
  id: d.id,
  name: d.querySelector('summary .name').textContent,
  open: d.open,
  attempts: [...d.querySelectorAll('pre.attempts')]
    .map(pre => (pre.textContent.match(/^ *#\\d+ /gm) || []).length)
    .reduce((a, b) => a + b, 0),
}));
"""


def test_the_report_in_chromium_shows_every_case_and_fetches_nothing(browser, tmp_path) -> None:
    stored = awkward_evaluation()
    path = export(stored, tmp_path / "report.html")
    url = path.as_uri()
    browser.get(url)
    rows = browser.execute_script(ROWS_SCRIPT)
    figures = stored.figures()
    method = build_report(stored).intervals.method  # a case cut short: anytime-valid
    assert [r["id"] for r in rows] == [f"row-{i}" for i in range(len(figures))]
    for row, f in zip(rows, figures, strict=True):
        name, passed, wrong, errored, p1, pk, phk, all_passed, gate, grid = row["cells"]
        assert name == f.name  # the hostile name arrives as text, not markup
        assert (passed, wrong, errored) == (f"{f.passed}/{f.n}", str(f.wrong), str(f.errored))
        iv = case_intervals(f.passed, f.n, 3, method=method, order=f.order)
        assert p1.split() == [two_decimals(f.pass_at_1), interval_text(iv.pass_at_1)]
        if f.n < 3:
            assert (pk, phk, all_passed, gate) == ("-", "-", "-", "-")
        else:
            assert pk.split() == [two_decimals(f.pass_at_k), interval_text(iv.pass_at_k)]
            assert phk.split() == [two_decimals(f.pass_hat_k), interval_text(iv.pass_hat_k)]
        assert len(row["grid"]) == 5 and grid == row["grid"]
    cases = browser.execute_script(CASES_SCRIPT)
    assert [(c["name"], c["attempts"], c["open"]) for c in cases] == [
        (f.name, f.n, False) for f in figures
    ]
    assert browser.execute_script("return document.scripts.length") == 0
    assert browser.execute_script("return document.querySelectorAll('img').length") == 0
    assert requests_of(network_events(browser, []), url) == [url]


COLUMNS_SCRIPT = """
const rows = [...document.querySelectorAll('#figures tr')];
return [rows.length, ...new Set(rows.map(
  tr => [...tr.children].map(c => Math.round(c.getBoundingClientRect().left)).join(',')))];
"""


def test_the_rows_blocks_line_up_as_one_table_under_its_head(browser, tmp_path) -> None:
    from dataclasses import replace

    from tests.support.reports import evaluation

    stored = evaluation(2 * BLOCK + 3, 30)
    # A long name in the last block only: a block laid out on its own would widen its column.
    long = replace(stored.cases[-1], name="a-case-whose-name-is-much-longer-than-the-others-" * 2)
    stored = replace(stored, cases=[*stored.cases[:-1], long])
    path = export(stored, tmp_path / "report.html")
    browser.get(path.as_uri())
    # Every row's cells start where the head's do, in each block (measuring draws them all).
    count, *lefts = browser.execute_script(COLUMNS_SCRIPT)
    assert count == 2 * BLOCK + 3 + 1 and len(lefts) == 1, lefts
    # Scrolled into the second block, the head stays on screen, stuck to the top.
    browser.execute_script(f"document.getElementById('row-{BLOCK + 1}').scrollIntoView()")
    head = "return document.querySelector('#figures .head').getBoundingClientRect().top"
    assert browser.execute_script(head) == 0


COMPARE_SCRIPT = """
return [...document.querySelectorAll('#comparison tbody tr')].map(tr => ({
  verdict: tr.className,
  cells: [...tr.children].map(td => td.innerText.trim().split(/\\s+/)[0]),
  grids: [...tr.querySelectorAll('.grid')].map(g => g.textContent.length),
}));
"""


def test_the_compare_report_in_chromium_regressions_first_and_fetches_nothing(
    browser, tmp_path
) -> None:
    store_evaluation("ev_base01", BASELINE, created=1000.0, version=1)
    store_evaluation("ev_cand02", CANDIDATE, created=2000.0, version=2)
    with Store.open() as store:
        compared = load_compared(store, "last~1", "last")
    url = export_comparison(compared, tmp_path / "compare.html").as_uri()
    browser.get(url)
    rows = browser.execute_script(COMPARE_SCRIPT)
    assert [(r["cells"][0], r["verdict"]) for r in rows] == [
        ("summary", "regressed"),
        ("arithmetic", "improved"),
        ("json-shape", "unclear"),
    ]
    assert [r["cells"][1:3] + r["cells"][4:6] for r in rows] == [
        ["10/10", "0", "3/10", "6"],
        ["2/10", "0", "9/10", "0"],
        ["8/10", "1", "7/10", "0"],
    ]
    assert all(r["grids"] == [10, 10] for r in rows)
    mark = "return document.querySelector('#comparison .mark').innerText"
    assert browser.execute_script(mark) == "mostly errored"
    assert browser.execute_script("return document.querySelectorAll('details[open]').length") == 0
    assert browser.execute_script("return document.scripts.length") == 0
    assert requests_of(network_events(browser, []), url) == [url]


# -- serve -----------------------------------------------------------------------------------

#: Escape sequences in the app's output: CSI, OSC, DCS/APC strings, and two-byte escapes.
ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P_^X].*?\x1b\\|\x1b.", re.S
)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """``passk-tui serve`` on a free loopback port (stopped by its pid after the test)."""
    _require_browser()
    pytest.importorskip("textual_serve")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PASSK_KEY", None)
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "passk_tui", "serve", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    try:
        wait_for(lambda: _listening(port) or process.poll() is not None, 30, "the server to listen")
        assert process.poll() is None, (tmp_path / "serve.log").read_text()
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError("serve did not stop on SIGTERM with a tab open") from None
        finally:
            log.close()


class Screen:
    """What the served app has drawn so far: the websocket's bytes, as the page received them."""

    def __init__(self, driver) -> None:
        self.driver = driver
        self.events: list[dict] = []

    def text(self) -> str:
        frames = []
        for e in network_events(self.driver, self.events):
            if e["method"] != "Network.webSocketFrameReceived":
                continue
            response = e["params"]["response"]
            data = response["payloadData"]
            frames.append(
                base64.b64decode(data).decode("utf-8", "replace")
                if response["opcode"] == 2
                else data
            )
        return ANSI.sub("", "".join(frames))

    def shows(self, *texts: str) -> bool:
        seen = self.text()
        return all(t in seen for t in texts)


def test_serve_shows_configure_and_its_demo_button_runs_the_demo(browser, served, tmp_path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(served)
    screen = Screen(browser)
    wait_for(lambda: screen.shows("configure an evaluation", "Run the demo"), 60, "Configure")
    assert "-first-byte" in browser.find_element(By.TAG_NAME, "body").get_attribute("class")
    browser.save_screenshot(str(tmp_path / "configure.png"))
    # Focus is in the Agent field; the demo's button is one Shift+Tab before it.
    terminal = browser.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
    terminal.send_keys(Keys.SHIFT + Keys.TAB + Keys.NULL, Keys.ENTER)
    wait_for(lambda: screen.shows("Done: 25 of 25 attempts"), 120, "the demo's results")
    assert screen.shows("arithmetic", "weather-tool", "all passed", "pass@3")
    browser.save_screenshot(str(tmp_path / "results.png"))
    # The page and the terminal came from the server alone (no web font from elsewhere).
    asked = requests_of(screen.events, served)
    assert served in asked
    assert all(u.startswith((served, "data:")) for u in asked), asked


#: Another site's page: it tries to open the served app's websocket under each name that
#: reaches it, and records what happened to each.
ATTACK_PAGE = """<!doctype html><title>another site</title><script>
window.outcomes = {};
for (const url of %s) {
  const ws = new WebSocket(url);
  ws.onopen = () => { outcomes[url] = "open"; ws.send("\\x1b[?1049l"); };
  ws.onclose = (event) => { outcomes[url] = outcomes[url] || "closed " + event.code; };
}
</script>"""


@pytest.fixture
def attack_site() -> Iterator[Callable[[str], str]]:
    """A web server on another loopback port; ``attack_site(page)`` serves ``page`` there and
    gives its address under a name of its own (``*.localhost`` reaches 127.0.0.1 without DNS,
    as a rebound hostname does)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    page = {"html": ""}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = page["html"].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=server.serve_forever, daemon=True).start()

    def serve_page(html: str) -> str:
        page["html"] = html
        return f"http://attacker.localhost:{server.server_address[1]}/"

    try:
        yield serve_page
    finally:
        server.shutdown()
        server.server_close()


def tab_processes() -> list[int]:
    """The app processes serve started for tabs: this test's grandchildren running the app."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            pid, rest = stat.read_text().split(" ", 1)
        except OSError:
            continue
        parents[int(pid)] = int(rest.rpartition(")")[2].split()[1])
    children = {pid for pid, parent in parents.items() if parent == os.getpid()}
    tabs = []
    for pid, parent in parents.items():
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if parent in children and b"passk_tui.cli.serve" in command:
            tabs.append(pid)
    return tabs


def test_another_sites_page_cannot_open_the_served_app(browser, served, attack_site) -> None:
    port = served.rstrip("/").rpartition(":")[2]
    sockets = [f"ws://{name}:{port}/ws" for name in ("127.0.0.1", "localhost", "evil.localhost")]
    browser.get(attack_site(ATTACK_PAGE % json.dumps(sockets)))
    wait_for(
        lambda: len(browser.execute_script("return window.outcomes")) == len(sockets),
        30,
        "every websocket to open or close",
    )
    outcomes = browser.execute_script("return window.outcomes")
    assert outcomes == {url: "closed 1006" for url in sockets}  # refused in the handshake
    assert tab_processes() == []
    # A hostname rebound to 127.0.0.1: the page itself is refused, so no script of it runs.
    browser.get(f"http://evil.localhost:{port}/")
    assert "refused" in browser.find_element("tag name", "body").text
    assert browser.execute_script("return document.scripts.length") == 0
    assert tab_processes() == []


#: Another site's page framing the served app under each name that reaches it.
FRAMING_PAGE = """<!doctype html><title>another site</title>%s"""


def frame_fates(events: list[dict], urls: list[str]) -> dict[str, str]:
    """What became of each framed page: "blocked" by the browser for its answer's headers,
    "loaded" when its document came (its scripts then run), or nothing yet."""
    asked = {
        e["params"]["requestId"]: e["params"]["request"]["url"]
        for e in events
        if e["method"] == "Network.requestWillBeSent" and e["params"].get("type") == "Document"
    }
    fates: dict[str, str] = {}
    for e in events:
        url = asked.get(e["params"].get("requestId", ""))
        if url not in urls:
            continue
        if e["method"] == "Network.loadingFailed":
            blocked = e["params"]["errorText"] == "net::ERR_BLOCKED_BY_RESPONSE"
            fates[url] = "blocked" if blocked else e["params"]["errorText"]
        elif e["method"] == "Network.loadingFinished":
            fates.setdefault(url, "loaded")
    return fates


def test_another_sites_page_cannot_frame_the_served_app(browser, served, attack_site) -> None:
    port = served.rstrip("/").rpartition(":")[2]
    framed = [f"http://{name}:{port}/" for name in ("127.0.0.1", "localhost")]
    frames = "".join(f'<iframe src="{url}" width="800" height="400"></iframe>' for url in framed)
    events: list[dict] = []
    browser.get(attack_site(FRAMING_PAGE % frames))
    wait_for(
        lambda: len(frame_fates(network_events(browser, events), framed)) == len(framed),
        60,
        "each frame to load or be blocked",
    )
    assert frame_fates(events, framed) == dict.fromkeys(framed, "blocked")
    assert not [e for e in events if e["method"] == "Network.webSocketCreated"]
    assert tab_processes() == []
    # Unframed, the app's page is the app as before.
    screen = Screen(browser)
    browser.get(served)
    wait_for(lambda: screen.shows("configure an evaluation"), 60, "Configure, unframed")
