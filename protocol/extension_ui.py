"""Extension UI requests from pi (pi docs/rpc-extension-ui.md).

Dialogs (select, confirm, input, editor) wait for an `ExtensionUIResponse` with the
same id; the rest are fire-and-forget. `timeout` is in milliseconds: pi resolves
the dialog itself when it expires.
"""

from __future__ import annotations

from typing import Any

from protocol.base import Number, Record


class UIRequest(Record, tag_field="method"):
    id: str = ""


class DialogRequest(UIRequest):
    title: str = ""
    timeout: Number | None = None


class SelectRequest(DialogRequest, tag="select"):
    options: list[str] = []


class ConfirmRequest(DialogRequest, tag="confirm"):
    message: str = ""


class InputRequest(DialogRequest, tag="input"):
    placeholder: str | None = None


class EditorRequest(DialogRequest, tag="editor"):
    prefill: str | None = None


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
