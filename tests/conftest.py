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
"""

from __future__ import annotations

import pytest

_SHARED_BY_A_MODULE = frozenset({"module", "class", "package"})


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks into the test ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every test that uses a module- or class-scoped fixture in its module's `xdist_group`."""
    for item in items:
        # Private pytest API: an item's fixture definitions (with their scopes) have no public accessor.
        info = getattr(item, "_fixtureinfo", None)
        if info is not None and any(
            defs and defs[-1].scope in _SHARED_BY_A_MODULE for defs in info.name2fixturedefs.values()
        ):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
