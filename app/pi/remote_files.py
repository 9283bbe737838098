"""Files on the host pi runs on (`--pi 'ssh box pi'`), read and written over the same ssh
for the Changes view's reverts and /rewind: the checkpoints pi's extension keeps there,
and the files it changed.

Each call is one `ssh [the user's options] HOST sh -c SCRIPT sh ARGS...`: the script is
fixed, the paths are arguments, each shell-quoted for the remote shell (remote_pi.with_words),
so no file name (spaces, quotes, newlines, a leading dash) is ever read as shell. ssh runs
with BatchMode (a password prompt would draw over the screen: without a key or a shared
connection, the call fails and says so) and a time limit. Reads are bounded per file; a
read of many files is one connection. Checkpoint blobs are named by their hash, so what
was read of one is kept (up to `CACHE_BYTES`) and not fetched again.
"""

from __future__ import annotations

import posixpath
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from app.pi.remote import ssh_destination, with_words
from protocol.state.checkpoints import sha256_hex

TIMEOUT = 60.0  # seconds for one call, connection included
INSTALL_TIMEOUT = 20.0  # the one before pi starts: a host that does not answer delays pideck no longer
MAX_ARGS = 64 * 1024  # bytes of paths in one call (the host's command line has room for far more)
CACHE_BYTES = 64 * 1024 * 1024

# For each path: "A" (no file), "E why" or "D size" and then that many bytes.
_READ = r"""limit=$1; shift
t=$(mktemp) || exit 1
trap 'rm -f "$t"' EXIT
for p do
  if [ ! -e "$p" ]; then echo A; continue; fi
  if [ ! -f "$p" ]; then echo 'E not a regular file'; continue; fi
  n=$(wc -c < "$p" 2>/dev/null) || { echo 'E cannot be read'; continue; }
  if [ "$n" -gt "$limit" ]; then echo "E larger than $limit bytes"; continue; fi
  head -c "$((limit + 1))" < "$p" > "$t" 2>/dev/null || { echo 'E cannot be read'; continue; }
  n=$(wc -c < "$t")
  if [ "$n" -gt "$limit" ]; then echo "E larger than $limit bytes"; continue; fi
  echo "D $n"; cat "$t"
done"""

# $1 the file, $2 its folder; the bytes on stdin, or none to remove it ($3 = rm). A temporary
# file in the same folder is renamed over the old one, whose mode it keeps. $4: the SHA-256
# of what the file must hold now ("absent": no file), else status 3 and nothing is written
# (not checked where the host has neither sha256sum nor shasum).
_WRITE = r"""p=$1; d=$2
if [ -e "$p" ]; then h=$( (sha256sum < "$p" || shasum -a 256 < "$p") 2>/dev/null ); h=${h%%[!0-9a-f]*}; else h=absent; fi
if [ -n "$h" ] && [ "$h" != "$4" ]; then exit 3; fi
if [ "$3" = rm ]; then rm -f -- "$p"; exit; fi
mkdir -p -- "$d" || exit 1
t=$(mktemp "$d/.pideck-revert-XXXXXX") || exit 1
if [ -e "$p" ]; then m=$(stat -c %a -- "$p" 2>/dev/null || stat -f %Lp -- "$p"); else m=$(printf %o "$((0666 & ~$(umask)))"); fi
if cat > "$t" && chmod "$m" "$t" && mv -f -- "$t" "$p"; then exit 0; fi
rm -f -- "$t"; exit 1"""

# $1 the extension's file name (its hash in it); its bytes on stdin, written once. Prints
# the extension's path and the checkpoints' folder, each ended by NUL.
_INSTALL = r"""base=${XDG_STATE_HOME:-$HOME/.local/state}/pideck
d=$base/extensions; f=$d/$1
mkdir -p -- "$base/checkpoints" "$d" && chmod 700 "$base/checkpoints" "$d" || exit 1
if [ -f "$f" ]; then cat > /dev/null; else t=$(mktemp "$d/.pideck-XXXXXX") && cat > "$t" && mv -f -- "$t" "$f" || exit 1; fi
printf '%s\0%s\0' "$f" "$base/checkpoints"
"""


