/**
 * pideck's checkpoints: what a file held before pi's `edit` or `write` changed it, and
 * what it held after, so pideck can revert a change exactly and refuse when the file
 * changed since (protocol/state/checkpoints.py reads them).
 *
 * pideck loads it (`pi -e checkpoints.ts`) with PIDECK_CHECKPOINTS set to a directory under
 * its state directory, outside the project, or on another host (over ssh, which passes no
 * environment) with `--pideck-checkpoints=DIR`; without either this extension does nothing.
 * Layout, one folder per pi session:
 *   <root>/<session id>/session.json       {"sessionFile", "cwd", "parent"} (pruning; a fork's
 *       parent is the session it was forked from, whose checkpoints its earlier calls have)
 *   <root>/<session id>/calls/at-<sha256(entry id + "\0" + content index)>.json
 *       {"v": 1, "tool", "path" (absolute), "before": V, "after": V, "call": {"id", "entry", "index"}}
 *       V: {"sha": hex, "size": n} | {"absent": true} | {"skipped": why}
 *   the same of a `bash` call:
 *       {"v": 1, "tool": "bash", "files": [{"path", "before": V, "after": V}], "more": n, "call"} | {..., "skipped": why}
 *   the same of a user's `!command`: {"v": 1, "tool": "bash", ..., "call": {"entry", "index": -1}}, named
 *     by its bashExecution entry and -1; pideck runs AFTER_USER_BASH when pi has answered it.
 *     A call is named by where it is in the session, the entry of the assistant message that
 *     holds it and its block's content index: tool call ids are the provider's and may repeat
 *     (`call_0` on every turn). A call not in that message (one another tool made) is named by
 *     its id, `calls/<sha256(tool call id)>.json`, as every call was before.
 *   <root>/<session id>/blobs/<sha256 of the bytes>
 *   <root>/<session id>/git/      a git object store and index of its own, for bash calls
 *
 * A bash command can change any file, so around one the git work tree pi runs in is
 * snapshotted (`git add -A` into an index and object store of pideck's, with the
 * repository's objects as alternates: the repository itself is never written, its
 * .gitignore is honoured, and only files changed since the last snapshot are hashed); the
 * files that differ afterwards are copied like an edit's. Outside a git work tree, bash
 * changes are not tracked and the record says so.
 * Files are written to a temporary name and renamed, so a reader never sees half of one.
 */

import { execFile } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const MAX_BYTES = 32 * 1024 * 1024; // a larger file is not copied: its revert says so
const MAX_BASH_FILES = 500; // files of one bash command copied; the rest are counted

type Version = { sha: string; size: number } | { absent: true } | { skipped: string };

function sha256(data: string | Buffer): string {
	return crypto.createHash("sha256").update(data).digest("hex");
}

function writeAtomic(file: string, data: string | Buffer): void {
	const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
	fs.writeFileSync(temporary, data, { mode: 0o600 });
	fs.renameSync(temporary, file);
}

function resolvePath(given: string, cwd: string): string {
	let file = given.startsWith("@") ? given.slice(1) : given;
	if (file === "~" || file.startsWith("~/")) file = path.join(os.homedir(), file.slice(1));
	return path.resolve(cwd, file);
}

function snapshot(dir: string, file: string): Version {
	let stat: fs.Stats;
	try {
		stat = fs.statSync(file);
	} catch {
		return { absent: true };
	}
	if (!stat.isFile()) return { skipped: "not a regular file" };
	if (stat.size > MAX_BYTES) return { skipped: `larger than ${MAX_BYTES / 1024 / 1024} MiB` };
	let data: Buffer;
	try {
		data = fs.readFileSync(file);
	} catch (error) {
		return { skipped: `unreadable: ${(error as Error).message}` };
	}
	const sha = sha256(data);
	const blob = path.join(dir, "blobs", sha);
	if (!fs.existsSync(blob)) writeAtomic(blob, data);
	return { sha, size: data.length };
}

const SNAPSHOT_MS = 15_000; // a work tree git cannot snapshot in this time is not tracked

function git(args: string[], cwd: string, env: Record<string, string> = {}, timeout = 0): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		execFile("git", args, { cwd, env: { ...process.env, ...env }, encoding: "buffer", maxBuffer: 256 * 1024 * 1024, timeout },
			(error, stdout) => (error ? reject(error) : resolve(stdout)));
	});
}

type Tree = { top: string; tree: string; env: Record<string, string> } | { skipped: string };

type WorkTree = { top: string; gitDir: string; add: string[] } | { skipped: string };
const workTrees = new Map<string, WorkTree>(); // by pi's cwd: found once, not on every bash call

