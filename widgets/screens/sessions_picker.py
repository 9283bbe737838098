"""/sessions: every open session with its state, model, folder, host, whether its pi is held
(and as which number), cost and how long since pi last sent something; Enter shows the highlighted one."""

from __future__ import annotations

from rich.text import Text

from protocol.state.desk import SYMBOLS, SessionLine, ago
from widgets.colors import palette
from widgets.text.safe import clean
from widgets.screens.pickers import FilteredPicker, Row
from widgets.panes.sessions_row import ROLES


def session_row(line: SessionLine) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{line.number} ", palette.style("muted"))
    text.append(f"{SYMBOLS[line.mark]} {line.mark.value:<10}", palette.style(ROLES[line.mark]))
    text.append(f" {line.name:<24}", "bold" if line.current else "")
    if line.held is not None:  # (before the folder, which may be long)
        text.append(f"held {line.held}  ", palette.style("accent"))
    text.append(f" {line.model}")
    where = f"{line.host}: " if line.host else ""
    text.append(f"  {where}{clean(line.folder)}", palette.style("muted"))
    text.append(f"  {line.cost}  {ago(line.idle_for)}", palette.style("muted"))
    return text


class SessionsPicker(FilteredPicker[int]):
    """The open sessions; dismisses with the number of the one to show."""

    PLACEHOLDER = "filter: name, state, model or folder"
    DEFAULT_CLASSES = "-tall"

    def __init__(self, lines: list[SessionLine]) -> None:
        super().__init__("Sessions · Alt+1…9 show one · Alt+0 the next that needs you")
        self.lines = lines
        self.initial = next((line.number for line in lines if line.current), None)

    def on_mount(self) -> None:
        self.set_rows([
            Row(line.number, f"{line.name} {line.mark.value} {line.model} {line.folder} {line.host or ''}".casefold(),
                session_row(line))
            for line in self.lines
        ])  # fmt: skip

    def hint(self) -> str:
        return f"{len(self.shown)} of {len(self.rows)} sessions · ↑↓ move · Enter show · Esc cancel"