CHANGED_STATUS = 3


class Changed(OSError):
    """The file no longer holds what pideck read from it: nothing was written."""


def _feed(child: subprocess.Popen[bytes], data: bytes) -> None:
    """Write `data` to the child's stdin and close it (a child that stops reading ends it)."""
    assert child.stdin is not None
    try:
        child.stdin.write(data)
    except OSError:
        pass
    finally:
        try:
            child.stdin.close()
        except OSError:
            pass


def ssh_login(command: Sequence[str]) -> list[str]:
    """The `--pi` command's ssh up to its host (the user's own options kept), with BatchMode
    (first: ssh takes an option's first value) and a ConnectTimeout the user's own replaces."""
    host = ssh_destination(command)
    assert host is not None, "an ssh command"
    words = list(command)
    end = _host_index(words, host)
    options = words[1:end]
    at = len(options) - 1 if options[-1:] == ["--"] else len(options)
    options[at:at] = ["-o", "ConnectTimeout=15"]
    return [words[0], "-o", "BatchMode=yes", *options, words[end]]


def _host_index(words: list[str], host: str) -> int:
    """Where the host is among `words` (the first word that ssh_destination of what precedes it finds)."""
    for end in range(1, len(words)):
        if words[end] == host and ssh_destination(words[: end + 1]) == host:
            return end
    raise AssertionError("no host in the ssh command")