async function workTree(cwd: string): Promise<WorkTree> {
	const known = workTrees.get(cwd);
	if (known) return known;
	const skipped = { skipped: "not in a git work tree: bash changes are tracked in git work trees only" };
	let found: WorkTree = skipped;
	try {
		const out = (await git(["rev-parse", "--show-toplevel", "--absolute-git-dir"], cwd)).toString().split("\n");
		if (out[0] && out[1]) {
			// A repository that hides untracked files (a home directory's dotfiles) gets its tracked files only.
			const untracked = (await git(["config", "--get", "status.showUntrackedFiles"], out[0]).catch(() => Buffer.from("")))
				.toString().trim();
			const add = untracked === "no" ? ["add", "-u", "--ignore-errors", "."] : ["add", "-A", "--ignore-errors", "."];
			found = { top: out[0], gitDir: out[1], add };
		}
	} catch {
		found = skipped;
	}
	if (!("skipped" in found)) workTrees.set(cwd, found); // a folder that is not one yet may become one (git init)
	return found;
}

async function snapshotTree(dir: string, cwd: string): Promise<Tree> {
	const work = await workTree(cwd);
	if ("skipped" in work) return work;
	const { top, gitDir } = work;
	const shadow = path.join(dir, "git");
	const objects = path.join(shadow, "objects");
	fs.mkdirSync(objects, { recursive: true, mode: 0o700 });
	const index = path.join(shadow, `index-${sha256(top).slice(0, 16)}`);
	if (!fs.existsSync(index) && fs.existsSync(path.join(gitDir, "index"))) {
		fs.copyFileSync(path.join(gitDir, "index"), index); // its stat cache: unchanged files are not hashed again
	}
	const env = {
		GIT_INDEX_FILE: index,
		GIT_OBJECT_DIRECTORY: objects,
		GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(gitDir, "objects"),
	};
	try {
		await git(work.add, top, env, SNAPSHOT_MS);
	} catch (error) {
		if ((error as { killed?: boolean }).killed) {
			const slow = { skipped: `git could not snapshot the work tree in ${SNAPSHOT_MS / 1000} s: bash changes are not tracked here` };
			workTrees.set(cwd, slow); // not tried again on every bash call
			return slow;
		}
		// --ignore-errors: unreadable files are left out, the rest is in the index
	}
	try {
		const tree = (await git(["write-tree"], top, env)).toString().trim();
		return { top, tree, env };
	} catch (error) {
		return { skipped: `git could not snapshot the work tree: ${String((error as Error).message).slice(0, 200)}` };
	}
}

async function blobVersion(dir: string, tree: { top: string; env: Record<string, string> }, id: string, mode: string): Promise<Version> {
	if (/^0+$/.test(id)) return { absent: true };
	if (mode === "160000") return { skipped: "a submodule" };
	try {
		const size = Number((await git(["cat-file", "-s", id], tree.top, tree.env)).toString().trim());
		if (!(size <= MAX_BYTES)) return { skipped: `larger than ${MAX_BYTES / 1024 / 1024} MiB` };
		const data = await git(["cat-file", "blob", id], tree.top, tree.env);
		const sha = sha256(data);
		const blob = path.join(dir, "blobs", sha);
		if (!fs.existsSync(blob)) writeAtomic(blob, data);
		return { sha, size: data.length };
	} catch {
		return { skipped: "git could not read it" };
	}
}

/** A path git gave (under its top folder, symlinks resolved) as pi's cwd spells it, when inside it. */
function asPiSees(file: string, cwd: string): string {
	let real = cwd;
	try {
		real = fs.realpathSync(cwd);
	} catch {
		return file;
	}
	const inside = path.relative(real, file);
	return inside && !inside.startsWith("..") && !path.isAbsolute(inside) ? path.join(cwd, inside) : file;
}

async function treeChanges(dir: string, before: Tree, after: Tree, cwd: string): Promise<Record<string, unknown>> {
	if ("skipped" in before) return { skipped: before.skipped };
	if ("skipped" in after) return { skipped: after.skipped };
	const out = (await git(["diff-tree", "-r", "-z", "--no-renames", before.tree, after.tree], after.top, after.env)).toString();
	const parts = out.split("\0");
	const files: unknown[] = [];
	let more = 0;
	for (let at = 0; at + 1 < parts.length; at += 2) {
		const [oldMode, newMode, oldId, newId] = parts[at].replace(/^:/, "").split(" ");
		if (files.length >= MAX_BASH_FILES) {
			more += 1;
			continue;
		}
		files.push({
			path: asPiSees(path.join(after.top, parts[at + 1]), cwd),
			before: await blobVersion(dir, before, oldId, oldMode),
			after: await blobVersion(dir, after, newId, newMode),
		});
	}
	return { files, more };
}

/** Where the call is: the latest assistant message on the branch (pi has appended it before
 * `tool_call`) and the content index of its block; the nth call of one id in a message is its
 * nth block of that id. Null for a call the message does not hold. */
