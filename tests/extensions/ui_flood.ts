/**
 * Test extension for pideck: floods of fire-and-forget UI calls, as a careless or
 * hostile extension sends them. Load it with `pi -e tests/extensions/ui_flood.ts`, then
 * send one of these commands as a `prompt` message:
 *
 *   /flood-notify COUNT [CHARS]        COUNT notifies at once ("note N", padded to CHARS
 *                                      characters); then notify("flood=done")
 *   /flood-notify-stream RATE SECONDS  RATE notifies a second for SECONDS; then
 *                                      notify("stream=done")
 *   /flood-widgets COUNT LINES [below] COUNT widgets of LINES lines each ("wK line N"),
 *                                      above the editor (or below); then notify("widgets=done")
 *   /flood-statuses COUNT              COUNT statuses ("sK"); then notify("statuses=done")
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

function ints(args: string): number[] {
	return args
		.trim()
		.split(/\s+/)
		.map((word) => Number.parseInt(word, 10))
		.filter((n) => Number.isFinite(n));
}

export default function (pi: ExtensionAPI) {
	pi.registerCommand("flood-notify", {
		description: "pideck test: many notifies at once",
		handler: async (args, ctx) => {
			const [count = 1000, chars = 0] = ints(args);
			for (let i = 0; i < count; i++) {
				ctx.ui.notify(`note ${i}`.padEnd(chars, "x"), i % 10 === 9 ? "warning" : "info");
			}
			ctx.ui.notify("flood=done", "info");
		},
	});

	pi.registerCommand("flood-notify-stream", {
		description: "pideck test: a steady stream of notifies",
		handler: async (args, ctx) => {
			const [rate = 50, seconds = 5] = ints(args);
			const started = Date.now();
			for (let i = 0; i < rate * seconds; i++) {
				const due = started + (i * 1000) / rate;
				await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
				ctx.ui.notify(`tick ${i}`, "info");
			}
			ctx.ui.notify("stream=done", "info");
		},
	});

	pi.registerCommand("flood-widgets", {
		description: "pideck test: many widgets of many lines",
		handler: async (args, ctx) => {
			const [count = 1, lines = 60] = ints(args);
			const placement = args.includes("below") ? "belowEditor" : "aboveEditor";
			for (let k = 0; k < count; k++) {
				const content = Array.from({ length: lines }, (_, n) => `w${k} line ${n}`);
				ctx.ui.setWidget(`flood-${placement}-${k}`, content, { placement });
			}
			ctx.ui.notify("widgets=done", "info");
		},
	});

	pi.registerCommand("flood-statuses", {
		description: "pideck test: many statuses",
		handler: async (args, ctx) => {
			const [count = 30] = ints(args);
			for (let k = 0; k < count; k++) {
				ctx.ui.setStatus(`flood-${k}`, `s${k} status text`);
			}
			ctx.ui.notify("statuses=done", "info");
		},
	});
}
