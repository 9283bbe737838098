/**
 * Test extension for pideck: dialogs whose arguments are not what pi's types say, and
 * dialogs that wait behind another one.
 *
 *   /odd-dialogs    select with a null title, numbers and a null among the options and a
 *                   float timeout (60000.5 ms); then input with a numeric placeholder.
 *                   Reports "odd-select=<json>" and "odd-input=<json>"
 *   /two-confirms   two confirms at once: "First" without a timeout, "Second" with the
 *                   timeout given as the argument (ms, default 1500). Each reports
 *                   "first=<json>" / "second=<json>" as soon as it resolves
 *   /two-timed-confirms  two confirms at once, "A" and "B", each with the timeout given as
 *                   the argument (ms, default 5000); reports "A=<json>" / "B=<json>"
 *
 * A reported value is JSON, or `<undefined>` when the dialog resolved to undefined.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

function show(value: unknown): string {
	return value === undefined ? "<undefined>" : JSON.stringify(value);
}

export default function (pi: ExtensionAPI) {
	pi.registerCommand("odd-dialogs", {
		description: "pideck test: dialogs with numbers, nulls and a float timeout",
		handler: async (_args, ctx) => {
			const ui = ctx.ui as any;
			const choice = await ui.select(null, [1, 2, null, "x"], { timeout: 60000.5 });
			ctx.ui.notify(`odd-select=${show(choice)}`, "info");
			const text = await ui.input("A number placeholder", 42);
			ctx.ui.notify(`odd-input=${show(text)}`, "info");
		},
	});

	pi.registerCommand("two-confirms", {
		description: "pideck test: a timed confirm queued behind an untimed one",
		handler: async (args, ctx) => {
			const timeout = Number.parseInt(args.trim(), 10) || 1500;
			const first = ctx.ui.confirm("First", "No timeout").then((v) => ctx.ui.notify(`first=${show(v)}`, "info"));
			const second = ctx.ui
				.confirm("Second", "Times out while waiting", { timeout })
				.then((v) => ctx.ui.notify(`second=${show(v)}`, "info"));
			await Promise.all([first, second]);
		},
	});

	pi.registerCommand("two-timed-confirms", {
		description: "pideck test: two timed confirms asked at once",
		handler: async (args, ctx) => {
			const timeout = Number.parseInt(args.trim(), 10) || 5000;
			const a = ctx.ui.confirm("A", "First of two", { timeout }).then((v) => ctx.ui.notify(`A=${show(v)}`, "info"));
			const b = ctx.ui.confirm("B", "Second of two", { timeout }).then((v) => ctx.ui.notify(`B=${show(v)}`, "info"));
			await Promise.all([a, b]);
		},
	});
}
