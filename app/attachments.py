"""Attaching images to the next message, and keeping the images of queued messages.

An image is attached by an `@path` in the prompt (path completion inserts `@path `;
once the word is followed by a space, or on send, an image file's `@path` turns into
a chip) or by pasting absolute paths (a terminal's drag and drop pastes them, shell
quoted) of image files. Other `@path`s stay text for the model.

pi's `clear_queue` returns only the texts of queued messages, so the images of the
messages pideck queued are kept here by text, to go back with them (Esc, Alt+Up, the
queue editor).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from textual.app import App
from textual.screen import Screen

from app.notifier import Notifier
from protocol.files.images import Attachment, ImageError, decoded_size, image_key, is_image_file, load_image
from protocol.wire.messages import ImageContent
from widgets.prompt.attachments import AttachmentBar
from widgets.prompt.editor import PromptEditor

MAX_QUEUED = 32  # queued messages whose images are kept
MAX_PASTED_PATHS = 16_384  # a longer paste is text, not file names

# an @word at the start of the text or after whitespace; `ended` when whitespace follows it
_AT_WORD = re.compile(r"(?:(?<=\s)|^)@(?P<path>\S+)(?P<ended>\s|$)")


def pasted_paths(text: str) -> list[Path] | None:
    """The image files a paste names, if it is nothing but absolute paths (or file:// URLs)
    of image files; None for any other paste."""
    if len(text) > MAX_PASTED_PATHS:
        return None
    try:
        words = shlex.split(text.strip())
    except ValueError:
        return None
    paths = []
    for word in words:
        if word.startswith("file://"):
            word = unquote(urlparse(word).path)
        path = Path(word).expanduser()
        if not path.is_absolute() or not is_image_file(path):
            return None
        paths.append(path)
    return paths or None


class Attachments:
    """`names` are the session model's image names; `cwd` gives pi's working directory."""

    def __init__(self, app: App[Any], names: dict[str, str], cwd: Callable[[], Path],
                 screen: Callable[[], Screen[Any]]) -> None:
        """`screen` is the session's screen, where its attachment bar is."""
        self.app = app
        self._screen = screen
        self.names = names
        self._cwd = cwd
        self._tell = Notifier(app.notify)
        self._queued: dict[str, list[ImageContent]] = {}
        self._refused: set[str] = set()  # @words already reported, not to repeat the notice per key
        # @words that named no image file: not looked up again on every key (a 2 MB text from an
        # extension held tens of thousands); sending looks them all up again
        self._not_images: set[str] = set()

    @property
    def bar(self) -> AttachmentBar:
        return self._screen().query_one(AttachmentBar)

    async def attach(self, paths: list[Path]) -> bool:
        """Attach image files; a file that cannot be attached is reported, the rest still are."""
        loaded: list[Attachment] = []
        for path in paths:
            try:
                loaded.append(load_image(path))
            except ImageError as exc:
                self._tell.fail(str(exc), title="image not attached")
        await self.bar.add(*loaded)
        return bool(loaded)

    async def scan(self, editor: PromptEditor) -> None:
        """Turn the `@path`s of image files that whitespace follows in the editor into chips
        (a name being typed is not attached half-way)."""
        found = self._images_in(editor.text, final=False)
        if found is not None:
            editor.load(found[0])
            await self.bar.add(*found[1])

    async def scan_sent(self, text: str) -> str:
        """The `@path`s of image files in a message being sent, the last word too, as chips;
        the message's text without them."""
        self._not_images.clear()
        found = self._images_in(text, final=True)
        if found is None:
            return text
        await self.bar.add(*found[1])
        return found[0]

    def _images_in(self, text: str, *, final: bool) -> tuple[str, list[Attachment]] | None:
        """`text` without its `@path`s of image files, and their images; None without any.

        A word counts once whitespace follows it, or at the end of the text when `final`.
        Shell commands (`!`) are left alone.
        """
        if "@" not in text or text.startswith("!"):
            return None
        cwd = self._cwd()
        kept: list[str] = []
        found: list[Attachment] = []
        last = 0
        for match in _AT_WORD.finditer(text):
            if not (match["ended"] or final):
                continue
            word = match["path"]
            if word in self._not_images:
                continue
            path = cwd / Path(word).expanduser()  # an absolute path stays as it is
            if not is_image_file(path):
                self._not_images.add(word)
                continue
            try:
                found.append(load_image(path))
            except ImageError as exc:  # the word stays text
                if word not in self._refused:
                    self._refused.add(word)
                    self._tell.fail(str(exc), title="image not attached")
                continue
            kept.append(text[last : match.start()])
            last = match.end("path") + (match["ended"] == " ")  # the word and the space after it
        if not found:
            return None
        kept.append(text[last:])
        return "".join(kept), found

    async def paste(self, text: str) -> bool:
        """Attach the images a paste names; False leaves the paste to the editor."""
        paths = pasted_paths(text)
        return paths is not None and await self.attach(paths)

    async def take(self, text: str, *, queued: bool) -> list[ImageContent] | None:
        """The chips' images for a message being sent, None without any. Their file names are
        kept for the transcript; with `queued`, the images are kept with the message's text."""
        attachments = await self.bar.take()
        if not attachments:
            return None
        images = [attachment.image for attachment in attachments]
        for attachment in attachments:
            self.names[image_key(attachment.image)] = attachment.name
        if queued:
            self.remember_queued(text, images)
        return images

    async def restore(self, images: list[ImageContent]) -> None:
        """Put images back as chips (a message that was not sent, or came back from the queue)."""
        await self.bar.add(
            *(Attachment(self.names.get(image_key(i), i.mime_type.replace("/", ".")), decoded_size(i), i) for i in images)
        )

    def remember_queued(self, text: str, images: list[ImageContent]) -> None:
        self._queued.pop(text, None)
        self._queued[text] = images
        while len(self._queued) > MAX_QUEUED:  # delivered messages' images are not needed again
            del self._queued[next(iter(self._queued))]

    def queued_images(self, text: str) -> list[ImageContent]:
        """The images pideck queued with `text` (once: they leave the queue with it)."""
        return self._queued.pop(text, [])
