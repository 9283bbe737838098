"""Pausing Python's garbage collector while a long answer is decoded or folded in.

Reading a long session makes hundreds of thousands of objects in one go; each time their
count passes the collector's thresholds it walks them (a full collection walks everything
the process holds), which took as long as the reading itself.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