class RemoteFiles:
    """Reads and writes on the host `login` (ssh_login's) reaches; OSError when one cannot be done."""

    def __init__(self, login: Sequence[str], host: str) -> None:
        self.login, self.host = list(login), host
        self._cache: OrderedDict[str, bytes] = OrderedDict()  # a blob's path: its bytes
        self._cached = 0
        self._lock = threading.Lock()

    def _run(self, script: str, args: Sequence[str], data: bytes | None = None, timeout: float = TIMEOUT,
             most: int = 1 << 20) -> bytes:
        """What the script printed (at most `most` bytes: more ends the call)."""
        try:
            child = subprocess.Popen(self._argv(script, args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as exc:
            raise OSError(f"cannot run ssh: {exc.strerror or exc}") from None
        timer = threading.Timer(timeout, child.kill)
        timer.start()
        stderr: list[bytes] = []
        try:
            threading.Thread(target=_feed, args=(child, data or b""), daemon=True).start()
            reader = threading.Thread(target=lambda: stderr.append(child.stderr.read(64 * 1024) if child.stderr else b""),
                                      daemon=True)
            reader.start()
            chunks, size = [], 0
            while child.stdout is not None and (chunk := child.stdout.read1(1 << 20)):
                chunks.append(chunk)
                size += len(chunk)
                if size > most:
                    raise OSError(f"the answer from {self.host} was longer than pideck reads")
            out = b"".join(chunks)
            status = child.wait()
            reader.join()
        finally:
            timer.cancel()
            if child.poll() is None:
                child.kill()
                child.wait()
            for stream in (child.stdout, child.stderr):
                if stream is not None:
                    stream.close()
        if status < 0:
            raise OSError(f"ssh to {self.host} gave no answer in {timeout:.0f} s")
        if status == 255:
            why = b"".join(stderr).decode("utf-8", "replace").strip().splitlines()[-1:] or ["no reason given"]
            raise OSError(f"ssh to {self.host} failed ({why[0][:200]}); "
                          "pideck's own ssh asks for no password: use a key or a shared connection (ControlMaster)")
        if status == CHANGED_STATUS:
            raise Changed(f"{args[0] if args else 'the file'} changed on {self.host} since pideck read it: nothing was written")
        if status != 0:
            raise OSError(f"the command on {self.host} failed (status {status})")
        return out

    def _argv(self, script: str, args: Sequence[str]) -> list[str]:
        return with_words(self.login, ["sh", "-c", script, "sh", *args])

    def read_many(self, paths: Iterable[str], limit: int) -> dict[str, bytes | None | OSError]:
        """Each file's bytes (None: no file there; an OSError: why it cannot be read)."""
        found: dict[str, bytes | None | OSError] = {}
        wanted = []
        with self._lock:
            for path in dict.fromkeys(paths):
                if path in self._cache:
                    self._cache.move_to_end(path)
                    found[path] = self._cache[path]
                else:
                    wanted.append(path)
        batch: list[str] = []
        size = 0
        for path in wanted:
            if batch and size + len(path.encode("utf-8", "surrogateescape")) > MAX_ARGS:
                found.update(self._read_batch(batch, limit))
                batch, size = [], 0
            batch.append(path)
            size += len(path.encode("utf-8", "surrogateescape"))
        if batch:
            found.update(self._read_batch(batch, limit))
        return found

    def _read_batch(self, paths: list[str], limit: int) -> dict[str, bytes | None | OSError]:
        out = self._run(_READ, [str(limit), *paths], most=len(paths) * (limit + 64))
        found: dict[str, bytes | None | OSError] = {}
        at = 0
        for path in paths:
            end = out.find(b"\n", at)
            if end < 0:
                raise OSError(f"the answer from {self.host} ended early")
            head, at = out[at:end].decode("utf-8", "replace"), end + 1
            if head == "A":
                found[path] = None
            elif head.startswith("E "):
                found[path] = OSError(f"{path}: {head[2:]} (on {self.host})")
            elif head.startswith("D ") and head[2:].strip().isdigit() and int(head[2:]) <= limit:
                size = int(head[2:])
                data, at = out[at : at + size], at + size
                if len(data) != size:
                    raise OSError(f"the answer from {self.host} ended early")
                found[path] = data
                self._keep(path, data)
            else:
                raise OSError(f"an answer from {self.host} pideck cannot read")
        return found

    def _keep(self, path: str, data: bytes) -> None:
        """Keep a checkpoint blob's bytes (its name is their hash: they never change)."""
        if posixpath.basename(posixpath.dirname(path)) != "blobs" or sha256_hex(data) != posixpath.basename(path):
            return
        with self._lock:
            self._cache[path] = data
            self._cached += len(data)
            while self._cached > CACHE_BYTES and self._cache:
                self._cached -= len(self._cache.popitem(last=False)[1])

    def read(self, path: str, limit: int) -> bytes | None:
        """The file's bytes; None when there is none; OSError when it cannot be read."""
        result = self.read_many([path], limit)[path]
        if isinstance(result, OSError):
            raise result
        return result

    def write(self, path: str, data: bytes | None, expected: bytes | None) -> None:
        """Put `data` in `path` (None: remove it), through a temporary file renamed over it,
        if it holds `expected` (None: no file); Changed when it does not."""
        now = "absent" if expected is None else sha256_hex(expected)
        self._run(_WRITE, [path, posixpath.dirname(path), "rm" if data is None else "write", now], data)

    def install(self, name: str, data: bytes) -> tuple[str, str]:
        """Put `data` in pideck's state folder on the host as `name` (kept: written once),
        and the path it has there and the folder of the checkpoints."""
        parts = self._run(_INSTALL, [name], data, INSTALL_TIMEOUT).split(b"\0")
        if len(parts) < 3:
            raise OSError(f"an answer from {self.host} pideck cannot read")
        return parts[0].decode("utf-8", "surrogateescape"), parts[1].decode("utf-8", "surrogateescape")

    @staticmethod
    def realpath(path: str) -> str:
        """A path as the host spells it (its links cannot be resolved from here)."""
        return posixpath.normpath(path)


def content_name(data: bytes, stem: str, suffix: str) -> str:
    """`stem-<hash>.suffix`: a file named by what it holds, written once."""
    return f"{stem}-{sha256_hex(data)[:16]}{suffix}"
