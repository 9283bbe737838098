"""The pideck application: CLI, wiring of the protocol client to the screen, the demo."""
