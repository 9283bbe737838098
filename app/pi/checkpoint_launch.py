"""pi started with pideck's checkpoint extension (app/pi/checkpoints.ts), which copies what a
file held before each `edit` and `write` so the Changes view can revert it exactly.

Only a local pi loads it: a pi run through ssh cannot read an extension file of this
machine, and its files are not pideck's to write. The checkpoints go to
PIDECK_CHECKPOINTS when the environment sets it, else under pideck's state directory;
PIDECK_CHECKPOINTS=off turns them off (reverting then says it cannot be exact).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from app.pi.launch import LaunchConfig
from protocol.state.checkpoints import default_root, prune

EXTENSION = Path(__file__).with_name("checkpoints.ts")


def with_checkpoints(config: LaunchConfig) -> LaunchConfig:
    """`config` with the extension loaded and its directory set (unchanged when remote or
    when it is there already); sessions' checkpoints that their rules let go are removed."""
    argv = list(config.argv)
    if (config.remote is not None or str(EXTENSION) in argv or "--mode" not in argv
            or config.env.get("PIDECK_CHECKPOINTS") == "off" or not _is_pi(argv[: argv.index("--mode")])):
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


def _is_pi(command: list[str]) -> bool:
    """The command runs pi itself (`pi`, or Node on pi's cli.js), not another program that speaks RPC."""
    names = [os.path.basename(part) for part in command]
    return bool(names) and (names[0] == "pi" or (len(names) > 1 and names[-1] == "cli.js"))


def checkpoint_root(config: LaunchConfig) -> Path | None:
    """Where the extension of this launch keeps its checkpoints; None when it is not loaded."""
    if str(EXTENSION) not in config.argv:
        return None
    return Path(config.env["PIDECK_CHECKPOINTS"])
