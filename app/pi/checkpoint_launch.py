"""pi started with pideck's checkpoint extension (app/pi/checkpoints.ts), which copies what a
file held before each `edit`, `write`, `bash` and `!command` so the Changes view can revert it
exactly. Once pi has answered a `!command`, pideck runs the extension's AFTER_USER_BASH.

A local pi loads it from here, its checkpoints going to PIDECK_CHECKPOINTS when the
environment sets it, else under pideck's state directory. A pi run through ssh loads a
copy put on its host first (app/pi/remote_files.py, over the same ssh: into pideck's state
directory there, named by its hash, so written once), with `--pideck-checkpoints=DIR`
naming that host's checkpoint folder; the Changes view then reads and writes the host's
files over ssh. PIDECK_CHECKPOINTS=off turns them off (reverting then says it cannot be exact).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from app.pi.launch import LaunchConfig, pi_command
from app.pi.remote_files import RemoteFiles, content_name, ssh_login
from protocol.state.checkpoints import default_root, prune

EXTENSION = Path(__file__).with_name("checkpoints.ts")
REMOTE_FLAG = "--pideck-checkpoints="  # the host's checkpoint folder, for the extension there
AFTER_USER_BASH = "pideck-checkpoint-bash"  # the extension's command, as app/pi/checkpoints.ts names it


def with_checkpoints(config: LaunchConfig) -> LaunchConfig:
    """`config` with the extension loaded and its directory set (unchanged when it is there
    already); sessions' checkpoints that their rules let go are removed."""
    argv = list(config.argv)
    if (str(EXTENSION) in argv or "--mode" not in argv or config.env.get("PIDECK_CHECKPOINTS") == "off"
            or any(word.startswith(REMOTE_FLAG) for word in argv)):
        return config
    at = argv.index("--mode") + 2  # after `--mode rpc`, before the user's arguments
    if config.remote is not None:
        files = remote_files(config)
        assert files is not None
        data = EXTENSION.read_bytes()
        try:
            extension, root = files.install(content_name(data, "checkpoints", ".ts"), data)
        except OSError:
            return config  # the host cannot be reached without a prompt: reverts say why they cannot be exact
        argv[at:at] = ["-e", extension, REMOTE_FLAG + root]
        return dataclasses.replace(config, argv=tuple(argv))
    if not _is_pi(argv[: argv.index("--mode")]):
        return config
    root = config.env.get("PIDECK_CHECKPOINTS") or str(default_root())
    try:
        Path(root).mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return config  # nowhere to keep them: edits are shown, reverts say why they cannot be exact
    prune(Path(root))
    argv[at:at] = ["-e", str(EXTENSION)]
    return dataclasses.replace(config, argv=tuple(argv), env={**config.env, "PIDECK_CHECKPOINTS": root})


def _is_pi(command: list[str]) -> bool:
    """The command runs pi itself (`pi`, or Node on pi's cli.js), not another program that speaks RPC."""
    names = [os.path.basename(part) for part in command]
    return bool(names) and (names[0] == "pi" or (len(names) > 1 and names[-1] == "cli.js"))


def checkpoint_root(config: LaunchConfig) -> Path | None:
    """Where the extension of this launch keeps its checkpoints (on pi's host); None when it is not loaded."""
    remote = next((word for word in config.argv if word.startswith(REMOTE_FLAG)), None)
    if remote is not None:
        return Path(remote.removeprefix(REMOTE_FLAG))
    if str(EXTENSION) not in config.argv:
        return None
    return Path(config.env["PIDECK_CHECKPOINTS"])


def remote_files(config: LaunchConfig) -> RemoteFiles | None:
    """The files of pi's host, over the `--pi` command's ssh; None for a local pi."""
    if config.remote is None:
        return None
    return RemoteFiles(ssh_login(pi_command(config)), config.remote)
