"""pi's footer, written as pi writes it (pi's dist/modes/interactive/components/footer.js)."""

from __future__ import annotations

from protocol.state.footer_format import context, context_level, home_relative, model, usage, where


def test_the_folder_with_its_home_as_tilde_and_the_branch() -> None:
    assert home_relative("/home/ada/src/parser", "/home/ada") == "~/src/parser"
    assert home_relative("/home/ada", "/home/ada/") == "~"
    assert home_relative("/home/adam/src", "/home/ada") == "/home/adam/src"  # not inside it
    assert home_relative("/srv/x", None) == "/srv/x"
    assert where("/home/ada/src/parser", "/home/ada", "main", None) == "~/src/parser (main)"
    assert where("/home/ada/src/parser", "/home/ada", None, "review") == "~/src/parser • review"


def test_the_context_to_a_tenth_of_a_percent() -> None:
    assert context(0.4, 128_000, True) == "0.4%/128k (auto)"  # not "0%"
    assert context(0.0, 128_000, False) == "0.0%/128k"
    assert context(None, 200_000, True) == "?/200k (auto)"
    assert context(71.25, 1_000_000, True) == "71.3%/1.0M (auto)"
    assert [context_level(p) for p in (None, 70, 70.5, 90, 90.1)] == ["", "", "warning", "warning", "error"]


def test_tokens_and_cost_only_when_not_zero() -> None:
    assert usage(240, 21, 0, 0, 0.000324) == "↑240 ↓21 $0.000"
    assert usage(12_345, 1_500, 200_000, 3, 1.5) == "↑12k ↓1.5k R200k W3 $1.500"
    assert usage(0, 0, 0, 0, 0) == ""


def test_model_and_thinking() -> None:
    assert model("claude-sonnet", True, "high") == "claude-sonnet • high"
    assert model("claude-sonnet", True, "off") == "claude-sonnet • thinking off"
    assert model("gpt-4o", False, "medium") == "gpt-4o"
    assert model(None, False, "off") == "no-model"


def test_halves_round_up_as_in_javascript() -> None:
    assert context(0.25, 128_000, False) == "0.3%/128k"  # (0.25).toFixed(1) in pi
    assert usage(1250, 0, 0, 0, 0.0125) == "↑1.3k $0.013"
    assert context(float("nan"), 128_000, False) == "nan%/128k" and context(1e300, 0, False).startswith("1")
