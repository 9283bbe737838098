"""A key that pi's keybindings.json leaves without one is never in the Footer, not even in
the moment between the recomposed keys' mount and the fit that hides them (a test that
looked then, on a loaded machine, saw Ctrl+T's "Thinking" there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.pi_harness import Fake, wait_until
from textual.widgets._footer import FooterKey

from widgets.panes.key_footer import UNBOUND, KeyFooter


async def test_an_unbound_key_is_hidden_as_it_is_composed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "keybindings.json").write_text(json.dumps({"app.thinking.toggle": []}))
    fake = Fake(tmp_path)
    async with fake.run(fake.app({"PI_CODING_AGENT_DIR": str(agent)})) as pilot:
        footer = pilot.app.query_one(KeyFooter)
        await wait_until(pilot, lambda: any(key.key == UNBOUND for key in footer.query(FooterKey)), what="the keys composed")
        monkeypatch.setattr(footer, "_fit", lambda: None)  # the keys mounted, not yet fitted
        before = {id(key) for key in footer.query(FooterKey)}
        footer._shown = ()  # (as if the bindings had changed: the same ones keep their keys)
        footer.call_later(footer.recompose)  # in the Footer's own context, as its bindings signal does
        await wait_until(pilot, lambda: footer.query(FooterKey) and not before & {id(key) for key in footer.query(FooterKey)},
                         what="the keys composed again")
        shown = [key.description for key in footer.query(FooterKey) if key.key == UNBOUND and key.display]
        assert shown == [], f"unbound keys shown: {shown}"