type Seen = { entry: string; counts: Map<string, number> }; // calls of each id named so far in the latest message

function callPlace(ctx: any, toolCallId: string, seen: Seen): { entry: string; index: number } | null {
	const branch: any[] = ctx.sessionManager.getBranch();
	for (let at = branch.length - 1; at >= 0; at--) {
		const entry = branch[at];
		if (entry?.type !== "message" || entry.message?.role !== "assistant") continue;
		const content: any[] = Array.isArray(entry.message.content) ? entry.message.content : [];
		const indexes = content.flatMap((part, index) => (part?.type === "toolCall" && part.id === toolCallId ? [index] : []));
		if (!indexes.length || typeof entry.id !== "string") return null;
		if (seen.entry !== entry.id) {
			seen.entry = entry.id;
			seen.counts.clear();
		}
		const nth = seen.counts.get(toolCallId) ?? 0;
		seen.counts.set(toolCallId, nth + 1);
		return { entry: entry.id, index: indexes[Math.min(nth, indexes.length - 1)] };
	}
	return null;
}

/** The record's file for a call at `place`, and what the record says of where the call is. */
function callFile(dir: string, toolCallId: string, place: { entry: string; index: number } | null): { file: string; call: Record<string, unknown> } {
	const name = place ? `at-${sha256(`${place.entry}\0${place.index}`)}` : sha256(toolCallId);
	return { file: path.join(dir, "calls", `${name}.json`), call: { id: toolCallId, ...place } };
}

/** The command pideck runs once pi has answered a `!command` (pideck filters it out of what it lists). */
export const AFTER_USER_BASH = "pideck-checkpoint-bash";

/** A `!command` run: the tree before it and, once it ended, its changes, until its entry is found. */
type UserBash = { command: string; before: Tree; changes?: Record<string, unknown> };

const EPHEMERAL_DAYS = 2; // as protocol/state/checkpoints.py's prune, which does this for a local pi

/** Remove the checkpoints of sessions whose file is gone, and of sessions without a file older than EPHEMERAL_DAYS. */
function prune(root: string): void {
	let names: string[] = [];
	try {
		names = fs.readdirSync(root).slice(0, 10_000);
	} catch {
		return;
	}
	for (const name of names) {
		const folder = path.join(root, name);
		try {
			const meta = path.join(folder, "session.json");
			const sessionFile = JSON.parse(fs.readFileSync(meta, "utf8")).sessionFile;
			const gone = typeof sessionFile === "string" ? !fs.existsSync(sessionFile)
				: Date.now() - fs.statSync(meta).mtimeMs > EPHEMERAL_DAYS * 86_400_000;
			if (gone) fs.rmSync(folder, { recursive: true, force: true });
		} catch {
			// not a session's folder, or being written: left
		}
	}
}

