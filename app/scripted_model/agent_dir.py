"""A pi agent directory (`PI_CODING_AGENT_DIR`) whose only provider is a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

PROVIDER = "scripted"
MODEL_ID = "scripted-demo"


def write_agent_dir(directory: Path, base_url: str, *, context_window: int = 128_000, quiet_startup: bool = True) -> Path:
    """Write `models.json` and settings into `directory`; returns it. `quiet_startup`
    (pi's setting) keeps pi's start-up header and pideck's welcome text off: on for
    tests, off for the demo a newcomer starts on."""
    directory.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            PROVIDER: {
                "name": "Scripted demo model",
                "baseUrl": base_url,
                "api": "openai-completions",
                "apiKey": "scripted-no-key",
                "compat": {"supportsUsageInStreaming": True},
                "models": [
                    {
                        "id": MODEL_ID,
                        "name": "Scripted demo",
                        "reasoning": True,
                        "input": ["text", "image"],
                        "contextWindow": context_window,
                        "maxTokens": 8192,
                        "cost": {"input": 1.0, "output": 4.0, "cacheRead": 0.1, "cacheWrite": 1.25},
                    },
                    {
                        "id": MODEL_ID + "-mini",
                        "name": "Scripted mini",
                        "reasoning": False,
                        "contextWindow": 32_000,
                        "maxTokens": 4096,
                        "cost": {"input": 0.1, "output": 0.4, "cacheRead": 0.01, "cacheWrite": 0.1},
                    },
                ],
            }
        }
    }
    (directory / "models.json").write_text(json.dumps(models, indent=2))
    settings = {"defaultProvider": PROVIDER, "defaultModel": MODEL_ID, "quietStartup": quiet_startup}
    (directory / "settings.json").write_text(json.dumps(settings, indent=2))
    return directory


def pi_model_args() -> list[str]:
    """pi flags that select the scripted model."""
    return ["--provider", PROVIDER, "--model", MODEL_ID]
