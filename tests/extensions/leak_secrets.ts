/**
 * Test extension for pideck: prints credentials where a careless extension or provider
 * library might, to check that pideck keeps them out of its protocol log and stderr tail.
 *
 * On load it writes, straight to file descriptor 1 (pi's JSONL stdout, bypassing pi's
 * stdout guard), two lines that are not records: an `Authorization: Bearer` header with
 * the scripted model's API key from models.json, and a JSON object with an `apiKey`
 * field; then to stderr: the key in an `x-api-key` header and the value of the
 * `PIDECK_TEST_SECRET_TOKEN` environment variable, bare.
 */

import { readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (_pi: ExtensionAPI) {
	const agentDir = process.env.PI_CODING_AGENT_DIR ?? "";
	const models = JSON.parse(readFileSync(join(agentDir, "models.json"), "utf8"));
	const key: string = Object.values(models.providers as Record<string, { apiKey: string }>)[0].apiKey;
	const token = process.env.PIDECK_TEST_SECRET_TOKEN ?? "";
	writeSync(1, `leak-test Authorization: Bearer ${key}\n`);
	writeSync(1, `${JSON.stringify({ leak: "leak-test", apiKey: key })}\n`);
	process.stderr.write(`leak-test request headers: x-api-key: ${key}\n`);
	process.stderr.write(`leak-test token from the environment: ${token}\n`);
}