export default function (pi: any) {
	pi.registerFlag("pideck-checkpoints", { description: "Where pideck's checkpoints go (pideck sets it)", type: "string" });
	let root: string | undefined = process.env.PIDECK_CHECKPOINTS; // the flag's value is known from session_start on
	// By tool call id, oldest first: a message may hold two calls of one id; pi answers each before the next message.
	const pending = new Map<string, { file: string; record: Record<string, unknown> }[]>();
	const seen: Seen = { entry: "", counts: new Map() };
	const shared = globalThis as { __pideckCheckpointsLeft?: string }; // outlives this instance: pi reloads extensions on a switch
	let parent: string | null = null;

	function sessionDir(ctx: any): string {
		const dir = path.join(root as string, String(ctx.sessionManager.getSessionId()));
		fs.mkdirSync(path.join(dir, "calls"), { recursive: true, mode: 0o700 });
		fs.mkdirSync(path.join(dir, "blobs"), { recursive: true, mode: 0o700 });
		const meta = path.join(dir, "session.json");
		if (!fs.existsSync(meta)) {
			writeAtomic(meta, JSON.stringify({ sessionFile: ctx.sessionManager.getSessionFile() ?? null, cwd: ctx.cwd, parent }));
		}
		return dir;
	}

	pi.on("session_shutdown", async (_event: any, ctx: any) => {
		if (!root) return;
		shared.__pideckCheckpointsLeft = String(ctx.sessionManager.getSessionId());
	});

	pi.on("session_start", async (event: any, ctx: any) => {
		const flag = pi.getFlag("pideck-checkpoints");
		if (!root && typeof flag === "string" && path.isAbsolute(flag)) {
			root = flag;
			prune(root); // on the host: pideck cannot list it from where it runs
		}
		if (!root) return;
		parent = event.reason === "fork" ? (shared.__pideckCheckpointsLeft ?? null) : null;
		if (parent === String(ctx.sessionManager.getSessionId())) parent = null;
		if (parent) {
			try {
				sessionDir(ctx);
			} catch {
				// as below
			}
		}
	});

	const trees = new Map<string, { file: string; call: Record<string, unknown>; tree: Tree }[]>();

	function queue<T>(map: Map<string, T[]>, id: string, value: T): void {
		map.set(id, [...(map.get(id) ?? []), value]);
	}

	function unqueue<T>(map: Map<string, T[]>, id: string): T | undefined {
		const values = map.get(id);
		const value = values?.shift();
		if (!values?.length) map.delete(id);
		return value;
	}

	pi.on("tool_call", async (event: any, ctx: any) => {
		if (!root) return;
		let place: { entry: string; index: number } | null = null;
		try {
			place = callPlace(ctx, String(event.toolCallId), seen); // every call counted: the nth of an id in a message
		} catch {
			// named by its id
		}
		if (event.toolName === "bash") {
			try {
				const dir = sessionDir(ctx);
				const { file, call } = callFile(dir, String(event.toolCallId), place);
				queue(trees, String(event.toolCallId), { file, call, tree: await snapshotTree(dir, ctx.cwd) });
			} catch {
				// as below
			}
			return;
		}
		if (event.toolName !== "edit" && event.toolName !== "write") return;
		const given = event.input?.path;
		if (typeof given !== "string" || !given) return;
		try {
			const dir = sessionDir(ctx);
			const target = resolvePath(given, ctx.cwd);
			const { file, call } = callFile(dir, String(event.toolCallId), place);
			const record = { v: 1, tool: event.toolName, path: target, before: snapshot(dir, target), call };
			writeAtomic(file, JSON.stringify(record));
			queue(pending, String(event.toolCallId), { file, record });
		} catch {
			// a checkpoint that cannot be written never stops the tool: its revert says so
		}
	});

	pi.on("tool_result", async (event: any, ctx: any) => {
		if (!root) return;
		const bash = unqueue(trees, String(event.toolCallId));
		if (bash) {
			try {
				const dir = sessionDir(ctx);
				const changes = await treeChanges(dir, bash.tree, await snapshotTree(dir, ctx.cwd), ctx.cwd);
				writeAtomic(bash.file, JSON.stringify({ v: 1, tool: "bash", ...changes, call: bash.call }));
			} catch {
				// as below
			}
			return;
		}
		const entry = unqueue(pending, String(event.toolCallId));
		if (!entry) return;
		try {
			const dir = sessionDir(ctx);
			const record = { ...entry.record, after: snapshot(dir, entry.record.path as string), failed: !!event.isError };
			writeAtomic(entry.file, JSON.stringify(record));
		} catch {
			// as above
		}
	});

	// A `!command` (user_bash) is snapshotted before pi runs it, and after once pideck says pi
	// answered it (AFTER_USER_BASH); its record is named by its bashExecution entry, which pi
	// appends when it ends (as the run settles, when one was going on).
	const userBash: UserBash[] = [];

	pi.on("user_bash", async (event: any, ctx: any) => {
		if (!root) return undefined;
		try {
			userBash.push({ command: String(event.command), before: await snapshotTree(sessionDir(ctx), ctx.cwd) });
		} catch {
			// as below
		}
		return undefined; // pi (or another extension) runs it
	});

	function placeUserBash(ctx: any): void {
		const dir = sessionDir(ctx);
		const branch: any[] = ctx.sessionManager.getBranch();
		for (const ran of userBash.filter((each) => each.changes)) {
			for (let at = branch.length - 1; at >= 0; at--) {
				const entry = branch[at];
				if (entry?.type !== "message" || entry.message?.role !== "bashExecution" || entry.message.command !== ran.command) continue;
				const { file, call } = callFile(dir, "", { entry: String(entry.id), index: -1 });
				if (fs.existsSync(file)) continue;
				writeAtomic(file, JSON.stringify({ v: 1, tool: "bash", ...ran.changes, call }));
				userBash.splice(userBash.indexOf(ran), 1);
				break;
			}
		}
	}

	pi.registerCommand(AFTER_USER_BASH, {
		description: "pideck: pi answered a ! command (its checkpoints)",
		handler: async (_args: string, ctx: any) => {
			const ran = userBash.find((each) => !each.changes);
			if (!root || !ran) return;
			try {
				const dir = sessionDir(ctx);
				ran.changes = await treeChanges(dir, ran.before, await snapshotTree(dir, ctx.cwd), ctx.cwd);
				placeUserBash(ctx);
			} catch {
				userBash.splice(userBash.indexOf(ran), 1);
			}
		},
	});

	pi.on("agent_settled", async (_event: any, ctx: any) => {
		if (!root || !userBash.length) return;
		try {
			placeUserBash(ctx); // one that ended while a run went on: pi appends its entry as the run settles
		} catch {
			// as above
		}
	});
}
