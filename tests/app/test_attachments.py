"""Image attachments: content sniffing, refusals, paste parsing, and the chips in the app
(fake pi child; sending to the real pi is in test_queue_images_real_pi.py)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
from tests.pi_harness import Fake, start_run, tiny_png, type_text, wait_until
from textual import events

import protocol.files.images
from app.attachments import pasted_paths
from protocol.files.images import ImageError, describe, image_key, is_image_file, load_image, sniff_mime
from protocol.wire.messages import ImageContent
from widgets.prompt.attachments import AttachmentBar, Chip
from widgets.prompt.editor import PromptEditor

JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 32
GIF = b"GIF89a" + b"\x00" * 32
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 32


def test_sniff_mime_reads_content_not_names() -> None:
    assert sniff_mime(tiny_png()[:16]) == "image/png"
    assert sniff_mime(JPEG[:16]) == "image/jpeg"
    assert sniff_mime(GIF[:16]) == "image/gif"
    assert sniff_mime(WEBP[:16]) == "image/webp"
    assert sniff_mime(b"RIFF\x24\x00\x00\x00WAVEfmt ") is None
    assert sniff_mime(b"%PDF-1.7\n") is None


def test_load_image_by_content_and_clear_refusals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shot = tmp_path / "screenshot"  # no extension: still an image
    shot.write_bytes(JPEG)
    attachment = load_image(shot)
    assert (attachment.name, attachment.size, attachment.image.mime_type) == ("screenshot", len(JPEG), "image/jpeg")
    assert base64.b64decode(attachment.image.data) == JPEG

    fake = tmp_path / "fake.png"
    fake.write_text("not really a picture")
    with pytest.raises(ImageError, match="fake.png is not a PNG, JPEG, GIF or WebP image"):
        load_image(fake)
    with pytest.raises(ImageError, match="not a file"):
        load_image(tmp_path)
    with pytest.raises(ImageError, match="not a file"):
        load_image(tmp_path / "missing.png")
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    assert not is_image_file(fifo)  # answered without opening it (which would block)
    assert is_image_file(shot)

    big = tmp_path / "big.png"
    big.write_bytes(tiny_png() + b"\x00" * 3000)
    monkeypatch.setattr(protocol.files.images, "MAX_IMAGE_BYTES", 2048)
    with pytest.raises(ImageError, match=r"big.png is 3 KB; images over 2 KB are not attached"):
        load_image(big)


def test_pasted_paths_only_for_absolute_image_paths(tmp_path: Path) -> None:
    spaced = tmp_path / "my shot.png"
    spaced.write_bytes(tiny_png())
    other = tmp_path / "b.gif"
    other.write_bytes(GIF)
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    assert pasted_paths(f"'{spaced}' {other}\n") == [spaced, other]  # drag and drop of two files
    assert pasted_paths(str(spaced).replace(" ", "\\ ")) == [spaced]
    assert pasted_paths("file://" + str(spaced).replace(" ", "%20")) == [spaced]
    assert pasted_paths("my shot.png") is None  # relative: ordinary text
    assert pasted_paths(f"{spaced} {notes}") is None  # not all images: ordinary text
    assert pasted_paths("look at this 'unbalanced") is None
    assert pasted_paths("   ") is None


def test_describe_names_images_pideck_sent() -> None:
    image = ImageContent(data=base64.b64encode(b"x" * 2048).decode(), mime_type="image/webp")
    assert describe(image, {}) == "webp 2 KB"
    assert describe(image, {image_key(image): "cat.webp"}) == "cat.webp 2 KB"


async def test_chips_from_at_paths_refusals_removal_and_sending(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = Fake(tmp_path, "--stop-after", "10", stream="steer_abort.jsonl")
    (tmp_path / "one.png").write_bytes(tiny_png())
    (tmp_path / "two.gif").write_bytes(GIF)
    (tmp_path / "text.png").write_text("plain text under an image name")
    (tmp_path / "big.png").write_bytes(tiny_png() + b"\x00" * 5000)
    monkeypatch.setattr(protocol.files.images, "MAX_IMAGE_BYTES", 4096)
    async with fake.run() as pilot:
        app = pilot.app
        editor = app.query_one(PromptEditor)
        bar = app.query_one(AttachmentBar)
        assert not bar.display
        await type_text(pilot, "see @text.png and @big.png and @one.png @two.gif")
        await wait_until(pilot, lambda: [a.name for a in bar.attachments] == ["one.png"], what="one chip")
        assert bar.display
        assert editor.text == "see @text.png and @big.png and @two.gif"  # the last word is not finished yet
        await wait_until(pilot, lambda: app._notifications, what="the refusal")  # Notify is a message, handled later
        refusals = [str(n.message) for n in app._notifications]
        assert refusals == ["big.png is 5 KB; images over 4 KB are not attached"]
        await type_text(pilot, " ")  # more keys do not repeat the notice
        await wait_until(pilot, lambda: len(bar.attachments) == 2, what="second chip")
        assert len(app._notifications) == 1
        # a pasted path that is not an image is ordinary text
        editor.post_message(events.Paste(str(tmp_path / "text.png")))
        await wait_until(pilot, lambda: editor.text.endswith(str(tmp_path / "text.png")), what="pasted text")
        # remove a chip with the keyboard, the other by clicking it
        first, second = bar.query(Chip)
        first.focus()
        await pilot.press("delete")
        await wait_until(pilot, lambda: [a.name for a in bar.attachments] == ["two.gif"], what="chip removed")
        await pilot.pause()  # the layout after the removal
        await pilot.click(second)
        await wait_until(pilot, lambda: not bar.attachments and not bar.display, what="bar empty")
        # an image attached while pi works goes with the follow-up
        editor.load("")
        editor.focus()
        await start_run(pilot, fake)
        editor.post_message(events.Paste(str(tmp_path / "one.png")))
        await wait_until(pilot, lambda: len(bar.attachments) == 1, what="chip from paste")
        await type_text(pilot, "and this")
        editor.focus()
        await pilot.press("alt+enter")
        await wait_until(pilot, lambda: len(fake.commands("prompt")) == 2, what="follow-up prompt")
        sent = fake.commands("prompt")[1]
        assert sent["message"] == "and this" and sent["streamingBehavior"] == "followUp"
        assert sent["images"] == [{"type": "image", "data": base64.b64encode(tiny_png()).decode(), "mimeType": "image/png"}]
        assert not bar.attachments
