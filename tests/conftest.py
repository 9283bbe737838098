"""The tests, in three folders by what they run (each folder's conftest.py has its fixtures):

- `unit/`    no pideck App and no pi child: protocol records, the session model, formatting,
             the record pump, the CLI's parsing, and single widgets in a small App of their own
             (tests/screen_app.py) without a snapshot.
- `app/`     pideck itself over the fake pi child (tests/fake_pi.py): Pilot, a real terminal in
             tmux or a pty, and every SVG snapshot (snapshots/<test module>/<test name>.svg).
- `real_pi/` anything that runs the real pi (the pinned runtime and the scripted model); these
             tests get the `pi` marker (`-m "not pi"` skips them).

Shared helpers live in tests/ and are imported one way, `from tests.<module> import ...`:
tests/pi_harness.py (pi children, pideck over a real or fake child, waiting, typing, fixture data),
tests/fake_pi.py (the fake child, run as a script), tests/screen_app.py, tests/snapshot_plugin.py
(loaded by pyproject's addopts). A test module never imports another test module.

`make test` runs them on several pytest-xdist workers (`--dist loadgroup`): each test is sent
to any free worker, except that the tests using a module- or class-scoped fixture (a pi child,
a pideck App, a browser shared by a module) stay together on one worker (the hook below), so
the fixture is set up once. Session fixtures (the scripted model, `shared_pi`, `sshd`) are set
up once per worker. Anything a test starts or writes is its own: tmp_path, free ports, tmux
servers with unique socket names.

Nothing a test run does reaches the user's own state folder (`~/.local/state/pideck`: the
saved desks, checkpoints, the protocol log): XDG_STATE_HOME is set, in this process and so in
every process it starts, to a folder of the run's own from the start (`pytest_configure`), of
each module's own while its module-scoped fixtures are set up, and of each test's own while it
runs (`own_state`). pideck itself refuses the user's own state folder under pytest
(protocol/state_home.py). The pinned runtime's cache (~/.cache/pideck) stays shared.

With PIDECK_ENGINE=off (or on a Textual other than the one the engine was checked on) the
tests run on Textual's own compositor, timer, display and parser (widgets/engine/): those
marked `engine`, which test what the engine does, are skipped then.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.load import load

from widgets.engine import MODE, ON

_SHARED_BY_A_MODULE = frozenset({"module", "class", "package"})


def pytest_configure(config: pytest.Config) -> None:
    """This process's own state folder, before anything is collected or started, and the same
    terminal whatever the one the suite runs in (CI's may be dumb, a user's may set NO_COLOR):
    the colours pideck sends follow it (widgets/colors/depth.py)."""
    os.environ["TERM"] = "xterm-256color"
    os.environ.pop("NO_COLOR", None)
    folder = tempfile.mkdtemp(prefix="pideck-test-state-")
    os.environ["XDG_STATE_HOME"] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    # the holder's folder (protocol/hold/place.py) the run's own too, never the user's: a test
    # that holds pi has one of its own (tests/real_pi/test_hold_real_pi.py), this catches the rest
    runtime = tempfile.mkdtemp(prefix="pideck-test-run-")
    os.environ["XDG_RUNTIME_DIR"] = runtime
    os.environ["PIDECK_HOLD_LINGER"] = "1"  # a holder with nothing held leaves after a second
    os.environ["PIDECK_HOLD"] = "0"  # pi pideck's own child, as the tests of it expect; those of the holder say --hold
    config.add_cleanup(lambda: _stop_holder(runtime))


def _stop_holder(runtime: str) -> None:
    """Every pi a holder of the run's folder still holds is closed (the holder then leaves)."""
    from protocol.hold.ask import ask

    try:
        ask({"op": "stop", "all": True}, {"XDG_RUNTIME_DIR": runtime}, timeout=30.0)
    except OSError:
        pass
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture(scope="module", autouse=True)
def module_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A state folder of the module's own, for what its module-scoped fixtures start."""
    folder = tmp_path_factory.mktemp("module-state")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def own_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own state folder (XDG_STATE_HOME), outside its tmp_path, which stays its own."""
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


# before pytest-timeout's own, which it calls with the bound stretched (optional: `-p no:timeout` runs without it)
@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool:
    """A test's time limit (pyproject's `timeout`, or its mark's) is what it may take on an
    idle machine: stretched by the load when the test starts, as the tests' waits are."""
    import pytest_timeout

    return pytest_timeout.pytest_timeout_set_timer(item, settings._replace(timeout=settings.timeout * load()))


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks into the test ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every test that uses a module- or class-scoped fixture (but `module_state`, which
    every test has) in its module's `xdist_group`; skip those marked `engine` where it is off."""
    for item in items:
        if not ON and item.get_closest_marker("engine") is not None:
            item.add_marker(pytest.mark.skip(reason=f"tests what the engine does ({MODE})"))
        # Private pytest API: an item's fixture definitions (with their scopes) have no public accessor.
        info = getattr(item, "_fixtureinfo", None)
        if info is not None and any(
            defs and defs[-1].scope in _SHARED_BY_A_MODULE
            for name, defs in info.name2fixturedefs.items() if name != "module_state"
        ):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
