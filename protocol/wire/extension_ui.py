"""Extension UI requests from pi (pi docs/rpc-extension-ui.md).

Dialogs (select, confirm, input, editor) wait for an `ExtensionUIResponse` with the
same id; the rest are fire-and-forget. `timeout` is in milliseconds: pi resolves
the dialog itself when it expires.

pi forwards what the extension passed, unchecked: a dialog's text fields and options
may be any JSON value. Scalars are shown as JavaScript shows them (`as_text`); an
array or object fails typing, and the codec makes that a `RefusedDialogRequest`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.wire.base import Number, Record


class UIRequest(Record, tag_field="method"):
    id: str = ""


# A JSON value other than an array or object: what an extension may pass where pi's types say string.
Scalar = str | int | float | bool | None

# Node runs a setTimeout delay outside 1 ms .. 2**31 - 1 ms after 1 ms.
_NODE_TIMER_MAX_MS = 2**31 - 1


def as_text(value: Scalar, null: str = "") -> str:
    """`value` as JavaScript's String() writes it; `null` for None."""
    if value is None:
        return null
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


class DialogRequest(UIRequest):
    title: Scalar = ""
    timeout: Number | None = None

    def deadline(self, arrived: float) -> float | None:
        """When pi resolves the dialog itself (seconds on the clock of `arrived`, when it was
        sent), or None. pi sets its timer only for a truthy `timeout`, and Node runs one
        out of range at once."""
        if not self.timeout:
            return None
        if not 1 <= self.timeout <= _NODE_TIMER_MAX_MS:
            return arrived + 0.001
        return arrived + self.timeout / 1000


class SelectRequest(DialogRequest, tag="select"):
    options: list[Scalar] = []


class ConfirmRequest(DialogRequest, tag="confirm"):
    message: Scalar = ""


class InputRequest(DialogRequest, tag="input"):
    placeholder: Scalar = None


class EditorRequest(DialogRequest, tag="editor"):
    prefill: Scalar = None


class NotifyRequest(UIRequest, tag="notify"):
    message: str = ""
    notify_type: str = "info"


class SetStatusRequest(UIRequest, tag="setStatus"):
    status_key: str = ""
    status_text: str | None = None


class SetWidgetRequest(UIRequest, tag="setWidget"):
    widget_key: str = ""
    widget_lines: list[str] | None = None
    widget_placement: str = "aboveEditor"


class SetTitleRequest(UIRequest, tag="setTitle"):
    title: str = ""


class SetEditorTextRequest(UIRequest, tag="set_editor_text"):
    text: str = ""


class RefusedDialogRequest(Record):
    """A dialog request with a field pideck cannot show (an array or object where text
    belongs, options that are not a list, a timeout that is not a number): it is answered
    `cancelled` at once so the extension does not wait forever; `reason` says why."""

    id: str
    method: str
    reason: str


class DialogAnswered(Record, frozen=True):
    """Not pi's: the holder says another window answered dialog `id` of a pi they share
    (protocol/hold/), so this one closes it."""

    id: str


class CaughtUp(msgspec.Struct, frozen=True):
    """Not pi's: a window fell behind its held pi, or lost its link to the holder and made it
    again (protocol/hold/), and is drawn again from a fresh cut: `history` is pi's messages
    before the run in progress, whose records follow as pi's do."""

    history: list[Any]


class UnknownUIRequest(Record):
    """A request whose `method` pideck does not know; `raw` keeps it."""

    id: str
    method: str
    raw: dict[str, Any]


UIRequestUnion = (
    SelectRequest
    | ConfirmRequest
    | InputRequest
    | EditorRequest
    | NotifyRequest
    | SetStatusRequest
    | SetWidgetRequest
    | SetTitleRequest
    | SetEditorTextRequest
)

DIALOG_REQUESTS = (SelectRequest, ConfirmRequest, InputRequest, EditorRequest)
