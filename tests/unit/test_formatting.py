"""One way to write a number for people (protocol/state/formatting.py), used by every pane, command
and banner: a token count reads as pi's own footer writes it."""

from __future__ import annotations

import pytest

from protocol.wire.events import CompactionEnd, CompactionResult
from protocol.state.formatting import cost, duration, on_off, tokens
from protocol.state.session_model import SessionModel, compaction_outcome


@pytest.mark.parametrize(
    ("count", "shown"),
    [(None, "?"), (0, "0"), (999, "999"), (1000, "1.0k"), (1234, "1.2k"), (12_345, "12k"), (12_500, "13k"),
     (200_000, "200k"), (1_048_576, "1.0M"), (1_500_000, "1.5M"), (12_345_678, "12M")],
)
def test_tokens_as_pi_writes_them(count: int | None, shown: str) -> None:
    assert tokens(count) == shown


def test_duration_cost_on_off() -> None:
    assert (duration(None), duration(850), duration(2_549)) == ("", "850ms", "2.5s")
    assert cost(0.012345) == "$0.0123"
    assert (on_off(True), on_off(False)) == ("on", "off")


def test_one_compaction_outcome_for_the_banner_and_the_command() -> None:
    result = CompactionResult(summary="s", first_kept_entry_id="e", tokens_before=150_000, estimated_tokens_after=32_000)
    assert compaction_outcome(result) == "150k tokens → ~32k"
    model = SessionModel()
    model.apply(CompactionEnd(reason="manual", result=result, aborted=False, will_retry=False))
    assert model.items[-1].outcome == f"done: {compaction_outcome(result)}"
    no_estimate = CompactionResult(summary="s", first_kept_entry_id="e", tokens_before=1234)
    assert compaction_outcome(no_estimate) == "1.2k tokens"
