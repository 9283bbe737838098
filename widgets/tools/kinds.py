"""Tool calls drawn by kind: pi's built-in tools (edit, write, read, bash, grep, find, ls)
each have a renderer, every other tool (extension, MCP) the generic one.

A renderer gives a call's title (what follows the run mark in the transcript and the
tool log: `edit src/app.py +3 −1`, `$ make test`), its body in the transcript (collapsed
or expanded with Ctrl+O) and what the full-output view shows (`FullOutput`: the text,
and how to style a row of it when it scrolls into view). Everything is built from the
call's arguments and pi's result (`content`, `details`); anything missing or not in
the expected shape falls back to the result's text.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich.text import Text

from protocol.wire.messages import ImageContent
from protocol.numbers import parse_int
from protocol.state.session_model import ToolRun
from protocol.state.tool_diffs import ADDED, CONTEXT, REMOVED, SKIPPED, DiffLine, DiffLines, changed_spans, diff_counts, display_diff, patch_counts
from widgets.colors import palette
from widgets.text.ansi import ansi_text
from widgets.tools.code_lines import code_lines, gutter, lexer_for, numbered
from widgets.text.safe import clean_lines, one_row
from widgets.tools.output import PREVIEW_LINE_CHARS, output_preview

CODE_PREVIEW = 8  # collapsed: a written file's or a read's first lines (as many as other output shows)
DIFF_PREVIEW = 16  # collapsed: an edit's first diff rows (two hunks of pi's usual context)
EXPANDED_ROWS = 200  # expanded: at most this many (the full view shows all)
CHUNK = 256  # the full view highlights code this many lines at a time
MORE = " (ctrl+o expands, click shows all)"

_NOTICE = re.compile(r"\n\n(\[[^\n]*\])\s*$")  # pi's "[Showing lines 1-2000 of 5000…]" at the end
_EXIT = re.compile(r"(?:\n\n|^)Command exited with code ([0-9]+)\s*$")


@dataclass(frozen=True)
class Call:
    """What a renderer draws from: the call's name and arguments, its run (None before
    it starts), pi's working directory (paths inside it are shown relative) and how
    long a path may be (the tool log's narrow rows)."""

    name: str
    args: Any
    run: ToolRun | None
    cwd: str = ""
    width: int = 0  # paths longer than this keep their end ("…/src/app.py"); 0: whole

    def arg(self, *keys: str) -> str:
        """The first of `keys` whose argument is a string; "" when none is."""
        if isinstance(self.args, dict):
            for key in keys:
                if isinstance(value := self.args.get(key), str):
                    return value
        return ""

    @property
    def output(self) -> str:
        return self.run.output if self.run is not None else ""

    @property
    def details(self) -> Any:
        return self.run.result.details if self.run is not None and self.run.result is not None else None

    @property
    def failed(self) -> bool:
        return self.run is not None and self.run.done and self.run.is_error

    @property
    def done(self) -> bool:
        return self.run is not None and self.run.done


Styler = Callable[[int, str], Text]


@dataclass(frozen=True)
class FullOutput:
    """The full-output view's text and, when it is styled, `style(row index, row) -> Text`
    (the same characters as the row; the view calls it only for rows in view)."""

    text: str
    style: Styler | None = None


NAME_KEPT = 24  # a file name this long or shorter is never cut, however narrow the row


def shown_path(path: str, cwd: str, width: int = 0) -> str:
    """`path` relative to `cwd` when inside it, `~/…` when under the home directory. Longer
    than `width` (0: any length), it keeps the folders nearest the file that fit ("…/src/app.py")
    and always the file's whole name; only a name longer than NAME_KEPT (and `width`) loses its
    middle ("a_generated_…_results.py")."""
    shown = _relative(path, cwd)
    if width <= 1 or len(shown) <= width:
        return shown
    *folders, name = shown.split("/")
    if len(name) > max(width, NAME_KEPT):
        limit = max(width, NAME_KEPT)
        name = name[: (limit - 1) // 2] + "…" + name[-(limit // 2) :]
    kept, dropped = name, len(folders)
    while dropped and len(f"…/{folders[dropped - 1]}/{kept}") <= width:
        dropped -= 1
        kept = f"{folders[dropped]}/{kept}"
    return f"…/{kept}" if dropped else kept


def _relative(path: str, cwd: str) -> str:
    path = one_row(path)
    if cwd and os.path.isabs(path):
        try:
            relative = os.path.relpath(path, cwd)
        except ValueError:
            relative = ""
        if relative and not relative.startswith(".."):
            return relative
    home = os.path.expanduser("~")
    if home not in ("", "/") and path.startswith(home + os.sep):
        return "~" + path[len(home) :]
    return path


_PLURALS = {"entry": "entries", "match": "matches"}


def _count(number: int, word: str) -> str:
    return f"{number:,} {word if number == 1 else _PLURALS.get(word, word + 's')}"


def _lines(text: str, limit: int) -> tuple[list[str], int]:
    """The first `limit` lines of `text` and how many it has in all (bounded work)."""
    text = text[:-1] if text.endswith("\n") else text
    total = text.count("\n") + 1
    return text.split("\n", limit)[:limit], total


def _more(hidden: int, expanded: bool) -> Text:
    note = f"\n… {hidden:,} more line{'' if hidden == 1 else 's'}" + (" · click to see all" if expanded else MORE)
    return Text(note, palette.style("muted"))


def _notice(output: str) -> tuple[str, str]:
    """`output` without pi's closing "[…]" notice, and the notice ("" when none)."""
    match = _NOTICE.search(output)
    return (output[: match.start()], match.group(1)) if match else (output, "")


def _json_lines(value: Any) -> list[str]:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str).split("\n")
    except ValueError:
        return [repr(value)]


class Kind:
    """The generic renderer (any tool pideck has no renderer of its own for)."""

    def title(self, call: Call) -> Text:
        text = Text(one_row(call.name), palette.style("toolTitle"))
        key = self.key_argument(call)
        if key:
            text.append(" ")
            text.append(key, palette.style("toolPath"))
        return text

    def key_argument(self, call: Call) -> str:
        """The argument that says what the call is about, on one line; "" if none does."""
        if isinstance(call.args, dict):
            for key in ("command", "path", "file_path", "pattern", "query", "url"):
                if isinstance(value := call.args.get(key), str):
                    return one_row(value[:1000].split("\n", 1)[0])[:300]
        return ""

    def summary(self, call: Call) -> str:
        """The key argument, or else the arguments as JSON, on one line."""
        if key := self.key_argument(call):
            return key
        return one_row(json.dumps(call.args, ensure_ascii=False, default=str)[:200]) if isinstance(call.args, dict) and call.args else ""

    def body(self, call: Call, expanded: bool) -> Text:
        text = Text()
        if isinstance(call.args, dict) and call.args:
            lines = _json_lines(call.args)
            limit = EXPANDED_ROWS if expanded else CODE_PREVIEW
            text.append_text(Text("\n").join(code_lines(lines[:limit], "json", PREVIEW_LINE_CHARS)))
            if len(lines) > limit:
                text.append_text(_more(len(lines) - limit, expanded))
        return self._with_output(text, call, expanded)

    def _with_output(self, text: Text, call: Call, expanded: bool) -> Text:
        if call.output:
            if text:
                text.append("\n")
            text.append_text(self.output(call, expanded))
        return text

    def output(self, call: Call, expanded: bool) -> Text:
        """The result's text, its last lines (collapsed) or first and last (expanded)."""
        return output_preview(call.output, expanded, _error(call))

    def full(self, call: Call) -> FullOutput:
        text = call.output
        if isinstance(call.args, dict) and call.args:
            lines = _json_lines(call.args)
            return _with_arguments(FullOutput(text), lines)
        return FullOutput(text)


def _error(call: Call) -> str:
    """The style of a result's text: the error colour when the call failed."""
    return str(palette.style("error")) if call.failed else ""


def _with_arguments(full: FullOutput, lines: list[str]) -> FullOutput:
    """`full` followed by the call's arguments as highlighted JSON."""
    head = full.text.rstrip("\n").split("\n") if full.text else []
    label = len(head) + 1 if head else 0  # the row saying "arguments:", after a blank one
    text = "\n".join([*head, *([""] if head else []), "arguments:", *lines])
    highlighted = _Chunks(lines, "json")

    def style(index: int, row: str) -> Text:
        if index < len(head):
            return full.style(index, row) if full.style is not None else Text(row)
        if index <= label:
            return Text(row, palette.style("muted"))
        return highlighted.line(index - label - 1)

    return FullOutput(text, style)


class _Chunks:
    """Code lines highlighted CHUNK lines at a time, when first asked for."""

    def __init__(self, lines: list[str], lexer: str | None, prefix: Callable[[int], Text] | None = None) -> None:
        self.lines, self.lexer, self.prefix = lines, lexer, prefix
        self.done: dict[int, list[Text]] = {}

    def line(self, index: int) -> Text:
        chunk = index // CHUNK
        if chunk not in self.done:
            self.done[chunk] = code_lines(self.lines[chunk * CHUNK : (chunk + 1) * CHUNK], self.lexer)
        rows = self.done[chunk]
        code = rows[index % CHUNK] if index % CHUNK < len(rows) else Text()
        return Text.assemble(self.prefix(index), code) if self.prefix is not None else code


def _numbered_full(lines: list[str], first: int, lexer: str | None) -> FullOutput:
    """Code lines with their numbers (from `first`), highlighted when in view."""
    width = len(str(first + max(0, len(lines) - 1)))
    text = "\n".join(f"{first + n:>{width}} {one_row(line).expandtabs(4)}" for n, line in enumerate(lines))
    chunks = _Chunks(lines, lexer, lambda index: gutter(first + index, width))
    return FullOutput(text, lambda index, row: chunks.line(index))


class EditKind(Kind):
    """pi's `edit`: the path, +added −removed, and pi's numbered display diff."""

    def key_argument(self, call: Call) -> str:
        return shown_path(call.arg("path", "file_path"), call.cwd, call.width)

    def title(self, call: Call) -> Text:
        text = super().title(call)
        counts = self.counts(call)
        if counts is not None:
            text.append(f" +{counts[0]}", palette.style("toolDiffAdded"))
            text.append(f" −{counts[1]}", palette.style("toolDiffRemoved"))
        elif not call.done and (edits := len(self.edits(call))):
            text.append(f" · {_count(edits, 'edit')}", palette.style("muted"))
        return text

    def counts(self, call: Call) -> tuple[int, int] | None:
        lines = _diff(call.details)
        if lines is not None:
            return diff_counts(lines)
        patch = call.details.get("patch") if isinstance(call.details, dict) else None
        return patch_counts(patch) if isinstance(patch, str) and patch else None

    def edits(self, call: Call) -> list[tuple[str, str]]:
        """The (oldText, newText) pairs asked for (`edits`, or older pi's top-level pair)."""
        args = call.args if isinstance(call.args, dict) else {}
        edits = args.get("edits")
        pairs = [(e.get("oldText"), e.get("newText")) for e in edits if isinstance(e, dict)] if isinstance(edits, list) else []
        if not pairs and "oldText" in args:
            pairs = [(args.get("oldText"), args.get("newText"))]
        return [(old if isinstance(old, str) else "", new if isinstance(new, str) else "") for old, new in pairs]

    def body(self, call: Call, expanded: bool) -> Text:
        if call.failed:
            text = self.output(call, expanded)
            for old, new in self.edits(call):
                text.append("\n")
                text.append_text(_asked(old, new))
            return text
        lines = _diff(call.details) if call.done else None
        if lines is None:
            return self.output(call, expanded) if call.done else Text()
        limit = EXPANDED_ROWS if expanded else DIFF_PREVIEW
        text = Text("\n").join(diff_rows(lines, lexer_for(call.arg("path", "file_path")), 0, limit, cut=PREVIEW_LINE_CHARS))
        if len(lines) > limit:
            text.append_text(_more(len(lines) - limit, expanded))
        return text

    def full(self, call: Call) -> FullOutput:
        lines = _diff(call.details)
        arguments = _json_lines(call.args) if isinstance(call.args, dict) else []
        if lines is None:
            return _with_arguments(FullOutput(call.output), arguments)
        return _with_arguments(_diff_full(lines, lexer_for(call.arg("path", "file_path"))), arguments)


def _diff_full(lines: Sequence[DiffLine], lexer: str | None) -> FullOutput:
    """The whole diff, its rows styled CHUNK lines at a time when first in view."""
    width = _number_width(lines)

    def plain(line: DiffLine) -> str:
        if line.kind == SKIPPED:
            return f"{'':>{width}}   ⋯"
        mark = " " if line.kind == CONTEXT else line.kind
        return f"{mark} {line.number.strip():>{width}} {one_row(line.text).expandtabs(4)}"

    done: dict[int, list[Text]] = {}

    def style(index: int, row: str) -> Text:
        chunk = index // CHUNK
        if chunk not in done:
            if len(done) > 8:
                done.clear()
            done[chunk] = diff_rows(lines, lexer, chunk * CHUNK, (chunk + 1) * CHUNK)
        rows = done[chunk]
        return rows[index % CHUNK] if index % CHUNK < len(rows) else Text(row)

    return FullOutput("\n".join(map(plain, lines)), style)


def _diff(details: Any) -> DiffLines | None:
    """pi's display diff in `details`, read once per diff (the tool log redraws every row)."""
    diff = details.get("diff") if isinstance(details, dict) else None
    return _read_diff(diff) if isinstance(diff, str) else None


@lru_cache(maxsize=256)
def _read_diff(diff: str) -> DiffLines | None:
    return display_diff({"diff": diff})


def _asked(old: str, new: str) -> Text:
    """One edit asked for, as a -/+ block."""
    text = Text()
    removed, added = palette.style("toolDiffRemoved"), palette.style("toolDiffAdded")
    rows = [("-", one_row(line), removed) for line in old.split("\n")] + [("+", one_row(line), added) for line in new.split("\n")]
    for index, (mark, line, style) in enumerate(rows[: 2 * DIFF_PREVIEW]):
        text.append(("\n" if index else "") + f"{mark} {line.expandtabs(4)}", style)
    if len(rows) > 2 * DIFF_PREVIEW:
        text.append_text(_more(len(rows) - 2 * DIFF_PREVIEW, False))
    return text


def diff_rows(lines: Sequence[DiffLine], lexer: str | None, start: int = 0, stop: int | None = None, cut: int = 0) -> list[Text]:
    """pi's diff rows `lines[start:stop]` styled: removed, added and context lines by
    their roles, the number column aligned, `...` skips as a separator, the changed
    words of a lone removed line followed by a lone added line emphasised, context lines
    highlighted for `lexer`. Only those rows are worked on; with `cut`, a line longer
    than `cut` characters shows `cut` of them: a changed line's around its first change."""
    shown = lines[start:stop]
    width = _number_width(lines)
    context = code_lines([line.text for line in shown if line.kind == CONTEXT], lexer, cut)
    contexts = iter(context)
    rows: list[Text] = []
    base = {ADDED: palette.style("toolDiffAdded"), REMOVED: palette.style("toolDiffRemoved")}
    emphasis = palette.style("toolDiffEmphasis")
    for index, line in enumerate(shown, start):
        if line.kind == SKIPPED:
            rows.append(Text(f"{'':>{width}}   ⋯", palette.style("muted")))
            continue
        if line.kind == CONTEXT:
            row = Text(f"  {line.number.strip():>{width}} ", palette.style("lineNumber"))
            code = next(contexts)
            code.stylize(palette.style("toolDiffContext"))
            row.append_text(code)
            rows.append(row)
            continue
        code = one_row(line.text)
        row = Text(f"{line.kind} {line.number.strip():>{width}} ", base[line.kind])
        body = Text(code.expandtabs(4), base[line.kind])
        spans = _pair_spans(lines, index) if "\t" not in code else []
        for span_start, span_end in spans:
            body.stylize(emphasis, span_start, span_end)
        if cut and len(body) > cut:
            body = _window(body, spans[0][0] if spans else 0, cut)
        row.append_text(body)
        rows.append(row)
    return rows


def _number_width(lines: Sequence[DiffLine]) -> int:
    """The width of the number column: pi pads every number of a diff (and the blank of
    a skip) to one width, the widest number's."""
    return max((len(line.number) for line in lines[:1] + lines[-1:]), default=1) or 1


def _window(text: Text, at: int, cut: int) -> Text:
    """`cut` characters of `text` from a little before `at`, "…" where it was cut."""
    begin = max(0, min(at - cut // 4, len(text) - cut))
    shown = text[begin : begin + cut]
    muted = palette.style("muted")
    return Text.assemble(*((("…", muted),) if begin else ()), shown, *((("…", muted),) if begin + cut < len(text) else ()))


def _pair_spans(lines: Sequence[DiffLine], index: int) -> list[tuple[int, int]]:
    """The changed spans of line `index` when it is one of a lone removed line followed by
    a lone added line (as pi's renderIntraLineDiff picks them); [] otherwise."""
    first = index if lines[index].kind == REMOVED else index - 1
    if first < 0 or first + 1 >= len(lines) or lines[first].kind != REMOVED or lines[first + 1].kind != ADDED:
        return []
    if (first and lines[first - 1].kind == REMOVED) or (first + 2 < len(lines) and lines[first + 2].kind == ADDED):
        return []
    old, new = changed_spans(one_row(lines[first].text), one_row(lines[first + 1].text))
    return old if index == first else new


class WriteKind(Kind):
    """pi's `write`: the path, its line count and the content highlighted."""

    def key_argument(self, call: Call) -> str:
        return shown_path(call.arg("path", "file_path"), call.cwd, call.width)

    def title(self, call: Call) -> Text:
        text = super().title(call)
        content = call.arg("content")
        if content:
            text.append(f" · {_count(content.count(chr(10)) + (not content.endswith(chr(10))), 'line')}", palette.style("muted"))
        return text

    def body(self, call: Call, expanded: bool) -> Text:
        if call.failed:
            return self.output(call, expanded)
        content = call.arg("content")
        if not content:
            return Text()
        limit = EXPANDED_ROWS if expanded else CODE_PREVIEW
        lines, total = _lines(content, limit)
        text = numbered(code_lines(lines, lexer_for(self.key_argument(call)), PREVIEW_LINE_CHARS), 1)
        if total > limit:
            text.append_text(_more(total - limit, expanded))
        return text

    def full(self, call: Call) -> FullOutput:
        content = call.arg("content")
        if not content or call.failed:
            return FullOutput(call.output)
        return _numbered_full(content.removesuffix("\n").split("\n"), 1, lexer_for(self.key_argument(call)))


class ReadKind(Kind):
    """pi's `read`: the path with the range asked for, the text with the file's line numbers."""

    def key_argument(self, call: Call) -> str:
        path = shown_path(call.arg("path", "file_path"), call.cwd, call.width)
        first, limit = self._number(call, "offset"), self._number(call, "limit")
        if first is None and limit is None:
            return path
        start = first or 1
        return f"{path}:{start}" + (f"-{start + limit - 1}" if limit else "")

    @staticmethod
    def _number(call: Call, key: str) -> int | None:
        value = call.args.get(key) if isinstance(call.args, dict) else None
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 2**53 else None

    def images(self, call: Call) -> list[str]:
        """The media types of the images a read returned (an image file)."""
        result = call.run.result if call.run is not None else None
        return [one_row(block.mime_type) for block in (result.content if result is not None else []) if isinstance(block, ImageContent)]

    def body(self, call: Call, expanded: bool) -> Text:
        images = self.images(call)
        if images:
            return Text("\n").join(Text(f"[image: {mime}]", palette.style("warning")) for mime in images)
        if call.failed or not call.done or _binary(call.output):
            return self.output(call, expanded) if call.output else Text()
        code, notice = _notice(call.output)
        limit = EXPANDED_ROWS if expanded else CODE_PREVIEW
        lines, total = _lines(code, limit)
        text = numbered(code_lines(lines, lexer_for(call.arg("path", "file_path")), PREVIEW_LINE_CHARS), self._number(call, "offset") or 1)
        if total > limit:
            text.append_text(_more(total - limit, expanded))
        if notice:
            text.append("\n" + one_row(notice), palette.style("muted"))
        return text

    def full(self, call: Call) -> FullOutput:
        if call.failed or self.images(call) or _binary(call.output):
            return FullOutput(call.output)
        code, notice = _notice(call.output)
        full = _numbered_full(code.removesuffix("\n").split("\n"), self._number(call, "offset") or 1, lexer_for(call.arg("path", "file_path")))
        if not notice:
            return full
        count = full.text.count("\n") + 1
        style = full.style
        return FullOutput(f"{full.text}\n\n{notice}", lambda index, row: style(index, row) if style and index < count else Text(row, palette.style("muted")))


def _binary(output: str) -> bool:
    """Whether a read's text looks like a binary file's (NULs or undecodable bytes)."""
    head = output[:4096]
    return "\x00" in head or head.count("\ufffd") > 2


class BashKind(Kind):
    """pi's `bash`: `$ command`, the output with its colours, the exit code."""

    def title(self, call: Call) -> Text:
        command = clean_lines(call.arg("command"))
        first, _, rest = command.strip("\n").partition("\n")
        text = Text("$ ", palette.style("success"))
        text.append(first[:300], palette.style("toolTitle"))
        if rest:
            text.append(f" … {_count(rest.count(chr(10)) + 1, 'more line')}", palette.style("muted"))
        if call.done:
            code = self.exit_code(call)
            if code is not None:
                text.append(f"  exit {code}", palette.style("error" if code else "success"))
        return text

    def key_argument(self, call: Call) -> str:
        return clean_lines(call.arg("command")).strip("\n").split("\n", 1)[0][:300]

    @staticmethod
    def exit_code(call: Call) -> int | None:
        match = _EXIT.search(call.output[-200:])
        if match is not None:
            return parse_int(match.group(1))
        return None if call.failed else 0

    def body(self, call: Call, expanded: bool) -> Text:
        return self.output(call, expanded) if call.output else Text()

    def output(self, call: Call, expanded: bool) -> Text:
        return output_preview(call.output, expanded, "", render=ansi_text)

    def full(self, call: Call) -> FullOutput:
        rows: dict[int, Text] = {}
        lines = call.output.split("\n")

        def style(index: int, row: str) -> Text:
            if index not in rows:
                rows[index] = ansi_text(lines[index]) if index < len(lines) else Text(row)
                rows[index].expand_tabs(4)  # as the view shows the line
            return rows[index]

        return FullOutput(call.output, style)


class RowsKind(Kind):
    """A tool whose body is its output alone, its rows styled by `rows` (unless it failed)."""

    def __init__(self, rows: Callable[[str, str], Text]) -> None:
        self.rows = rows

    def body(self, call: Call, expanded: bool) -> Text:
        return self.output(call, expanded) if call.output else Text()

    def output(self, call: Call, expanded: bool) -> Text:
        return output_preview(call.output, expanded, _error(call), render=None if call.failed else self.rows)

    def full(self, call: Call) -> FullOutput:
        return FullOutput(call.output, lambda index, row: self.rows(row, ""))


class GrepKind(RowsKind):
    """pi's `grep`: `path:line: text` rows with the path and number styled, matches counted."""

    def title(self, call: Call) -> Text:
        text = Text("grep ", palette.style("toolTitle"))
        text.append(f"/{one_row(call.arg('pattern'))[:200]}/", palette.style("accent"))
        text.append(f" in {shown_path(call.arg('path') or '.', call.cwd, call.width)}", palette.style("toolPath"))
        if call.done and not call.failed:
            code, _ = _notice(call.output)
            matches = sum(1 for line in code.split("\n") if (match := _GREP.match(line)) and match.group(2) == ":")
            text.append(f" · {_count(matches, 'match')}" if matches else " · no matches", palette.style("muted"))
        return text

    def key_argument(self, call: Call) -> str:
        return one_row(call.arg("pattern"))[:200]


_GREP = re.compile(r"(.+?)([:-])(\d+)\2 ")


def grep_line(line: str, style: str = "") -> Text:
    """Lines of grep's output, path and line number styled (context lines dimmed)."""
    text = Text(style=style)
    for index, row in enumerate(clean_lines(line).split("\n")):
        if index:
            text.append("\n")
        match = _GREP.match(row)
        if match is None:
            text.append(row, palette.style("muted") if row.startswith("[") else "")
            continue
        path, mark, number = match.groups()
        text.append(path, palette.style("toolPath"))
        text.append(f"{mark}{number}{mark}", palette.style("lineNumber"))
        text.append(row[match.end() - 1 :], "" if mark == ":" else palette.style("muted"))
    return text


class ListKind(RowsKind):
    """pi's `find` and `ls`: one path a line, directories marked, entries counted."""

    def __init__(self, noun: str) -> None:
        super().__init__(path_lines)
        self.noun = noun

    def title(self, call: Call) -> Text:
        text = Text(one_row(call.name), palette.style("toolTitle"))
        pattern = call.arg("pattern")
        if pattern:
            text.append(f" {one_row(pattern)[:200]}", palette.style("accent"))
        where = shown_path(call.arg("path") or ".", call.cwd, call.width)
        text.append(f" in {where}" if pattern else f" {where}", palette.style("toolPath"))
        if call.done and not call.failed:
            code, _ = _notice(call.output)
            entries = [line for line in code.split("\n") if line.strip() and not line.startswith("(")]
            text.append(f" · {_count(len(entries), self.noun)}", palette.style("muted"))
        return text

    def key_argument(self, call: Call) -> str:
        return one_row(call.arg("pattern") or call.arg("path"))[:200]


def path_lines(lines: str, style: str = "") -> Text:
    """One path a line: directories (ending in /) bold in the path colour, a file's
    folder dimmed, pi's notes ([…]) muted."""
    text = Text(style=style)
    for index, row in enumerate(clean_lines(lines).split("\n")):
        if index:
            text.append("\n")
        if row.startswith("[") or row.startswith("("):
            text.append(row, palette.style("muted"))
        elif row.endswith("/"):
            text.append(row, palette.style("toolPath") + palette.style("toolTitle"))
        else:
            folder, slash, name = row.rpartition("/")
            text.append(folder + slash, palette.style("muted"))
            text.append(name, palette.style("toolPath"))
    return text


GENERIC = Kind()
KINDS: dict[str, Kind] = {
    "edit": EditKind(), "write": WriteKind(), "read": ReadKind(), "bash": BashKind(),
    "grep": GrepKind(grep_line), "find": ListKind("file"), "ls": ListKind("entry"),
}  # fmt: skip


def kind_of(name: str) -> Kind:
    return KINDS.get(name, GENERIC)

