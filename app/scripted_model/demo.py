"""`pideck --demo`: pi talks to the scripted demo model instead of a real provider."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

from app.scripted_model.agent_dir import pi_model_args, write_agent_dir
from app.scripted_model.scenarios import demo_responder
from app.scripted_model.server import ScriptedModel


@dataclass(frozen=True)
class Demo:
    """A running demo model; `env` and `pi_args` point a pi child at it."""

    model: ScriptedModel
    workdir: Path
    env: dict[str, str]
    pi_args: list[str]

    def stop(self) -> None:
        self.model.stop()


def start_demo(workdir: Path) -> Demo:
    """Start the demo model; its agent dir, sessions and the file it writes and edits live
    in `workdir` (a scratch directory)."""
    model = ScriptedModel(partial(demo_responder, scratch=workdir / "scratch")).start()
    agent_dir = write_agent_dir(workdir / "agent", model.base_url, quiet_startup=False)
    env = {"PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1"}
    pi_args = [*pi_model_args(), "--session-dir", str(workdir / "sessions")]
    return Demo(model=model, workdir=workdir, env=env, pi_args=pi_args)
