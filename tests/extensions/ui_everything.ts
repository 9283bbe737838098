/**
 * Test extension for pideck: calls every `ctx.ui` method that pi's RPC mode forwards.
 *
 * Load it with `pi --mode rpc -e tests/extensions/ui_everything.ts`, then send one of
 * these commands as a `prompt` message:
 *
 *   /ui-dialogs   select, confirm, input, editor (in that order, one at a time); after each
 *                 dialog resolves it reports the value with notify("<method>=<json>")
 *   /ui-fire      notify (info, warning, error), setStatus (set, clear), setWidget (above,
 *                 below, clear), setTitle, setEditorText; ends with notify("fire=done")
 *   /ui-timeout   select, confirm and input with a `timeout` (ms, from the argument,
 *                 default 300) that nobody answers; reports "timeout-<method>=<json>"
 *
 * A reported value is JSON, or `<undefined>` when the dialog resolved to undefined.
 * The prompt's response (disposition "handled") comes only after the command finished.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

function show(value: unknown): string {
	return value === undefined ? "<undefined>" : JSON.stringify(value);
}

export default function (pi: ExtensionAPI) {
	pi.registerCommand("ui-dialogs", {
		description: "pideck test: the four dialogs, each reported with notify",
		handler: async (_args, ctx) => {
			const choice = await ctx.ui.select("Pick a colour", ["red", "green", "blue"]);
			ctx.ui.notify(`select=${show(choice)}`, "info");
			const confirmed = await ctx.ui.confirm("Proceed?", "Really proceed with the test?");
			ctx.ui.notify(`confirm=${show(confirmed)}`, "info");
			const name = await ctx.ui.input("Your name", "type a name");
			ctx.ui.notify(`input=${show(name)}`, "info");
			const text = await ctx.ui.editor("Edit the text", "line one\nline two");
			ctx.ui.notify(`editor=${show(text)}`, "info");
		},
	});

	pi.registerCommand("ui-fire", {
		description: "pideck test: every fire-and-forget UI method",
		handler: async (_args, ctx) => {
			ctx.ui.notify("note info", "info");
			ctx.ui.notify("note warning", "warning");
			ctx.ui.notify("note error", "error");
			ctx.ui.setStatus("ui-test", "status on");
			ctx.ui.setStatus("ui-test", undefined);
			ctx.ui.setWidget("ui-above", ["above 1", "above 2"]);
			ctx.ui.setWidget("ui-below", ["below 1"], { placement: "belowEditor" });
			ctx.ui.setWidget("ui-above", undefined);
			ctx.ui.setTitle("pideck ui test");
			ctx.ui.setEditorText("text from the extension");
			ctx.ui.notify("fire=done", "info");
		},
	});

	pi.registerCommand("ui-timeout", {
		description: "pideck test: dialogs with a timeout that pi resolves itself",
		handler: async (args, ctx) => {
			const timeout = Number.parseInt(args.trim(), 10) || 300;
			const choice = await ctx.ui.select("Timed pick", ["a", "b"], { timeout });
			ctx.ui.notify(`timeout-select=${show(choice)}`, "info");
			const confirmed = await ctx.ui.confirm("Timed confirm", "Nobody will answer", { timeout });
			ctx.ui.notify(`timeout-confirm=${show(confirmed)}`, "info");
			const value = await ctx.ui.input("Timed input", "nobody types", { timeout });
			ctx.ui.notify(`timeout-input=${show(value)}`, "info");
		},
	});
}
