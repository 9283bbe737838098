"""Security with the REAL pi: credentials never reach what pideck stores (an extension prints the
scripted model's API key)."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import EXTENSIONS_DIR, SIZE, PiHarness, transcript_text, wait_until

from app.pideck_app import PideckApp
from protocol.wire.redact import MARK


SECRET_TOKEN = "tok-9f8e7d6c5b4a39281706"


async def test_api_keys_never_reach_the_protocol_log_or_the_stderr_tail(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    key = "scripted-no-key"  # the scripted model's apiKey in models.json
    assert key in (pi_harness.agent_dir / "models.json").read_text()
    log = tmp_path / "protocol.log"
    app = PideckApp(pi_harness.launch_config(
        extensions=[EXTENSIONS_DIR / "leak_secrets.ts"], env={"PIDECK_TEST_SECRET_TOKEN": SECRET_TOKEN}, protocol_log=log,
    ))  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready, timeout=30, what="pi start-up")
        client = app.desk.current.pi.client
        await wait_until(pilot, lambda: client.bad_records >= 2, what="the leaked stdout lines")
        await wait_until(pilot, lambda: sum("leak-test" in line for line in client.stderr) >= 2, what="stderr lines")
        stderr = client.stderr_tail
        logged = log.read_bytes()
        await app.desk.current.pi.client.close()
        await wait_until(pilot, lambda: app.query_one("#crash-bar").display, what="exit shown")
        shown = transcript_text(app)
    assert logged.count(b"leak-test") == 2 and logged.count(MARK.encode()) >= 2
    assert stderr.count("leak-test") == 2 and stderr.count(MARK) == 2
    for secret in (key, SECRET_TOKEN):
        assert secret not in stderr, secret
        assert secret.encode() not in logged, secret
        assert secret not in shown, "nor in the stderr tail of the exit banner"
