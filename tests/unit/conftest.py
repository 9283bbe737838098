"""Unit tests: no pideck App and no pi child (see tests/conftest.py). No fixtures of their own
beyond those in each module."""
