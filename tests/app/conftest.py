"""pideck over the fake pi child (tests/fake_pi.py, driven through tests.pi_harness.Fake), and the
SVG snapshots (tests/snapshot_plugin.py). No real pi here: its fixtures live in tests/real_pi/."""
