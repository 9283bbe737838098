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
"""
