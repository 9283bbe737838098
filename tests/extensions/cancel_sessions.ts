/**
 * Test extension for pideck: cancels every session switch, new session, fork and clone.
 *
 * Load it with `pi --mode rpc -e tests/extensions/cancel_sessions.ts`: `new_session` and
 * `switch_session` then answer `{"cancelled": true}` (session_before_switch), and `fork`
 * and `clone` too (session_before_fork).
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("session_before_switch", async () => ({ cancel: true }));
	pi.on("session_before_fork", async () => ({ cancel: true }));
}
