"""`pideck serve` in the system's headless Chromium, driven by Playwright: the page loads, a
prompt streams the demo model's answer, an extension's dialog is answered, a page closed
mid-stream ends its pideck and pi and leaves a resumable session, and requests without the
printed token get 403. Also: a port in use, and the warning of a --host other than loopback.

What the page shows is read from the terminal output its websocket receives (xterm.js draws
on a canvas), with the escape sequences taken out."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from tests.load import out_of_time

from widgets.screens.on_purpose import SETTLE

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"  # the system's package (.ci/run installs it); Playwright downloads none
EXTENSION = ROOT / "tests" / "extensions" / "ui_everything.ts"
ESCAPES = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-B]|\x1b[=>78]")


def wait(condition: Callable[[], Any], what: str, timeout: float = 60.0, detail: Callable[[], str] = str) -> Any:
    started = time.monotonic()
    while not (value := condition()):
        if out_of_time(started, timeout):
            raise AssertionError(f"timed out waiting for {what}{detail()}")
        time.sleep(0.1)
    return value


class Served:
    """`pideck serve --port 0 ARGS` in `workdir`; every process it starts carries `mark` in
    its environment, so the ones left over can be found."""

    def __init__(self, workdir: Path, *args: str) -> None:
        self.mark = uuid.uuid4().hex
        self.log_path = workdir / "serve.log"
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "app", "serve", "--port", "0", *args],
                cwd=workdir, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, "PIDECK_TEST_MARK": self.mark, "PYTHONPATH": str(ROOT)},
            )
        found = wait(lambda: re.search(r"serving on (http://\S+)", self.log()) or self.process.poll() is not None,
                     "the URL", detail=lambda: f"; log:\n{self.log()}")
        assert isinstance(found, re.Match), f"pideck serve ended: {self.log()}"
        self.url = found.group(1)
        self.origin = self.url.split("/?", 1)[0]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def processes(self) -> list[int]:
        """Every process started under this server, the server too."""
        found = []
        for environ in Path("/proc").glob("[0-9]*/environ"):
            try:
                if f"PIDECK_TEST_MARK={self.mark}".encode() in environ.read_bytes().split(b"\0"):
                    found.append(int(environ.parent.name))
            except OSError:
                continue
        return found

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        wait(lambda: not self.processes(), "every process of the server to end", timeout=30)


class Screen:
    """A page of the server and what its terminal received."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.received: list[bytes] = []
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, frame: str | bytes) -> None:
        self.received.append(frame if isinstance(frame, bytes) else frame.encode())

    def text(self, since: int = 0) -> str:
        """What the terminal received (from the `since`-th frame on), without escape sequences."""
        return ESCAPES.sub("", b"".join(self.received[since:]).decode("utf-8", "replace"))

    def wait_for(self, *texts: str, since: int = 0, timeout: float = 60.0) -> None:
        """Until one of `texts` has been received (after the `since`-th frame)."""
        started = time.monotonic()
        while not any(text in self.text(since) for text in texts):
            if out_of_time(started, timeout):
                raise AssertionError(f"timed out waiting for {texts} on the page; it received:\n{self.text()[-3000:]}")
            self.page.wait_for_timeout(100)  # lets Playwright deliver the frames meanwhile

    def type(self, text: str, then: str = "Enter") -> None:
        self.page.keyboard.type(text)
        self.page.keyboard.press(then)

    def answer(self, key: str, *texts: str) -> None:
        """Press `key` to answer the question shown as a person does, once it is read and not
        right after the key before it; again if the question says it was ignored (pideck
        takes an answer only from a key pressed on purpose, widgets/screens/on_purpose.py),
        until one of `texts` is received."""
        for _ in range(2):
            mark = len(self.received)
            self.page.wait_for_timeout(SETTLE * 1000)  # (the question read)
            self.page.keyboard.press(key)
            self.wait_for(*texts, "was ignored", since=mark)
            if any(text in self.text(mark) for text in texts):
                return
        raise AssertionError(f"{key} pressed twice on its own answered nothing; the page received:\n{self.text()[-3000:]}")


