"""Files pideck reads from outside (its saved desks, pi's settings and session files, git's
HEAD, checkpoints, images, recordings), opened so that opening cannot wait and read within
a bound.

`open()` of a FIFO waits for a writer, and reading a device may never end: a file is
opened with O_NONBLOCK, then `fstat` must find a regular file (for which O_NONBLOCK changes
nothing), else `NotARegularFile`. `read_regular` reads at most `limit` bytes and refuses a
larger file with `TooLarge`. Both are OSErrors, whose `strerror` says what is wrong.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO


class NotARegularFile(OSError):
    """A FIFO, a device, a socket or a folder where a file was expected."""


class TooLarge(OSError):
    """A file larger than its reader's bound."""


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """The regular file at `path`, open for reading (binary, unbuffered reads are the caller's)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile(errno.EINVAL, "not a regular file", os.fspath(path))
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them."""
    with open_regular(path) as handle:
        if os.fstat(handle.fileno()).st_size > limit:
            raise TooLarge(errno.EFBIG, f"larger than {limit:,} bytes", os.fspath(path))
        data = handle.read(limit + 1)  # (a file that grew since fstat: one byte more tells)
    if len(data) > limit:
        raise TooLarge(errno.EFBIG, f"larger than {limit:,} bytes", os.fspath(path))
    return data
