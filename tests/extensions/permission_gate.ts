/**
 * Test extension for pideck: a permission gate, as extensions ask before they run a command.
 *
 *   /gate   confirm "Allow `rm -rf build`?", then input "Why?"; reports "gate=<json>" and
 *           "why=<json>" with notify as each resolves
 *
 * A reported value is JSON, or `<undefined>` when the dialog resolved to undefined.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

function show(value: unknown): string {
	return value === undefined ? "<undefined>" : JSON.stringify(value);
}

export default function (pi: ExtensionAPI) {
	pi.registerCommand("gate", {
		description: "pideck test: a confirm that allows a command, then a reason asked",
		handler: async (_args, ctx) => {
			const allowed = await ctx.ui.confirm("Allow `rm -rf build`?", "The extension runs it if you say yes.");
			ctx.ui.notify(`gate=${show(allowed)}`, "info");
			const why = await ctx.ui.input("Why?", "a reason");
			ctx.ui.notify(`why=${show(why)}`, "info");
		},
	});
}
