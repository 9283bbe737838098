/**
 * pideck's checkpoints: what a file held before pi's `edit` or `write` changed it, and
 * what it held after, so pideck can revert a change exactly and refuse when the file
 * changed since (protocol/checkpoints.py reads them).
 *
 * pideck loads it (`pi -e checkpoints.ts`) with PIDECK_CHECKPOINTS set to a directory under
 * its state directory, outside the project; without it this extension does nothing.
 * Layout, one folder per pi session:
 *   <root>/<session id>/session.json       {"sessionFile", "cwd", "parent"} (pruning; a fork's
 *       parent is the session it was forked from, whose checkpoints its earlier calls have)
 *   <root>/<session id>/calls/<sha256(tool call id)>.json
 *       {"v": 1, "tool", "path" (absolute), "before": V, "after": V}
 *       V: {"sha": hex, "size": n} | {"absent": true} | {"skipped": why}
 *   <root>/<session id>/blobs/<sha256 of the bytes>
 * Files are written to a temporary name and renamed, so a reader never sees half of one.
 */

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const MAX_BYTES = 32 * 1024 * 1024; // a larger file is not copied: its revert says so

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

export default function (pi: any) {
	const root = process.env.PIDECK_CHECKPOINTS;
	if (!root) return;
	const pending = new Map<string, { file: string; record: Record<string, unknown> }>();
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
		shared.__pideckCheckpointsLeft = String(ctx.sessionManager.getSessionId());
	});

	pi.on("session_start", async (event: any, ctx: any) => {
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

	pi.on("tool_call", async (event: any, ctx: any) => {
		if (event.toolName !== "edit" && event.toolName !== "write") return;
		const given = event.input?.path;
		if (typeof given !== "string" || !given) return;
		try {
			const dir = sessionDir(ctx);
			const file = resolvePath(given, ctx.cwd);
			const record = { v: 1, tool: event.toolName, path: file, before: snapshot(dir, file) };
			const name = path.join(dir, "calls", `${sha256(String(event.toolCallId))}.json`);
			writeAtomic(name, JSON.stringify(record));
			pending.set(String(event.toolCallId), { file: name, record });
		} catch {
			// a checkpoint that cannot be written never stops the tool: its revert says so
		}
	});

	pi.on("tool_result", async (event: any, ctx: any) => {
		const entry = pending.get(String(event.toolCallId));
		if (!entry) return;
		pending.delete(String(event.toolCallId));
		try {
			const dir = sessionDir(ctx);
			const record = { ...entry.record, after: snapshot(dir, entry.record.path as string), failed: !!event.isError };
			writeAtomic(entry.file, JSON.stringify(record));
		} catch {
			// as above
		}
	});
}
