"""The cost of pideck's checkpoints (app/pi/checkpoints.ts) on a 100,000-file git work tree.

pi runs on the scripted model in the tree (committed, so git's index knows every file),
once with pideck's checkpoint extension and once without it (the reference, in the same
run). Measured: the time of a prompt with one `bash` call (`true`; the extension
snapshots the work tree before and after it), the first such prompt (the snapshot index
is new: git hashes what the repository's own index does not vouch for), and a prompt with
one `edit` of a 4 KB file (its bytes are copied before and after); and the disk the
checkpoints take: per edit, and the snapshot store after the bash calls; and a bash call
in a 100-file git work tree. Each time is the
median of a few prompts. The model runs in a thread of this process (it asks for tool
calls, which the model process of the other benchmarks does not serve): both runs share
that cost.

Run: `python -m benchmarks checkpoints`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from app.pi.checkpoint_launch import EXTENSION
from app.scripted_model.server import Reply, ToolCallSpec
from benchmarks.table import Row
from protocol.wire.commands import Prompt

FILES = 100_000
PER_FOLDER = 20
PROMPTS = 5
EDITED = "edited.txt"


def make_tree(root: Path, files: int = FILES) -> None:
    for number in range(files // PER_FOLDER):
        folder = root / f"pkg{number % 50}" / f"m{number}"
        folder.mkdir(parents=True)
        for index in range(PER_FOLDER):
            (folder / f"f{index}.py").write_text(f"# {number} {index}\n")
    (root / EDITED).write_text("".join(f"line {n:04}\n" for n in range(400)))
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "config", "gc.auto", "0"], cwd=root, check=True)  # no packing in the background meanwhile
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "tree"], cwd=root, check=True)


def folder_bytes(folder: Path) -> int:
    total = 0
    for parent, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.stat(os.path.join(parent, name)).st_size
            except FileNotFoundError:
                pass
    return total


async def timed_prompt(harness: object, client: object, reply: Reply) -> float:
    from tests.pi_harness import Recorder

    harness.model.queue(reply, Reply(text="done"))  # type: ignore[attr-defined]
    with Recorder(client) as recorder:  # type: ignore[arg-type]
        started = time.perf_counter()
        await client.call(Prompt(message="go"))  # type: ignore[attr-defined]
        await recorder.wait_settled(timeout=120)
        return (time.perf_counter() - started) * 1000


async def small_tree(root: Path, harness: object) -> tuple[float, float]:
    """A prompt with one bash call in a 100-file git work tree: with checkpoints, without."""
    tree = root / "small"
    tree.mkdir()
    make_tree(tree, 100)
    harness.cwd = tree  # type: ignore[attr-defined]
    bash = Reply(tool_calls=(ToolCallSpec("bash", {"command": "true"}),))
    medians = []
    for extensions in ([EXTENSION], []):
        client = await harness.start_client(extensions=extensions)  # type: ignore[attr-defined]
        await timed_prompt(harness, client, bash)
        medians.append(statistics.median([await timed_prompt(harness, client, bash) for _ in range(PROMPTS)]))
        await harness.close_client(client)  # type: ignore[attr-defined]
    return medians[0], medians[1]


async def measure(root: Path) -> list[Row]:
    from tests.pi_harness import PiHarness

    tree = root / "tree"
    tree.mkdir()
    make_tree(tree)
    checkpoints = root / "checkpoints"
    harness = PiHarness(root / "pi")
    harness.cwd = tree
    harness.env["PIDECK_CHECKPOINTS"] = str(checkpoints)
    bash = Reply(tool_calls=(ToolCallSpec("bash", {"command": "true"}),))

    def edit(number: int) -> Reply:
        old, new = (f"line {number:04}\n", f"line {number:04} edited\n")
        return Reply(tool_calls=(ToolCallSpec("edit", {"path": EDITED, "edits": [{"oldText": old, "newText": new}]}),))

    try:
        results: dict[str, dict[str, list[float]]] = {}
        for name, extensions in (("with", [EXTENSION]), ("without", [])):
            client = await harness.start_client(extensions=extensions)
            times = results[name] = {"first": [], "bash": [], "edit": []}
            times["first"].append(await timed_prompt(harness, client, bash))
            for _ in range(PROMPTS):
                times["bash"].append(await timed_prompt(harness, client, bash))
            offset = 0 if name == "with" else 200
            for number in range(PROMPTS):
                times["edit"].append(await timed_prompt(harness, client, edit(offset + number)))
            await harness.close_client(client)
        sessions = [folder for folder in checkpoints.iterdir() if folder.is_dir()]
        blobs = sum(folder_bytes(folder / "blobs") + folder_bytes(folder / "calls") for folder in sessions)
        shadow = sum(folder_bytes(folder / "git") for folder in sessions)
        small_with, small_without = await small_tree(root, harness)
    finally:
        await harness.close()
    with_, without = results["with"], results["without"]
    size = (tree / EDITED).stat().st_size
    return [
        Row("prompt with one bash call, 100k-file git tree", statistics.median(with_["bash"]), "ms",
            "the same without checkpoints", statistics.median(without["bash"])),
        Row("first such prompt (new snapshot index)", with_["first"][0], "ms",
            "the same without checkpoints", without["first"][0]),
        Row("prompt with one bash call, 100-file git tree", small_with, "ms", "the same without checkpoints", small_without),
        Row("prompt with one edit of a 4 KB file", statistics.median(with_["edit"]), "ms",
            "the same without checkpoints", statistics.median(without["edit"])),
        Row("checkpoint disk per edit (copies and record)", blobs / PROMPTS / 1024, "KB",
            "the edited file", size / 1024),
        Row(f"snapshot store after {PROMPTS + 1} bash calls", shadow / 1024 / 1024, "MB",
            "the tree's .git", folder_bytes(tree / ".git") / 1024 / 1024),
    ]


def run() -> list[Row]:
    root = Path(tempfile.mkdtemp(prefix="pideck-bench-checkpoints-"))
    try:
        return asyncio.run(measure(root))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table([("checkpoints", row) for row in run()]))
    os._exit(0)
