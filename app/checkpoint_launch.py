"""pi started with pideck's checkpoint extension (app/checkpoints.ts), which copies what a
file held before each `edit` and `write` so the Changes view can revert it exactly.

Only a local pi loads it: a pi run through ssh cannot read an extension file of this
machine, and its files are not pideck's to write. The checkpoints go to
PIDECK_CHECKPOINTS when the environment sets it, else under pideck's state directory;
PIDECK_CHECKPOINTS=off turns them off (reverting then says it cannot be exact).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.launch import LaunchConfig
from protocol.checkpoints import default_root, prune

EXTENSION = Path(__file__).with_name("checkpoints.ts")


def with_checkpoints(config: LaunchConfig) -> LaunchConfig:
    """`config` with the extension loaded and its directory set (unchanged when remote or
    when it is there already); sessions' checkpoints that their rules let go are removed."""
    argv = list(config.argv)
    if (config.remote is not None or str(EXTENSION) in argv or "--mode" not in argv
            or config.env.get("PIDECK_CHECKPOINTS") == "off"):
        return config
    root = config.env.get("PIDECK_CHECKPOINTS") or str(default_root())
    try:
        Path(root).mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return config  # nowhere to keep them: edits are shown, reverts say why they cannot be exact
    prune(Path(root))
    at = argv.index("--mode") + 2  # after `--mode rpc`, before the user's arguments
    argv[at:at] = ["-e", str(EXTENSION)]
    return dataclasses.replace(config, argv=tuple(argv), env={**config.env, "PIDECK_CHECKPOINTS": root})


def checkpoint_root(config: LaunchConfig) -> Path | None:
    """Where the extension of this launch keeps its checkpoints; None when it is not loaded."""
    if str(EXTENSION) not in config.argv:
        return None
    return Path(config.env["PIDECK_CHECKPOINTS"])
