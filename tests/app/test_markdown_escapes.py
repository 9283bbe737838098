"""Escapes that markdown decodes never reach the terminal.

markdown-it decodes a reply after pideck cleaned it: an autolink's shown text is
percent-decoded (`<http://x/%1b[2J>` shows ESC [2J), entities become characters. Every
family of terminal escape (CSI, OSC, DCS, APC, PM, SOS, single C1 controls; 7-bit, as
UTF-8 C1 characters and as percent-escapes; entities) goes through every construct that
decodes (autolinks, e-mail autolinks, links, images, reference links, entities, code spans,
headings, lists, tables, which Rich renders), with pi's `terminal.hyperlinks` off and on;
the test reads the bytes pideck writes to a pseudo-terminal, on screen and in the
conversation it prints when it quits."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
from pathlib import Path

import pytest
from tests.app.test_security import PtyRun
from tests.pi_harness import ROOT, SIZE, Fake

from widgets.markdown.render import PARSER
from widgets.markdown.safe import clean_tokens, link_target

ESC, C1 = "%1b", "%c2%"  # percent-escapes of ESC and of the UTF-8 lead byte of a C1 control
ESCAPES = [
    f"{ESC}[2J{ESC}[31m",  # CSI: clear the screen, red
    f"{C1}9b2J",  # 8-bit CSI
    f"{ESC}]52;c;RVZJTDNNQVJL{ESC}%5c",  # OSC 52: write the clipboard (ST)
    f"{ESC}]0;EVILTITLE%07",  # OSC 0: the window title (BEL)
    f"{C1}9d52;c;RVZJTA{C1}9c",  # 8-bit OSC and ST
    f"{ESC}P+q544e{ESC}%5c",  # DCS: a terminfo query
    f"{C1}90+q544e{C1}9c",  # 8-bit DCS
    f"{ESC}_Gf=24{ESC}%5c",  # APC (kitty graphics)
    f"{C1}9fapc{C1}9c",
    f"{ESC}^pm{ESC}%5c",  # PM
    f"{C1}9epm",
    f"{ESC}Xsos{ESC}%5c",  # SOS
    f"{C1}98sos",
    f"{ESC}]8;;http://EVILLINK{ESC}%5cclick{ESC}]8;;{ESC}%5c",  # OSC 8: a link of the model's own
    f"{ESC}c",  # RIS: reset the terminal
    f"{C1}84{C1}85{C1}8d",  # IND, NEL, RI
]
RAW = "\x1b[2J \x9b2J \x1b]52;c;UkFX\x07 \x9d0;t\x9c \x1bP+q\x1b\\ \x1b_a\x1b\\ \x1b^p\x1b\\ \x1bXs\x1b\\ \x85"
ENTITIES = "&#27;[2J &#x1b;]52;c;RU5U&#7; &#155;2J &#x9d;0;t&#x9c; &#144;q &#159;a &#152;s &#158;p &#133;"


def answer() -> str:
    """A reply that holds every escape in every construct that decodes; prose first (pideck
    lays it out itself), then a table (Rich renders that chunk)."""
    lines = ["Escapes below."]
    for n, escape in enumerate(ESCAPES):
        lines += [
            f"- auto <http://x.example/{escape}/{n}> mail <a{escape}b{n}@x.example>",
            f"- link [t{escape}](http://x.example/{escape}) image ![a{escape}](http://x.example/{escape} \"{escape}\")",
            f"- ref [r{n}] code `{escape}`",
            "",
            f"[r{n}]: http://x.example/{escape}",
            "",
            f"## head <http://x.example/{escape}>",
            "",
        ]
    lines += [
        f"raw {RAW} `{RAW}` <http://x.example/{RAW.replace(' ', '')}>",
        "",
        f"entities {ENTITIES} `{ENTITIES}` [{ENTITIES}](http://x.example/a)",
        "",
        "| auto | link |",
        "| --- | --- |",
        *(f"| <http://x.example/{escape}> | [l{escape}](http://x.example/{escape}) &#27;[2J |" for escape in ESCAPES),
        "",
        "END-OF-ANSWER",
    ]
    return "\n".join(lines)


def messages_file(tmp_path: Path) -> Path:
    path = tmp_path / "messages.json"
    path.write_text(json.dumps([
        {"role": "user", "content": [{"type": "text", "text": "escapes"}], "timestamp": 1795952825000},
        {"role": "assistant", "content": [{"type": "text", "text": answer()}], "stopReason": "stop",
         "api": "openai-completions", "provider": "scripted", "model": "scripted-demo", "timestamp": 1795952826000},
    ]))
    return path


OSC8 = re.compile(rb"\x1b]8;[^;\x1b\x07]*;([^\x1b\x07]*)(?:\x1b\\|\x07)")
OWN_ESCAPES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|]8;|]2;|]22;|]1[01];\?\x1b\\|[78=>\\])")
"""What pideck writes itself: CSI (cursor, colours, modes), OSC 8 links and their ST, OSC 2
the title, OSC 22 the pointer shape, the OSC 10/11 colour queries, cursor save and restore, keypad modes."""
LEAKS = [b"\x1b[2J", b"\x1b]52", b"\x1b]0;", b"\x1bP", b"\x1b_", b"\x1b^", b"\x1bX", b"\x1bc"]


@pytest.mark.parametrize("hyperlinks", [False, True], ids=["links-off", "links-on"])
def test_no_escape_markdown_decodes_reaches_the_terminal(tmp_path: Path, hyperlinks: bool) -> None:
    fake = Fake(tmp_path, "--messages", str(messages_file(tmp_path)))
    fake.agent_dir.mkdir()
    (fake.agent_dir / "settings.json").write_text(json.dumps({"terminal": {"hyperlinks": hyperlinks}}))
    argv = [str(ROOT / ".venv" / "bin" / "pideck"), "--pi", shlex.join(fake.argv)]
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor", "PI_CODING_AGENT_DIR": str(fake.agent_dir)}
    run = PtyRun(argv, env, (SIZE[0], 200), tmp_path)  # tall: the whole answer is drawn
    try:
        run.wait_for(lambda: b"END-OF-ANSWER" in run.output and b"ready" in run.output, "the answer shown")
        run.write(b"\x04")  # ctrl+d on the empty editor quits, printing the conversation
        assert run.stop() == 0
    finally:
        try:
            os.kill(run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    out = bytes(run.output)
    assert out.count(b"END-OF-ANSWER") >= 2, "the answer on screen and in what quitting prints"
    assert b"x.example" in out and b"head" in out
    for leaked in LEAKS:
        assert leaked not in out, leaked
    assert not re.search(rb"\xc2[\x80-\x9f]", out), "a C1 control, as UTF-8"
    stray = [out[m.start() : m.start() + 12] for m in re.finditer(rb"\x1b", out) if not OWN_ESCAPES.match(out, m.start())]
    assert not stray, stray[:5]
    targets = [target for target in OSC8.findall(out) if target]  # (an empty one ends a link)
    assert bool(targets) == hyperlinks, "links follow the setting, in what quitting prints too"
    for target in targets:  # pideck's own links, to where the markdown pointed, in printable ASCII
        assert re.fullmatch(rb"(http://x\.example/|mailto:a)[!-~]*", target), target


def test_every_decoded_token_is_clean_and_link_targets_are_printable_ascii() -> None:
    tokens = clean_tokens(PARSER.parse(answer()))

    def walk(tokens: list) -> None:
        for token in tokens:
            for value in (token.content, token.info, *map(str, token.attrs.values())):
                assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", value), (token.type, value)
            walk(token.children or [])

    walk(tokens)
    assert link_target("http://x/\x1b[2Jy é\x9b") == "http://x/y%20%C3%A9"
