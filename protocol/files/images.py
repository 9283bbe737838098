"""Image attachments: an image file recognised by its content, as pi's `ImageContent`.

pi takes PNG, JPEG, GIF and WebP images in the `images` field of prompt, steer and
follow_up (docs/rpc-commands.md). The type is read from the file's first bytes, never
trusted from its name, so a renamed or extension-less screenshot still works and a
text file called `x.png` is refused with a clear message.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from protocol.regular_file import NotARegularFile, open_regular
from protocol.wire.messages import ImageContent

MAX_IMAGE_BYTES = 20 * 1024 * 1024  # pi scales large images down itself; this bounds the JSONL line
SNIFF_BYTES = 16


class ImageError(Exception):
    """A file that cannot be attached; the message says why, for the user."""


@dataclass(frozen=True)
class Attachment:
    name: str  # the file name, shown on the chip and in the transcript
    size: int  # bytes
    image: ImageContent


def sniff_mime(head: bytes) -> str | None:
    """The image MIME type of a file starting with `head`, or None if it is not one pi takes."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def is_image_file(path: Path) -> bool:
    """Whether `path` is a readable file whose content is a PNG, JPEG, GIF or WebP image."""
    try:
        with open_regular(path) as handle:  # (opening a FIFO would block)
            return sniff_mime(handle.read(SNIFF_BYTES)) is not None
    except OSError:
        return False


def size_label(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def load_image(path: Path) -> Attachment:
    """Read an image file for sending; raises ImageError with a message for the user."""
    name = path.name or str(path)
    try:
        with open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size <= MAX_IMAGE_BYTES:
                data = handle.read(MAX_IMAGE_BYTES + 1)
                size = len(data)
    except (NotARegularFile, FileNotFoundError):
        raise ImageError(f"{name}: not a file") from None
    except OSError as exc:
        raise ImageError(f"cannot read {name}: {exc.strerror or exc}") from exc
    if size > MAX_IMAGE_BYTES:
        raise ImageError(f"{name} is {size_label(size)}; images over {size_label(MAX_IMAGE_BYTES)} are not attached")
    mime = sniff_mime(data[:SNIFF_BYTES])
    if mime is None:
        raise ImageError(f"{name} is not a PNG, JPEG, GIF or WebP image")
    return Attachment(name, len(data), ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime))


def image_key(image: ImageContent) -> str:
    """A short key for an image's data (to find the file name of an image pideck sent)."""
    return hashlib.sha1(image.data.encode("ascii", "replace")).hexdigest()


def decoded_size(image: ImageContent) -> int:
    data = image.data
    return max(0, len(data) * 3 // 4 - data[-2:].count("="))


def describe(image: ImageContent, names: Mapping[str, str]) -> str:
    """"name.png 12 KB" for an image pideck attached, else its type and size."""
    name = names.get(image_key(image)) or image.mime_type.removeprefix("image/")
    return f"{name} {size_label(decoded_size(image))}"