@pytest.fixture(scope="module")
def browser_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The home folder Chromium is given: its crash reports and settings go there."""
    return tmp_path_factory.mktemp("browser-home")


@pytest.fixture(scope="module")
def browser(browser_home: Path) -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)"
    with sync_playwright() as playwright:
        home = {"HOME": str(browser_home), "XDG_CONFIG_HOME": str(browser_home / ".config"),
                "XDG_CACHE_HOME": str(browser_home / ".cache")}
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], timeout=120_000,
                                             env={**os.environ, **home})
        yield browser
        browser.close()


def test_the_browser_keeps_its_files_in_the_tests_folder(browser: Browser, browser_home: Path) -> None:
    """Chromium writes its crash reports' settings at its start, in the home it is given:
    the tests', never the user's (~/.config/chromium, ~/.cache)."""
    assert (browser_home / ".config" / "chromium" / "Crash Reports").is_dir(), list(browser_home.rglob("*"))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    workdir = tmp_path_factory.mktemp("served")
    (workdir / "sessions").mkdir()
    server = Served(workdir, "--demo", "--", "-e", str(EXTENSION), "--session-dir", str(workdir / "sessions"))
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.pi  # each page's pideck runs the real pi
@pytest.mark.timeout(400)
def test_a_page_streams_an_answer_answers_a_dialog_and_its_close_ends_pideck(browser: Browser, served: Served) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    screen = Screen(context.new_page())
    response = screen.page.goto(served.url, timeout=60_000)
    assert response is not None and response.status == 200
    screen.page.wait_for_selector("body.-first-byte", timeout=60_000)  # the app's first bytes arrived
    screen.wait_for("● ready")
    assert screen.page.evaluate("getComputedStyle(document.getElementById('keys')).display") == "none", \
        "no key bar with a keyboard and a mouse"
    screen.page.click("#terminal")

    screen.type("hello from the browser")
    screen.wait_for("Here is what I found", timeout=120.0)

    screen.type("/ui-dialogs")
    screen.wait_for("Pick a colour")
    screen.page.keyboard.press("ArrowDown")
    screen.answer("Enter", "Proceed?")
    screen.wait_for('select="green"')  # the extension's report of the choice made in the page
    screen.wait_for("Proceed?")
    screen.page.keyboard.press("Escape")
    screen.wait_for("confirm=false")
    screen.wait_for("Your name")
    screen.page.keyboard.press("Escape")
    screen.wait_for("Edit the text")
    mark = len(screen.received)
    screen.page.keyboard.press("Escape")
    # its report, or the count of those it hides; typing before a lone Esc is read would make it Alt
    screen.wait_for("editor=", "more notification", since=mark)

    pages = served.processes()
    assert len(pages) >= 3, f"the server, the page's pideck and its pi: {pages}"
    screen.type("a second question, cut short")
    screen.wait_for("cut short\u201d")  # the model thinks about it: the stream has started
    context.close()  # the browser goes away mid-stream

    wait(lambda: served.processes() == [served.process.pid], "the page's pideck and pi to end", timeout=30,
         detail=lambda: f"; left: {served.processes()}; log:\n{served.log()}")
    # the server says so once the page's pideck has been waited for, which may be just after it is gone
    wait(lambda: "a page from 127.0.0.1 closed; its pideck has ended" in served.log(),
         "the server's line for the closed page", timeout=30, detail=lambda: f"; log:\n{served.log()}")
    log = served.log()
    resume = re.search(r"to resume it: (\S*pideck .*--session (\S+))", log)  # (the path of the pideck run)
    assert resume is not None, log
    files = list((served.log_path.parent / "sessions").rglob(f"*{resume.group(2)}*.jsonl"))
    assert len(files) == 1, files
    assert "hello from the browser" in files[0].read_text() and "a second question" in files[0].read_text()


@pytest.mark.pi
def test_stopping_the_server_ends_the_pideck_of_an_open_page(browser: Browser, tmp_path: Path) -> None:
    server = Served(tmp_path, "--demo")
    try:
        screen = Screen(browser.new_page())
        screen.page.goto(server.url, timeout=60_000)
        screen.wait_for("● ready")
        assert len(server.processes()) >= 3, "the server, the page's pideck and its pi"
        server.process.send_signal(signal.SIGINT)
        server.process.wait(10)  # not held until the websocket's heartbeat notices (15 s)
        wait(lambda: not server.processes(), "the page's pideck and pi to end", timeout=10,
             detail=lambda: f"; left: {server.processes()}; log:\n{server.log()}")
        screen.page.close()
    finally:
        server.stop()


def status(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_requests_without_the_token_get_403(browser: Browser, served: Served) -> None:
    page = browser.new_page()
    try:
        for url in (f"{served.origin}/?token=wrong", f"{served.origin}/"):
            response = page.goto(url, timeout=60_000)
            assert response is not None and response.status == 403, url
            assert "wrong or missing token" in page.content()
    finally:
        page.close()
    token = served.url.split("token=", 1)[1]
    cookie = f"pideck_token_{served.origin.rsplit(':', 1)[1]}={token}"
    assert status(f"{served.origin}/static/js/textual.js") == 403
    assert status(f"{served.origin}/static/js/textual.js?token={token}") == 200
    assert status(f"{served.origin}/static/js/textual.js", {"Cookie": cookie}) == 200
    assert status(f"{served.origin}/ws") == 403
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Cookie": cookie}
    assert status(f"{served.origin}/ws", {**upgrade, "Origin": "http://evil.example"}) == 403, "another site's page"


def test_a_port_in_use_is_named(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "app", "serve", "--demo", "--port", str(port)],
                                cwd=tmp_path, capture_output=True, text=True, timeout=60,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 1
    assert f"pideck: port {port} on 127.0.0.1 is in use; choose another with --port" in result.stderr


def test_listening_beyond_this_machine_warns(tmp_path: Path) -> None:
    server = Served(tmp_path, "--host", "0.0.0.0", "--demo")
    try:
        assert "anyone who can reach this port and has the URL can run commands as you" in server.log()
        assert server.url.startswith(f"http://{socket.gethostname()}:")
    finally:
        server.stop()


@pytest.mark.pi
@pytest.mark.timeout(400)
def test_a_page_attaches_to_a_run_a_terminal_started_and_answers_its_dialog(
        browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal's `pideck --hold` streams a reply; `pideck serve --attach` shows the run in a
    narrow page (a phone's width), which answers the extension's dialog: the terminal sees the
    answer and its own dialog closes."""
    from tests.pi_harness import HarnessPi, PiHarness, TmuxPideck

    from app.scripted_model.server import Reply
    from protocol.hold.ask import ask

    runtime = Path(tempfile.mkdtemp(prefix="pideck-test-run-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    harness = PiHarness(tmp_path / "pi")
    harness.model.queue(Reply(text=" ".join(f"far{n}" for n in range(1, 200)), chunk_chars=6, delay=0.03))

    terminal = HarnessPi(harness, tmp_path)
    args = ("--hold", *terminal.args(), "-e", str(EXTENSION))
    server = None
    try:
        with TmuxPideck(terminal, args=args, cwd=tmp_path,  # type: ignore[arg-type]
                        env=terminal.env() | {"XDG_RUNTIME_DIR": str(runtime)}) as term:
            term.wait(lambda: "● ready" in term.screen(), "the terminal's pideck ready", timeout=60)
            term.send("stream from the terminal")
            term.wait(lambda: "far3 " in term.screen(), "the reply streaming in the terminal", timeout=30)
            server = Served(tmp_path, "--attach")
            context = browser.new_context(viewport={"width": 400, "height": 800})  # a phone's
            screen = Screen(context.new_page())
            screen.page.goto(server.url, timeout=60_000)
            screen.wait_for("far150")  # the run the terminal started, as it streams
            screen.wait_for("far199")
            screen.page.click("#terminal")
            term.wait(lambda: "● ready" in term.screen(), "the run over in the terminal", timeout=30)
            term.send("/ui-dialogs")
            screen.wait_for("Pick a colour")
            term.wait(lambda: "Pick a colour" in term.screen(), "the dialog in the terminal too")
            screen.page.keyboard.press("ArrowDown")
            screen.answer("Enter", "Proceed?")
            screen.wait_for('select="green"')
            term.wait(lambda: "Proceed?" in term.screen() and "Pick a colour" not in term.screen(),
                      "the page's answer in the terminal: its dialog closed, the next one open")
            for title in ("Proceed?", "Your name", "Edit the text"):  # the page dismisses the rest
                screen.wait_for(title)
                screen.page.keyboard.press("Escape")
            # the terminal's toasts waited while a question was open (nothing covers one); the
            # first is folded into "+1 more" by the three after it, and its list has it
            term.wait(lambda: "editor=<undefined>" in term.screen() and "Edit the text" not in term.screen(),
                      "the terminal's dialogs closed, their toasts shown")
            term.keys("F8")
            term.wait(lambda: 'select="green"' in term.screen(), "the page's answer in the terminal's notifications")
            context.close()
    finally:
        if server is not None:
            server.stop()
        ask({"op": "stop", "all": True}, {"XDG_RUNTIME_DIR": str(runtime)})
        harness.model.stop()


@contextlib.contextmanager
def held_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, words: int, delay: float) -> Iterator[dict[str, str]]:
    """A terminal's `pideck --hold` over the real pi streams a reply of `words` words, then
    detaches (Ctrl+\\): its held pi goes on with no window. Yields the holder's environment;
    every held pi is stopped after."""
    from tests.pi_harness import HarnessPi, PiHarness, TmuxPideck

    from app.scripted_model.server import Reply
    from protocol.hold.ask import ask, held

    runtime = Path(tempfile.mkdtemp(prefix="pideck-test-run-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    env = {"XDG_RUNTIME_DIR": str(runtime)}
    harness = PiHarness(tmp_path / "pi")
    harness.model.queue(Reply(text=" ".join(f"far{n}" for n in range(1, words + 1)), chunk_chars=6, delay=delay))
    terminal = HarnessPi(harness, tmp_path)
    try:
        with TmuxPideck(terminal, args=("--hold", *terminal.args()), cwd=tmp_path,  # type: ignore[arg-type]
                        env=terminal.env() | env) as term:
            term.wait(lambda: "● ready" in term.screen(), "the terminal's pideck ready", timeout=60)
            term.send("stream from the terminal")
            term.wait(lambda: "far3 " in term.screen(), "the reply streaming in the terminal", timeout=30)
            term.keys("C-\\")
            wait(lambda: (pis := held(env)) and not pis[0].get("windows"), "the terminal detached")
        yield env
    finally:
        ask({"op": "stop", "all": True}, env)
        harness.model.stop()


def page_pideck(server: Served, before: set[int]) -> int:
    """The pideck a page started (its pid), once there."""
    def started() -> int | None:
        return next((pid for pid in set(server.processes()) - before if b"app\0attach" in _cmdline(pid)), None)
    return int(wait(started, "the page's pideck"))


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def rss_mb(pid: int) -> float:
    """The resident memory of process `pid`, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    """The CPU time process `pid` has used (user and system), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


CUP = re.compile(r"\x1b\[(\d+);(\d+)H")


def cell_of(screen: Screen, text: str) -> tuple[int, int]:
    """The cell (row, column, from 0) where `text` was last written on the page's terminal."""
    raw = b"".join(screen.received).decode("utf-8", "replace")
    found = None
    moves = list(CUP.finditer(raw))
    for move, after in zip(moves, [*moves[1:], None]):
        written = raw[move.end():after.start() if after else len(raw)]
        plain = re.sub(r"\x1b\[(\d*)C", lambda m: " " * int(m.group(1) or 1), written)  # (the engine's skips)
        if (column := ESCAPES.sub("", plain).find(text)) >= 0:
            found = (int(move.group(1)) - 1, int(move.group(2)) - 1 + column)
    assert found is not None, f"{text!r} was never written"
    return found


def tap_text(screen: Screen, text: str, size: dict[str, int]) -> None:
    """Tap the middle of the first cell of `text` on a page whose terminal is `size` cells."""
    row, column = cell_of(screen, text)
    box = screen.page.locator(".xterm-screen").bounding_box()
    assert box is not None
    screen.page.touchscreen.tap(box["x"] + (column + 0.5) * box["width"] / size["width"],
                                box["y"] + (row + 0.5) * box["height"] / size["height"])


def lit_pixels(page: Page, below: float = 0.0) -> int:
    """How many pixels of the page's terminal text (xterm.js's canvas) are lit, not the dark
    background (the text drawn), in the part of it below `below` (a fraction of its height)."""
    return int(page.evaluate("""(below) => {
        const canvas = document.querySelector(".xterm-text-layer");
        const top = Math.floor(canvas.height * below);
        const data = canvas.getContext("2d").getImageData(0, top, canvas.width, canvas.height - top).data;
        let lit = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i] + data[i + 1] + data[i + 2] > 300) lit++;
        return lit;
    }""", below))


@pytest.mark.pi
@pytest.mark.timeout(400)
def test_a_phone_gets_a_page_of_its_width_with_keys_and_taps_that_answer(
        browser: Browser, served: Served, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A phone (Chromium's emulation: 390x844, touch, device scale 3): the page is laid out at
    the phone's width (it had no viewport and was drawn 980 px wide, its text a third of the
    size), its text is drawn (at a scale of 2 or more the text canvas stayed black), a bar
    gives the keys a phone's keyboard lacks (Esc, Ctrl+C, Tab, arrows, Alt+Enter), a prompt
    typed is sent, and a dialog is answered by taps and the bar. Screenshots are kept in a
    folder of the test's (named in the output)."""
    shots = tmp_path_factory.mktemp("phone-screenshots")
    print(f"screenshots: {shots}")
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                device_scale_factor=3)
    sizes: list[dict[str, int]] = []
    page = phone.new_page()
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sizes.append(json.loads(frame)[1])
                                          if isinstance(frame, str) and frame.startswith('["resize"') else None))
    screen = Screen(page)
    try:
        page.goto(served.url, timeout=60_000)
        screen.wait_for("● ready")
        assert page.evaluate("window.innerWidth") == 390, "laid out at the phone's width, not 980 px"
        assert page.evaluate("getComputedStyle(document.getElementById('keys')).display") == "flex"
        size = sizes[-1]
        assert 30 <= size["width"] <= 50, f"a phone's width in cells: {size}"
        page.tap("#terminal")
        screen.type("hello from a phone")
        screen.wait_for("Here is what I found", timeout=120.0)
        page.wait_for_timeout(500)  # (the frame on the page's canvas)
        page.screenshot(path=str(shots / "phone-reply.png"))
        assert lit_pixels(page) > 5000, "the text is drawn"
        assert lit_pixels(page, below=0.85) > 1000, "the prompt and the status line at the bottom too"
        # xterm.js drew its glyphs at the device's scale on a canvas of CSS pixels: only the
        # top-left cells, three times their size (phone-reply.png showed it), however lit
        assert page.evaluate("window.devicePixelRatio") == 1, "the terminal drawn at one pixel a CSS pixel"

        screen.type("/ui-dialogs")
        screen.wait_for("Pick a colour")
        mark = len(screen.received)
        page.tap("#keys [data-key=down]")  # the bar's arrow: green highlighted (drawn again)
        screen.wait_for("green", since=mark)
        page.wait_for_timeout(300)  # (the frame on the page's canvas)
        page.screenshot(path=str(shots / "phone-select.png"))
        tap_text(screen, "blue", size)  # the option tapped is chosen, whichever is highlighted
        screen.wait_for('select="blue"')
        screen.wait_for("Proceed?")
        page.tap("#keys [data-key=esc]")
        screen.wait_for("confirm=false")
        screen.wait_for("Your name")
        page.keyboard.type("Ada")
        screen.answer("Enter", "Edit the text")
        screen.wait_for('input="Ada"')
        screen.wait_for("Edit the text")
        mark = len(screen.received)
        page.tap("#keys [data-key=esc]")
        screen.wait_for("editor=", "more notification", since=mark)
        page.screenshot(path=str(shots / "phone-answered.png"))

        page.keyboard.type("a draft to clear")
        screen.wait_for("a draft to clear")
        page.tap("#keys [data-key=ctrl_c]")  # the prompt cleared
        mark = len(screen.received)
        page.tap("#keys [data-key=ctrl_c]")
        screen.wait_for("again to quit", since=mark)
    finally:
        phone.close()


@pytest.mark.pi
@pytest.mark.timeout(400)
def test_closing_an_attached_page_leaves_the_held_run_and_the_next_page_shows_it(
        browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal's held run, detached: a `pideck serve --attach` page's close is a hang-up,
    never a quit, so the held pi goes on and each next page shows it (where the first close
    ended it, and every later page, finding no pi, stayed black); a quit on purpose in a page
    (/quit) ends it, as in a terminal."""
    from protocol.hold.ask import held

    with held_run(tmp_path, monkeypatch, words=400, delay=0.05) as env:
        server = Served(tmp_path, "--attach")
        try:
            for size in ({"width": 1200, "height": 800}, {"width": 400, "height": 800}):
                context = browser.new_context(viewport=size)
                screen = Screen(context.new_page())
                screen.page.goto(server.url, timeout=60_000)
                screen.wait_for("far")  # the run, as it goes on
                context.close()
                wait(lambda: server.processes() == [server.process.pid], "the page's pideck to end", timeout=30,
                     detail=lambda: f"; left: {server.processes()}; log:\n{server.log()}")
                pis = held(env)
                assert len(pis) == 1 and pis[0]["state"] != "exited" and not pis[0].get("windows"), pis
            assert server.log().count("held pi goes on") == 2, server.log()
            assert "pi have ended" not in server.log()

            screen = Screen(browser.new_page())
            screen.page.goto(server.url, timeout=60_000)
            screen.wait_for("far")
            screen.wait_for("ready", since=len(screen.received), timeout=120.0)  # the run is over (the status line)
            screen.page.click("#terminal")
            screen.type("/quit")
            wait(lambda: not [pi for pi in held(env) if pi["state"] != "exited"], "the quit to end the held pi",
                 detail=lambda: f"; held: {held(env)}; log:\n{server.log()}")
            screen.page.close()
        finally:
            server.stop()


@pytest.mark.pi
@pytest.mark.timeout(600)
@pytest.mark.parametrize("engine", ["on", "off"])
def test_attached_pages_opened_and_closed_over_a_run_all_draw_stay_small_and_end(
        browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str) -> None:
    """Twenty pages of `pideck serve --attach`, of different sizes, opened and closed over a
    streaming held run: every page draws the run, its pideck stays under 200 MB, and ends
    within seconds of its close; once the run is over, a page's pideck idles. (A page whose
    pideck started at another size than its own drew nothing and grew for ever, and one that
    did not end kept growing after its page was gone.)"""
    if engine == "off":
        monkeypatch.setenv("PIDECK_ENGINE", "off")
    sizes = [{"width": 1200, "height": 800}, {"width": 400, "height": 800}, {"width": 800, "height": 600},
             {"width": 390, "height": 844}, {"width": 1000, "height": 400}]
    with held_run(tmp_path, monkeypatch, words=4000, delay=0.03):
        server = Served(tmp_path, "--attach")
        try:
            for n in range(20):
                context = browser.new_context(viewport=sizes[n % len(sizes)])
                screen = Screen(context.new_page())
                before = set(server.processes())
                screen.page.goto(server.url, timeout=60_000)
                pid = page_pideck(server, before)
                screen.wait_for("far", timeout=60.0)
                assert rss_mb(pid) < 200, f"page {n}: {rss_mb(pid):.0f} MB"
                context.close()
                wait(lambda: not Path(f"/proc/{pid}").exists() or b"app" not in _cmdline(pid),
                     f"page {n}'s pideck to end", timeout=30, detail=lambda: f"; log:\n{server.log()}")
            screen = Screen(browser.new_page())
            before = set(server.processes())
            screen.page.goto(server.url, timeout=60_000)
            pid = page_pideck(server, before)
            screen.wait_for("far")
            screen.wait_for("ready", since=len(screen.received), timeout=300.0)  # the run is over (the status line)
            used = cpu_seconds(pid)
            screen.page.wait_for_timeout(3000)
            assert cpu_seconds(pid) - used < 0.3, "a page's pideck idles while nothing changes"
            assert rss_mb(pid) < 200
            screen.page.close()
        finally:
            server.stop()


def test_an_attached_page_with_no_pi_held_says_so(browser: Browser, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A `pideck serve --attach` page when no pi is held shows why its pideck did not start
    (it stayed black, the reason only in the server's terminal)."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="pideck-test-run-"))
    server = Served(tmp_path, "--attach")
    try:
        screen = Screen(browser.new_page())
        screen.page.goto(server.url, timeout=60_000)
        screen.wait_for("pideck: no pi is held")
        screen.page.close()
    finally:
        server.stop()
